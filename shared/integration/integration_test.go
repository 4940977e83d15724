// Package integration runs the real binaries: it builds every tool once,
// boots universes on this host and, with network namespaces and sshd, on
// several simulated hosts.
package integration

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/testenv"
)

// prefix is an installation built for the tests: prefix/bin holds every
// tool, prefix/etc the default schemas.
var prefix string

func TestMain(m *testing.M) {
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	testenv.AllowRoot() // CI runs as root; the tools refuse it unless asked
	dir, err := os.MkdirTemp("", "lamgo-integration-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	// Reachable by other users (the security tests run a client as
	// nobody).
	os.Chmod(dir, 0o755)
	prefix = dir
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	tools := []string{"lamboot", "lamd", "hboot", "lamhalt", "lamnodes", "tping", "lamwipe", "recon",
		"lamclean", "tkill", "lamexec", "lamgrow", "lamshrink", "mpirun", "mpiexec", "laminfo",
		"examples/hello", "examples/ring", "libmpi/internal/testprog"}
	args := []string{"build", "-o", filepath.Join(dir, "bin") + "/"}
	for _, t := range tools {
		args = append(args, "./"+t)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("build the tools: %v\n%s", err, out)
	}
	if err := os.MkdirAll(filepath.Join(dir, "etc"), 0o755); err != nil {
		return 0, err
	}
	for _, f := range []string{"lam-bhost.def", "lam-conf.lamd"} {
		b, err := os.ReadFile(filepath.Join(root, "etc", f))
		if err != nil {
			return 0, err
		}
		if err := os.WriteFile(filepath.Join(dir, "etc", f), b, 0o644); err != nil {
			return 0, err
		}
	}
	return m.Run(), nil
}

// bin returns the path of a built tool.
func bin(tool string) string { return filepath.Join(prefix, "bin", tool) }

// result is what a tool run printed and returned.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", r.code, r.stdout, r.stderr)
}

// runCmd runs cmd (bounded) and returns its result.
func runCmd(t testing.TB, cmd *exec.Cmd) result {
	t.Helper()
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	r := result{stdout: o.String(), stderr: e.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", strings.Join(cmd.Args, " "), err)
	}
	return r
}

// withoutRootWarning drops the one-line warning tools print as root.
func withoutRootWarning(s string) string {
	var out []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.Contains(l, ": warning: running as root") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

func testContext(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
