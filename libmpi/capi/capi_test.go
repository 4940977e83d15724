package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The library is built once per test run, as mpicc's users get it.
var lib struct {
	once sync.Once
	dir  string // holds lib/libmpi.so
	err  error
}

func buildLib(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		if os.Getenv("LAM_TEST_STRICT") == "1" {
			t.Fatal("gcc is missing (LAM_TEST_STRICT=1)")
		}
		t.Skip("gcc is missing")
	}
	lib.once.Do(func() {
		lib.dir, lib.err = os.MkdirTemp("", "capi-test-")
		if lib.err != nil {
			return
		}
		out, err := exec.Command("go", "build", "-buildmode=c-shared", "-o", filepath.Join(lib.dir, "lib", "libmpi.so"), ".").CombinedOutput()
		if err != nil {
			lib.err = &buildError{string(out), err}
		}
	})
	if lib.err != nil {
		t.Fatal(lib.err)
	}
	return lib.dir
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return "building libmpi.so: " + e.err.Error() + "\n" + e.out }

func TestMain(m *testing.M) {
	code := m.Run()
	if lib.dir != "" {
		os.RemoveAll(lib.dir)
	}
	if unitDir != "" {
		os.RemoveAll(unitDir)
	}
	os.Exit(code)
}

// compile builds testdata/<name>.c against include/ and the library.
func compile(t *testing.T, name string) string {
	t.Helper()
	dir := buildLib(t)
	inc, err := filepath.Abs("include")
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), name)
	libdir := filepath.Join(dir, "lib")
	cmd := exec.Command("gcc", "-Wall", "-Werror", "-O2", "-I"+inc, "-o", exe, filepath.Join("testdata", name+".c"),
		"-L"+libdir, "-Wl,-rpath,"+libdir, "-lmpi")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcc %s: %v\n%s", name, err, out)
	}
	return exe
}

// Every testdata program runs as a singleton (no mpirun, one rank): it
// prints "ok ..." lines and "FAIL ..." for each failed check, and exits
// non-zero on failure.
func TestSingletonPrograms(t *testing.T) {
	progs, err := filepath.Glob("testdata/*.c")
	if err != nil || len(progs) == 0 {
		t.Fatalf("no test programs: %v", err)
	}
	for _, p := range progs {
		name := strings.TrimSuffix(filepath.Base(p), ".c")
		t.Run(name, func(t *testing.T) {
			exe := compile(t, name)
			cmd := exec.Command(exe)
			cmd.Env = append(os.Environ(), "LAM_MPI_SESSION_PREFIX="+t.TempDir())
			out, err := cmd.CombinedOutput()
			if err != nil || strings.Contains(string(out), "FAIL") {
				t.Fatalf("%s: %v\n%s", name, err, out)
			}
			if !strings.Contains(string(out), "ok") {
				t.Fatalf("%s printed no ok line:\n%s", name, out)
			}
		})
	}
}

// The profiling interface: MPI_ names are weak, PMPI_ names strong.
func TestWeakMPISymbols(t *testing.T) {
	dir := buildLib(t)
	out, err := exec.Command("nm", "-D", filepath.Join(dir, "lib", "libmpi.so")).Output()
	if err != nil {
		t.Skipf("nm: %v", err)
	}
	strong, weak := map[string]bool{}, map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) != 3 {
			continue
		}
		switch {
		case f[1] == "T" && strings.HasPrefix(f[2], "PMPI_"):
			strong[strings.TrimPrefix(f[2], "P")] = true
		case f[1] == "W" && strings.HasPrefix(f[2], "MPI_"):
			weak[f[2]] = true
		case strings.HasPrefix(f[2], "MPI_"):
			t.Errorf("%s is %s, want W (weak)", f[2], f[1])
		}
	}
	if len(weak) == 0 {
		t.Fatal("no weak MPI_ symbols")
	}
	for n := range weak {
		if !strong[n] {
			t.Errorf("%s has no strong PMPI_ twin", n)
		}
	}
}
