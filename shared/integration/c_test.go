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

// cBuild holds the wrapper compilers, built once into prefix/bin (beside
// libmpi.so and mpi.h, which needCLib installs under prefix), and every
// program compiled with them so far, in prefix/c.
var cBuild struct {
	once  sync.Once
	err   error
	mu    sync.Mutex
	progs map[string]cProgram
}

type cProgram struct {
	path string
	err  error
}

// cRoot is the repository's top directory.
func cRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// needWrappers builds libmpi.so (needCLib) and mpicc with its other
// names, once.
func needWrappers(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("gfortran"); err != nil {
		testenv.Skip(t, "gfortran is missing (scripts/test-deps installs it)")
	}
	needCLib(t)
	cBuild.once.Do(func() {
		cBuild.progs = map[string]cProgram{}
		if err := os.MkdirAll(filepath.Join(prefix, "c"), 0o755); err != nil {
			cBuild.err = err
			return
		}
		cmd := exec.Command("go", "build", "-o", bin("mpicc"), "./mpicc")
		cmd.Dir = cRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			cBuild.err = fmt.Errorf("go build ./mpicc: %w\n%s", err, out)
			return
		}
		for _, name := range []string{"mpif77", "mpiCC"} {
			if err := os.Symlink("mpicc", bin(name)); err != nil {
				cBuild.err = err
				return
			}
		}
	})
	if cBuild.err != nil {
		t.Fatal(cBuild.err)
	}
}

// cProg returns a program compiled with our wrappers, compiling it on
// first use: "c/NAME" and "f77/NAME" are examples/c/NAME.c and
// examples/f77/NAME.f, "cxx/NAME" is examples/c/NAME.c compiled as C++
// with mpiCC, "ctest/NAME" is ctest/NAME.c or ctest/NAME.f
// (ctest/pmpi is linked with the profiling library built from
// ctest/pmpi_count.c). A program that does not compile fails the test
// that asked for it (ok is false); the others still run.
func cProg(t *testing.T, name string) (path string, ok bool) {
	t.Helper()
	needWrappers(t)
	cBuild.mu.Lock()
	defer cBuild.mu.Unlock()
	p, done := cBuild.progs[name]
	if !done {
		p = compileWithWrapper(name)
		cBuild.progs[name] = p
	}
	if p.err != nil {
		t.Errorf("%s does not build: %v", name, p.err)
		return "", false
	}
	return p.path, true
}

// compileWithWrapper compiles one of cProg's programs into prefix/c.
func compileWithWrapper(name string) cProgram {
	dir, base := filepath.Split(name)
	dir = strings.TrimSuffix(dir, "/")
	out := filepath.Join(prefix, "c", dir+"-"+base)
	wrapper, src := bin("mpicc"), filepath.Join(dir, base+".c")
	var extra []string
	switch dir {
	case "c":
		src = filepath.Join("examples", "c", base+".c")
	case "f77":
		wrapper, src = bin("mpif77"), filepath.Join("examples", "f77", base+".f")
	case "cxx":
		// The C examples are C++ too: mpiCC compiles them as C++
		// (g++ takes .c files for C++), against mpi.h's extern "C".
		wrapper, src = bin("mpiCC"), filepath.Join("examples", "c", base+".c")
	case "ctest":
		if _, err := os.Stat(filepath.Join(cRoot(), "ctest", base+".f")); err == nil {
			// Fortran 77 passes buffers of several types to one
			// routine: mpif77 adds gfortran's flag for it by itself.
			wrapper, src = bin("mpif77"), filepath.Join("ctest", base+".f")
		}
	}
	run := func(args ...string) error {
		cmd := exec.Command(wrapper, args...)
		cmd.Dir = cRoot()
		cmd.Env = append(os.Environ(), "LAMHOME="+prefix)
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s %s: %w\n%s", filepath.Base(wrapper), strings.Join(args, " "), err, b)
		}
		return nil
	}
	if name == "ctest/pmpi" {
		lib := filepath.Join(prefix, "c")
		if err := run("-shared", "-fPIC", "-o", filepath.Join(lib, "libpmpicount.so"), "ctest/pmpi_count.c"); err != nil {
			return cProgram{err: err}
		}
		extra = []string{"-L" + lib, "-lpmpicount", "-Wl,-rpath," + lib}
	}
	if err := run(append([]string{"-O2", "-o", out, src}, extra...)...); err != nil {
		return cProgram{err: err}
	}
	return cProgram{path: out}
}

// cRPIs are the rpi modules the C programs run over (usysv and sysv need
// a shared-memory file system).
func cRPIs(t *testing.T) []string {
	t.Helper()
	needShm(t)
	return []string{"usysv", "sysv", "tcp", "crtcp", "lamd"}
}

// cExamples are the examples every language has, with their arguments.
var cExamples = []struct {
	name string
	args []string
}{{"hello", nil}, {"ring", nil}, {"pi", []string{"1000000"}}}

