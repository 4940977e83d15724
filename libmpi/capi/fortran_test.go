package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// compileFortran builds the Fortran program src against include/mpif.h
// and the library, with gfortran's extra flags.
func compileFortran(t *testing.T, src string, flags ...string) string {
	t.Helper()
	if _, err := exec.LookPath("gfortran"); err != nil {
		if os.Getenv("LAM_TEST_STRICT") == "1" {
			t.Fatal("gfortran is missing (LAM_TEST_STRICT=1)")
		}
		t.Skip("gfortran is missing")
	}
	dir := buildLib(t)
	inc, err := filepath.Abs("include")
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(src), ".f"))
	libdir := filepath.Join(dir, "lib")
	args := append([]string{"-Wall", "-fallow-argument-mismatch", "-I" + inc}, flags...)
	args = append(args, "-o", exe, src, "-L"+libdir, "-Wl,-rpath,"+libdir, "-lmpi")
	if out, err := exec.Command("gfortran", args...).CombinedOutput(); err != nil {
		t.Fatalf("gfortran %s: %v\n%s", src, err, out)
	}
	return exe
}

// runSingleton runs exe with args as a one-rank job without mpirun.
func runSingleton(t *testing.T, exe string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "LAM_MPI_SESSION_PREFIX="+t.TempDir())
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Every testdata/f77 program, built with gfortran against mpif.h, runs as
// a singleton as the C ones do.
func TestFortranSingletonPrograms(t *testing.T) {
	progs, _ := filepath.Glob("testdata/f77/*.f")
	if len(progs) == 0 {
		t.Fatal("no Fortran test programs")
	}
	for _, p := range progs {
		name := strings.TrimSuffix(filepath.Base(p), ".f")
		t.Run(name, func(t *testing.T) {
			out, err := runSingleton(t, compileFortran(t, p))
			if err != nil || strings.Contains(out, "FAIL") || !strings.Contains(out, "ok") {
				t.Fatalf("%s: %v\n%s", name, err, out)
			}
		})
	}
}

// MPI_ADDRESS in both cases: built as a PIE, no address of the program
// fits an INTEGER (MPI_ERR_ARG through the world's handler, and under
// MPI_ERRORS_ARE_FATAL a message naming MPI_GET_ADDRESS); built without,
// a COMMON block's address fits and is MPI_GET_ADDRESS's.
func TestFortranAddress(t *testing.T) {
	cases := []struct {
		flag, want string
	}{
		{"-pie", "address does not fit"},
		{"-no-pie", "address fits"},
	}
	for _, c := range cases {
		t.Run(c.flag, func(t *testing.T) {
			exe := compileFortran(t, "testdata/f77/faddr.f", c.flag)
			out, err := runSingleton(t, exe)
			if err != nil || !strings.Contains(out, c.want) || !strings.Contains(out, "ok faddr") {
				t.Fatalf("want %q: %v\n%s", c.want, err, out)
			}
			out, err = runSingleton(t, exe, "fatal")
			if c.flag == "-no-pie" {
				if err != nil || !strings.Contains(out, "ok faddr") {
					t.Fatalf("fatal run of a fitting address: %v\n%s", err, out)
				}
				return
			}
			const msg = "MPI_ADDRESS: invalid argument: the address does not fit in an INTEGER (use MPI_GET_ADDRESS)"
			if err == nil || !strings.Contains(out, msg) || strings.Contains(out, "ok faddr") {
				t.Fatalf("fatal run: want an abort with %q: %v\n%s", msg, err, out)
			}
		})
	}
}
