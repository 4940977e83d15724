package integration

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/testenv"
)

// The C ABI (issue 16) end to end: libmpi.so built from ./libmpi/capi,
// the wrapper compilers built from ./mpicc, the C and Fortran examples
// and the C test suite (ctest/) compiled with them, run by our mpirun
// over every rpi module, reported as Go programs are, and mixed with Go
// programs in one job.

// cInstall is the C side of the test installation, built once: an
// installation prefix (lib/libmpi.so, include/mpi.h and mpif.h,
// bin/mpicc and its other names) and the compiled programs in progs/.
type cInstall struct {
	prefix string
	progs  string
	err    error
	skip   string
}

var (
	cOnce  sync.Once
	cBuilt cInstall
)

// cRoot is the repository's top directory.
func cRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// cPrograms returns the C installation, building it on first use;
// it skips the test while libmpi/capi is not in the tree.
func cPrograms(t *testing.T) cInstall {
	t.Helper()
	cOnce.Do(func() { cBuilt = buildC() })
	if cBuilt.skip != "" {
		t.Skip(cBuilt.skip)
	}
	if cBuilt.err != nil {
		t.Fatal(cBuilt.err)
	}
	return cBuilt
}

func buildC() cInstall {
	root := cRoot()
	if _, err := os.Stat(filepath.Join(root, "libmpi", "capi")); err != nil {
		return cInstall{skip: "libmpi/capi (the C ABI library of issue 16) is not in this tree yet"}
	}
	for _, tool := range []string{"gcc", "gfortran"} {
		if _, err := exec.LookPath(tool); err != nil {
			if testenv.Strict() {
				return cInstall{err: fmt.Errorf("%s is missing (scripts/test-deps installs it)", tool)}
			}
			return cInstall{skip: tool + " is missing"}
		}
	}
	// Under the suite's prefix, which TestMain removes.
	c := cInstall{prefix: filepath.Join(prefix, "c"), progs: filepath.Join(prefix, "c", "progs")}
	for _, d := range []string{"lib", "include", "bin", "progs"} {
		if err := os.MkdirAll(filepath.Join(c.prefix, d), 0o755); err != nil {
			return cInstall{err: err}
		}
	}
	step := func(dir string, env []string, name string, args ...string) error {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, out)
		}
		return nil
	}
	if err := step(root, nil, "go", "build", "-buildmode=c-shared", "-o", filepath.Join(c.prefix, "lib", "libmpi.so"), "./libmpi/capi"); err != nil {
		return cInstall{err: err}
	}
	os.Remove(filepath.Join(c.prefix, "lib", "libmpi.h")) // cgo's header, not ours
	headers, _ := filepath.Glob(filepath.Join(root, "libmpi", "capi", "include", "*.h"))
	for _, h := range headers {
		b, err := os.ReadFile(h)
		if err == nil {
			err = os.WriteFile(filepath.Join(c.prefix, "include", filepath.Base(h)), b, 0o644)
		}
		if err != nil {
			return cInstall{err: err}
		}
	}
	if err := step(root, nil, "go", "build", "-o", filepath.Join(c.prefix, "bin", "mpicc"), "./mpicc"); err != nil {
		return cInstall{err: err}
	}
	for _, name := range []string{"mpif77", "mpiCC"} {
		if err := os.Symlink("mpicc", filepath.Join(c.prefix, "bin", name)); err != nil {
			return cInstall{err: err}
		}
	}
	// Compile everything with our wrappers, pointed at this prefix.
	env := []string{"LAMHOME=" + c.prefix}
	mpicc, mpif77 := filepath.Join(c.prefix, "bin", "mpicc"), filepath.Join(c.prefix, "bin", "mpif77")
	for _, p := range []string{"hello", "ring", "pi"} {
		if err := step(root, env, mpicc, "-O2", "-o", filepath.Join(c.progs, "c-"+p), "examples/c/"+p+".c"); err != nil {
			return cInstall{err: err}
		}
		if err := step(root, env, mpif77, "-O2", "-o", filepath.Join(c.progs, "f77-"+p), "examples/f77/"+p+".f"); err != nil {
			return cInstall{err: err}
		}
	}
	if err := step(root, env, mpicc, "-shared", "-fPIC", "-o", filepath.Join(c.progs, "libpmpicount.so"), "ctest/pmpi_count.c"); err != nil {
		return cInstall{err: err}
	}
	progs, _ := filepath.Glob(filepath.Join(root, "ctest", "*.c"))
	for _, src := range progs {
		name := strings.TrimSuffix(filepath.Base(src), ".c")
		if name == "pmpi_count" {
			continue
		}
		args := []string{"-Wall", "-o", filepath.Join(c.progs, name), src}
		if name == "pmpi" {
			args = append(args, "-L"+c.progs, "-lpmpicount", "-Wl,-rpath,"+c.progs)
		}
		if err := step(root, env, mpicc, args...); err != nil {
			return cInstall{err: err}
		}
	}
	return c
}

