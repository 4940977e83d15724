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
	var src strings.Builder
	n := 0
	for _, g := range testPrograms {
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
	if n < 30 {
		t.Fatalf("found only %d test programs", n)
	}
	called := map[string]bool{}
	for _, m := range regexp.MustCompile(`\bP?MPI_(\w+)\s*\(`).FindAllStringSubmatch(src.String(), -1) {
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
