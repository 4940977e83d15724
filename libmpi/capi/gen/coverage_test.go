package main

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// declared reads mpi.h's functions.
func declared(t *testing.T) []decl {
	t.Helper()
	h, err := os.ReadFile(filepath.Join("..", "include", "mpi.h"))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := parse(h)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// Every function mpi.h declares has a Fortran 77 binding (generated, or
// written by hand in a fortran_*.c), but the ones MPI gives none.
func TestEveryFunctionBoundForFortran(t *testing.T) {
	special, err := fortranSpecials("..")
	if err != nil {
		t.Fatal(err)
	}
	if u := unboundFortran(declared(t), special); len(u) > 0 {
		t.Errorf("declared in mpi.h but not bound for Fortran (%d): %s", len(u), strings.Join(u, " "))
	}
}

// readAll concatenates the files the glob patterns match and says how
// many there were.
func readAll(t *testing.T, globs []string) (string, int) {
	t.Helper()
	var src strings.Builder
	n := 0
	for _, g := range globs {
		files, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			src.Write(b)
			n++
		}
	}
	return src.String(), n
}

// testPrograms are the C test programs, from libmpi/capi/gen: the suite
// (ctest/) and the library's own (singletons and ones run under mpirun).
var testPrograms = []string{
	filepath.Join("..", "..", "..", "ctest", "*.c"),
	filepath.Join("..", "testdata", "*.c"),
	filepath.Join("..", "testdata", "*", "*.c"),
}

// untestable are the declared functions no test program need call, with
// the reason.
var untestable = map[string]string{}

// Every function mpi.h declares is called by some C test program (by its
// MPI_ or PMPI_ name), so none ships untested; untestable lists the
// exceptions and why.
func TestEveryFunctionCalledByATest(t *testing.T) {
	src, n := readAll(t, testPrograms)
	if n < 30 {
		t.Fatalf("found only %d test programs", n)
	}
	called := map[string]bool{}
	for _, m := range regexp.MustCompile(`\bP?MPI_(\w+)\s*\(`).FindAllStringSubmatch(src, -1) {
		called[m[1]] = true
	}
	var missing []string
	for _, d := range declared(t) {
		if !called[d.name] && untestable[d.name] == "" {
			missing = append(missing, "MPI_"+d.name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("declared in mpi.h but called by no test program in ctest/ or libmpi/capi/testdata (%d): %s",
			len(missing), strings.Join(missing, " "))
	}
	for name := range untestable {
		if called[name] {
			t.Errorf("MPI_%s is listed as untestable but a test program calls it", name)
		}
	}
}

// fortranTestPrograms are the Fortran 77 programs that test the bindings.
var fortranTestPrograms = []string{
	filepath.Join("..", "..", "..", "ctest", "*.f"),
	filepath.Join("..", "..", "..", "examples", "f77", "*.f"),
	filepath.Join("..", "testdata", "*", "*.f"),
}

// fortranUntested are the Fortran bindings no Fortran test program
// calls, with the reason.
var fortranUntested = map[string]string{
	"Free_mem": "its argument is the memory itself, which Fortran 77 holds only through a Cray pointer",
}

// Every Fortran binding is called by some Fortran test program (as
// gfortran spells it, MPI_NAME in any case), but MPI's C-only functions
// and fortranUntested.
func TestEveryFortranBindingCalledByATest(t *testing.T) {
	src, n := readAll(t, fortranTestPrograms)
	if n < 10 {
		t.Fatalf("found only %d Fortran test programs", n)
	}
	called := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?i)\bP?MPI_(\w+)\s*\(`).FindAllStringSubmatch(src, -1) {
		called[strings.ToLower(m[1])] = true
	}
	var missing []string
	for _, d := range declared(t) {
		if cOnly[d.name] || fortranUntested[d.name] != "" {
			continue
		}
		if !called[strings.ToLower(d.name)] {
			missing = append(missing, "MPI_"+strings.ToUpper(d.name))
		}
	}
	if len(missing) > 0 {
		t.Errorf("bound for Fortran but called by no Fortran test program (%d): %s", len(missing), strings.Join(missing, " "))
	}
	for name := range fortranUntested {
		if called[strings.ToLower(name)] {
			t.Errorf("MPI_%s is listed as untested from Fortran but a Fortran program calls it", strings.ToUpper(name))
		}
	}
}

// crTestPrograms are the programs that test checkpoint/restart from C and
// Fortran: the examples, and the integration tests' programs.
var crTestPrograms = []string{
	filepath.Join("..", "..", "..", "examples", "c", "*.c"),
	filepath.Join("..", "..", "..", "examples", "f77", "*.f"),
	filepath.Join("..", "..", "..", "shared", "integration", "testdata", "*.c"),
	filepath.Join("..", "..", "..", "shared", "integration", "testdata", "*.f"),
}

// TestEveryCRBindingCalledByATest: each function of mpil_cr.h is called
// by a C test program and its Fortran binding (cr.c's mpil_cr_..._) by a
// Fortran one.
func TestEveryCRBindingCalledByATest(t *testing.T) {
	h, err := os.ReadFile(filepath.Join("..", "include", "mpil_cr.h"))
	if err != nil {
		t.Fatal(err)
	}
	cr, err := os.ReadFile(filepath.Join("..", "cr.c"))
	if err != nil {
		t.Fatal(err)
	}
	var cSrc, fSrc strings.Builder
	for _, g := range crTestPrograms {
		s, _ := readAll(t, []string{g})
		if strings.HasSuffix(g, ".f") {
			fSrc.WriteString(s)
		} else {
			cSrc.WriteString(s)
		}
	}
	funcs := regexp.MustCompile(`(?m)^int (MPIL_Cr_\w+)\(`).FindAllStringSubmatch(string(h), -1)
	bindings := regexp.MustCompile(`(?m)^void (mpil_cr_\w+)_\(`).FindAllStringSubmatch(string(cr), -1)
	if len(funcs) < 10 || len(bindings) != len(funcs) {
		t.Fatalf("mpil_cr.h declares %d functions, cr.c binds %d for Fortran", len(funcs), len(bindings))
	}
	for _, f := range funcs {
		if !regexp.MustCompile(`\b` + f[1] + `\s*\(`).MatchString(cSrc.String()) {
			t.Errorf("%s is called by no C test program", f[1])
		}
	}
	for _, b := range bindings {
		if !regexp.MustCompile(`(?i)\bCALL\s+` + b[1] + `\s*\(`).MatchString(fSrc.String()) {
			t.Errorf("%s is called by no Fortran test program", strings.ToUpper(b[1]))
		}
	}
}