// exampleOK reports whether an example's run on np ranks printed the
// same lines as the Go example's.
func exampleOK(name string, np int, r result) bool {
	if r.code != 0 {
		return false
	}
	switch name {
	case "hello":
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		sort.Strings(lines)
		return len(lines) == np && strings.HasPrefix(lines[0], "Hello, world! I am 0 of "+fmt.Sprint(np)+" on ") &&
			strings.HasPrefix(lines[np-1], fmt.Sprintf("Hello, world! I am %d of %d on ", np-1, np))
	case "ring":
		return strings.Contains(r.stdout, fmt.Sprintf("Process 0 sending 10 to 1, tag 201 (%d processes in ring)", np)) &&
			strings.Contains(r.stdout, "Process 0 decremented value: 0") && strings.Count(r.stdout, " exiting\n") == np
	case "pi":
		return regexp.MustCompile(fmt.Sprintf(`^pi is approximately 3\.14159265358\d+, error \d\.\d\d[eE]-1\d \(1000000 intervals, %d processes, \d+\.\d+ s\)\n$`, np)).MatchString(r.stdout)
	}
	return false
}

// The examples, in C, in C++ (mpiCC) and in Fortran, over every rpi
// module: the same lines as the Go examples.
func TestCExamples(t *testing.T) {
	needWrappers(t)
	ctx, l := bootLocal(t, 8*time.Minute)
	for _, lang := range []string{"c", "cxx", "f77"} {
		for i, ex := range cExamples {
			prog, ok := cProg(t, lang+"/"+ex.name)
			if !ok {
				continue
			}
			np := 3 + i/2 // hello and ring on 3 ranks, pi on 4
			for _, rpi := range cRPIs(t) {
				r := l.run(ctx, "mpirun", append([]string{"-ssi", "rpi", rpi, "-np", fmt.Sprint(np), prog}, ex.args...)...)
				if !exampleOK(ex.name, np, r) {
					t.Errorf("%s %s over %s: %v", lang, ex.name, rpi, r)
				}
			}
		}
	}
	noCLeft(t)
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
	needWrappers(t)
	runs := cSuite(t)
	ctx, l := bootLocal(t, 15*time.Minute)
	progs := map[string]string{}
	for _, run := range runs {
		if _, seen := progs[run.prog]; !seen {
			progs[run.prog], _ = cProg(t, "ctest/"+run.prog) // "" when it does not build
		}
	}
	for _, rpi := range cRPIs(t) {
		for _, run := range runs {
			if progs[run.prog] == "" {
				continue
			}
			r := l.run(ctx, "mpirun", append([]string{"-ssi", "rpi", rpi, "-np", run.np, progs[run.prog]}, run.args...)...)
			ok := r.code == run.code && !regexp.MustCompile(`(?m)^FAIL`).MatchString(r.stdout)
			if run.code == 0 && !strings.Contains(r.stdout, "PASS "+run.prog+": ") {
				ok = false
			}
			if !ok {
				t.Errorf("%s -np %s over %s: %v\nwant exit %d", run.prog, run.np, rpi, r, run.code)
			}
		}
	}
	noCLeft(t)
}

// A C program that aborts, crashes or never calls MPI_Init is reported
// as a Go one is (the messages TestMPIRunFailures checks).
func TestCFailures(t *testing.T) {
	needPgrep(t)
	needWrappers(t)
	ctx, l := bootLocal(t, 4*time.Minute)
	noinit, _ := cProg(t, "ctest/noinit")
	abort, _ := cProg(t, "ctest/abort")
	crash, _ := cProg(t, "ctest/crash")
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		// The texts and codes a Go program gets (mpirun_test.go, lamcli17_test.go): LAM's.
		{[]string{"-np", "2", noinit}, 252, `did not invoke MPI_INIT before quitting`},
		{[]string{"-np", "3", abort}, 7, `rank 2 called MPI_Abort`},
		{[]string{"-np", "3", abort, "42"}, 42, `rank 2 called MPI_Abort`},
		{[]string{"-np", "3", crash, "9"}, 9, `PID \d+ failed on node n0 \([^)]*\) due to signal 9\.`},
		{[]string{"-np", "3", crash, "11"}, 11, `PID \d+ failed on node n0 \([^)]*\) due to signal 11\.`},
	}
	for _, tt := range tests {
		if tt.args[2] == "" {
			continue // did not build
		}
		r := l.run(ctx, "mpirun", tt.args...)
		if r.code != tt.code || !regexp.MustCompile(tt.stderr).MatchString(r.stderr) || strings.Contains(r.stdout, "FAIL") {
			t.Errorf("mpirun %s: %v\nwant exit %d and %q", strings.Join(tt.args, " "), r, tt.code, tt.stderr)
		}
	}
	noCLeft(t)
}

