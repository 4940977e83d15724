package faults

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lamgo/lam/shared/testenv"
)

// enableVar runs the suite; without it the test binary passes at once.
const enableVar = "LAM_TEST_FAULTS"

var tableFile = flag.String("faults.table", "", "write the results as a markdown table to this `file`")

// prefix is the installation the suite built: prefix/bin holds the tools
// and test programs. Every process whose executable lies there was
// started by this suite.
var prefix string

func TestMain(m *testing.M) {
	flag.Parse()
	if os.Getenv(enableVar) != "1" {
		fmt.Printf("faults: the fault-injection suite runs with %s=1 (make test-faults)\n", enableVar)
		os.Exit(0)
	}
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "faults:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	testenv.AllowRoot() // CI runs as root; the tools refuse it unless asked
	dir, err := os.MkdirTemp("", "lamgo-faults-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	// The simulated hosts run the tools over ssh: the tree must be
	// readable by everyone.
	if err := os.Chmod(dir, 0o755); err != nil {
		return 0, err
	}
	prefix = dir
	if err := testenv.Install(dir, "lamboot", "lamd", "hboot", "lamhalt", "lamnodes", "tping",
		"lamwipe", "lamclean", "lamexec", "mpirun", "examples/hello", "libmpi/internal/testprog"); err != nil {
		return 0, err
	}
	code := m.Run()
	if *tableFile != "" {
		if err := os.WriteFile(*tableFile, []byte(markdownTable()), 0o644); err != nil {
			return 0, err
		}
		fmt.Println("faults: table written to", *tableFile)
	}
	return code, nil
}

// bin returns the path of a built tool or test program.
func bin(tool string) string { return filepath.Join(prefix, "bin", tool) }

// ours reports whether exe (a /proc/<pid>/exe target) is one of the
// suite's binaries.
func ours(exe string) bool {
	return strings.HasPrefix(exe, filepath.Join(prefix, "bin")+"/")
}