// prog is the path of a compiled program.
func (c cInstall) prog(name string) string { return filepath.Join(c.progs, name) }

// cRPIs are the rpi modules the C programs run over (usysv and sysv need
// a shared-memory file system).
func cRPIs(t *testing.T) []string {
	t.Helper()
	needShm(t)
	return []string{"usysv", "sysv", "tcp", "crtcp", "lamd"}
}

// The examples, in C and in Fortran, over every rpi module: the same
// lines as the Go examples.
func TestCExamples(t *testing.T) {
	c := cPrograms(t)
	ctx, l := bootLocal(t, 6*time.Minute)
	for _, rpi := range cRPIs(t) {
		for _, lang := range []string{"c", "f77"} {
			run := func(np, prog string, args ...string) result {
				return l.run(ctx, "mpirun", append([]string{"-ssi", "rpi", rpi, "-np", np, c.prog(lang + "-" + prog)}, args...)...)
			}
			r := run("3", "hello")
			lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
			sort.Strings(lines)
			if r.code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], "Hello, world! I am 0 of 3 on ") || !strings.HasPrefix(lines[2], "Hello, world! I am 2 of 3 on ") {
				t.Errorf("%s hello over %s: %v", lang, rpi, r)
			}
			if r := run("3", "ring"); r.code != 0 || !strings.Contains(r.stdout, "Process 0 sending 10 to 1, tag 201 (3 processes in ring)") ||
				!strings.Contains(r.stdout, "Process 0 decremented value: 0") || strings.Count(r.stdout, " exiting\n") != 3 {
				t.Errorf("%s ring over %s: %v", lang, rpi, r)
			}
			if r := run("4", "pi", "1000000"); r.code != 0 ||
				!regexp.MustCompile(`^pi is approximately 3\.14159265358\d+, error \d\.\d\d[eE]-1\d \(1000000 intervals, 4 processes, \d+\.\d+ s\)\n$`).MatchString(r.stdout) {
				t.Errorf("%s pi over %s: %v", lang, rpi, r)
			}
		}
	}
	noCLeft(t, c)
}

// A run of the C test suite, as ctest/suite.txt lists it.
type cRun struct {
	prog string
	np   string
	code int
	args []string
}