// One job of C and Go programs: an app schema with a C line and a Go
// line. The ring passes its MPI_INT between C and Go ranks.
func TestCMixedSchema(t *testing.T) {
	needWrappers(t)
	ctx, l := bootLocal(t, 4*time.Minute)
	if cRing, ok := cProg(t, "c/ring"); ok {
		schema := filepath.Join(l.prefix, "mixed.app")
		if err := os.WriteFile(schema, []byte(fmt.Sprintf("n0 -np 2 %s\nn0 -np 2 %s\n", cRing, bin("ring"))), 0o644); err != nil {
			t.Fatal(err)
		}
		if r := l.run(ctx, "mpirun", schema); r.code != 0 || !strings.Contains(r.stdout, "Process 0 sending 10 to 1, tag 201 (4 processes in ring)") ||
			!strings.Contains(r.stdout, "Process 0 decremented value: 0") || strings.Count(r.stdout, " exiting\n") != 4 {
			t.Errorf("a ring of C and Go ranks: %v", r)
		}
	}
	cHello, ok1 := cProg(t, "c/hello")
	fHello, ok2 := cProg(t, "f77/hello")
	if ok1 && ok2 {
		hello := filepath.Join(l.prefix, "hello.app")
		if err := os.WriteFile(hello, []byte(fmt.Sprintf("n0 %s\nn0 %s\nn0 %s\n", bin("hello"), cHello, fHello)), 0o644); err != nil {
			t.Fatal(err)
		}
		r := l.run(ctx, "mpirun", hello)
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		sort.Strings(lines)
		if r.code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], "Hello, world! I am 0 of 3 on ") || !strings.HasPrefix(lines[2], "Hello, world! I am 2 of 3 on ") {
			t.Errorf("Go, C and Fortran hello in one job: %v", r)
		}
	}
	noCLeft(t)
}

// noCLeft fails if a compiled C program survives its job.
func noCLeft(t *testing.T) {
	t.Helper()
	needPgrep(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		out, _ := exec.CommandContext(ctx, "pgrep", "-f", "^"+filepath.Join(prefix, "c")+"/").Output()
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

// C and Fortran programs across two simulated hosts (network namespaces
// with sshd): the C and Fortran examples over every rpi module, the
// point-to-point and collective tests over tcp, and over usysv inside
// each host with tcp between them; a ring of C and Go ranks spread over
// both hosts.
func TestCHosts(t *testing.T) {
	testUser(t)
	needShm(t)
	needWrappers(t)
	ctx := testContext(t, 9*time.Minute)
	h := newHosts(t, 2)
	schema := h.schema(map[int]string{0: "cpu=2", 1: "cpu=2"})
	if r := h.run(ctx, 0, "lamboot", "-prefix", prefix, schema); r.code != 0 {
		t.Fatalf("lamboot: %v", r)
	}
	// The C and Fortran examples over every rpi module, two ranks on each
	// host ("C"): shared memory inside a host, tcp between them.
	for _, lang := range []string{"c", "f77"} {
		for _, ex := range cExamples {
			prog, ok := cProg(t, lang+"/"+ex.name)
			if !ok {
				continue
			}
			for _, rpi := range cRPIs(t) {
				r := h.run(ctx, 1, "mpirun", append([]string{"-ssi", "rpi", rpi, "C", prog}, ex.args...)...)
				if !exampleOK(ex.name, 4, r) {
					t.Errorf("%s %s over %s across hosts: %v", lang, ex.name, rpi, r)
				}
			}
		}
	}
	cRing, okC := cProg(t, "c/ring")
	p2p, okP := cProg(t, "ctest/p2p")
	coll, okColl := cProg(t, "ctest/coll")
	for _, rpi := range []string{"tcp", "usysv"} {
		for _, p := range []struct {
			prog, name string
			ok         bool
		}{{p2p, "p2p", okP}, {coll, "coll", okColl}} {
			if !p.ok {
				continue
			}
			if r := h.run(ctx, 0, "mpirun", "-ssi", "rpi", rpi, "-np", "4", "n0", "n1", "n0", "n1", p.prog); r.code != 0 ||
				strings.Contains(r.stdout, "FAIL") || !strings.Contains(r.stdout, "PASS "+p.name+": ") {
				t.Errorf("%s over %s across hosts: %v", p.name, rpi, r)
			}
		}
	}
	if okC {
		app := filepath.Join(h.prefix, "mixed-hosts.app")
		if err := os.WriteFile(app, []byte(fmt.Sprintf("n0 -np 2 %s\nn1 -np 2 %s\n", cRing, bin("ring"))), 0o644); err != nil {
			t.Fatal(err)
		}
		if r := h.run(ctx, 0, "mpirun", app); r.code != 0 || !strings.Contains(r.stdout, "Process 0 decremented value: 0") || strings.Count(r.stdout, " exiting\n") != 4 {
			t.Errorf("a ring of C ranks on n0 and Go ranks on n1: %v", r)
		}
	}
	if r := h.run(ctx, 0, "lamhalt"); r.code != 0 {
		t.Errorf("lamhalt: %v", r)
	}
	h.noLamds()
	noSegments(t)
}