func cSuite(t *testing.T) []cRun {
	t.Helper()
	f, err := os.Open(filepath.Join(cRoot(), "ctest", "suite.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var runs []cRun
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if len(fields) < 3 {
			t.Fatalf("suite.txt: %q", sc.Text())
		}
		var code int
		if _, err := fmt.Sscan(fields[2], &code); err != nil {
			t.Fatalf("suite.txt: %q: %v", sc.Text(), err)
		}
		runs = append(runs, cRun{fields[0], fields[1], code, fields[3:]})
	}
	if len(runs) < 15 {
		t.Fatalf("suite.txt lists only %d runs", len(runs))
	}
	return runs
}

// The C test suite over every rpi module: each run exits as suite.txt
// says, prints no FAIL line, and a passing one says PASS.
func TestCSuite(t *testing.T) {
	c := cPrograms(t)
	runs := cSuite(t)
	ctx, l := bootLocal(t, 15*time.Minute)
	for _, rpi := range cRPIs(t) {
		for _, run := range runs {
			r := l.run(ctx, "mpirun", append([]string{"-ssi", "rpi", rpi, "-np", run.np, c.prog(run.prog)}, run.args...)...)
			ok := r.code == run.code && !regexp.MustCompile(`(?m)^FAIL`).MatchString(r.stdout)
			if run.code == 0 && !strings.Contains(r.stdout, "PASS "+run.prog+": ") {
				ok = false
			}
			if !ok {
				t.Errorf("%s -np %s over %s: %v\nwant exit %d", run.prog, run.np, rpi, r, run.code)
			}
		}
	}
	noCLeft(t, c)
}

// A C program that aborts, crashes or never calls MPI_Init is reported
// as a Go one is (the messages TestMPIRunFailures checks).
func TestCFailures(t *testing.T) {
	needPgrep(t)
	c := cPrograms(t)
	ctx, l := bootLocal(t, 4*time.Minute)
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"-np", "2", c.prog("noinit")}, 1, `rank \d \(pid \d+\) on n0 exited without calling MPI_Init`},
		{[]string{"-np", "3", c.prog("abort")}, 7, `rank 2 called MPI_Abort`},
		{[]string{"-np", "3", c.prog("abort"), "42"}, 42, `rank 2 called MPI_Abort`},
		{[]string{"-np", "3", c.prog("crash"), "9"}, 9, `rank 2 \(pid \d+\) on n0 exited due to signal 9`},
		{[]string{"-np", "3", c.prog("crash"), "11"}, 11, `rank 2 \(pid \d+\) on n0 exited due to signal 11`},
	}
	for _, tt := range tests {
		r := l.run(ctx, "mpirun", tt.args...)
		if r.code != tt.code || !regexp.MustCompile(tt.stderr).MatchString(r.stderr) || strings.Contains(r.stdout, "FAIL") {
			t.Errorf("mpirun %s: %v\nwant exit %d and %q", strings.Join(tt.args, " "), r, tt.code, tt.stderr)
		}
	}
	noCLeft(t, c)
}

// One job of C and Go programs: an app schema with a C line and a Go
// line. The ring passes its MPI_INT between C and Go ranks.
func TestCMixedSchema(t *testing.T) {
	c := cPrograms(t)
	ctx, l := bootLocal(t, 4*time.Minute)
	schema := filepath.Join(l.prefix, "mixed.app")
	if err := os.WriteFile(schema, []byte(fmt.Sprintf("n0 -np 2 %s\nn0 -np 2 %s\n", c.prog("c-ring"), bin("ring"))), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := l.run(ctx, "mpirun", schema); r.code != 0 || !strings.Contains(r.stdout, "Process 0 sending 10 to 1, tag 201 (4 processes in ring)") ||
		!strings.Contains(r.stdout, "Process 0 decremented value: 0") || strings.Count(r.stdout, " exiting\n") != 4 {
		t.Errorf("a ring of C and Go ranks: %v", r)
	}
	hello := filepath.Join(l.prefix, "hello.app")
	if err := os.WriteFile(hello, []byte(fmt.Sprintf("n0 %s\nn0 %s\nn0 %s\n", bin("hello"), c.prog("c-hello"), c.prog("f77-hello"))), 0o644); err != nil {
		t.Fatal(err)
	}
	r := l.run(ctx, "mpirun", hello)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	sort.Strings(lines)
	if r.code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], "Hello, world! I am 0 of 3 on ") || !strings.HasPrefix(lines[2], "Hello, world! I am 2 of 3 on ") {
		t.Errorf("Go, C and Fortran hello in one job: %v", r)
	}
	noCLeft(t, c)
}

// noCLeft fails if a compiled C program survives its job.
func noCLeft(t *testing.T, c cInstall) {
	t.Helper()
	needPgrep(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		out, _ := exec.CommandContext(ctx, "pgrep", "-f", "^"+c.progs+"/").Output()
		if strings.TrimSpace(string(out)) == "" {
			return
		}
		if ctx.Err() != nil {
			t.Errorf("C programs left behind: %s", out)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}
