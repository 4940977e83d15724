package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lamgo/lam/shared/buildinfo"
	"github.com/lamgo/lam/shared/install"
)

// fakeInstall makes an installation under a temporary prefix: a
// libmpi.so (built with gcc) exporting the given functions, the given
// headers in include/, and bin/mpicc when wrappers is set.
func fakeInstall(t *testing.T, funcs, headers []string, wrappers bool) install.Paths {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc to build a library with")
	}
	p := install.At(t.TempDir())
	for _, d := range []string{p.Bindir, p.Libdir, p.Incdir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var src strings.Builder
	for _, f := range funcs {
		src.WriteString("int " + f + "(void) { return 0; }\n")
	}
	src.WriteString("static int unexported(void) { return 1; }\nint (*keep)(void) = unexported;\n")
	c := filepath.Join(t.TempDir(), "lib.c")
	if err := os.WriteFile(c, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-shared", "-fPIC", "-o", filepath.Join(p.Libdir, "libmpi.so"), c).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	for _, h := range headers {
		os.WriteFile(filepath.Join(p.Incdir, h), []byte("/* header */\n"), 0o644)
	}
	if wrappers {
		os.WriteFile(filepath.Join(p.Bindir, "mpicc"), []byte("#!/bin/sh\n"), 0o755)
	}
	return p
}

func TestBindings(t *testing.T) {
	all := []string{"MPI_Init", "PMPI_Init", "mpi_init_", "pmpi_init_"}
	both := []string{"mpi.h", "mpif.h"}
	tests := []struct {
		name     string
		funcs    []string
		headers  []string
		wrappers bool
		want     map[string]string
	}{
		{"everything", all, both, true, map[string]string{
			"bindings:c": "yes", "bindings:cxx": "no", "bindings:fortran": "yes",
			"compiler:c:command": buildinfo.CC, "compiler:cxx:command": buildinfo.CXX, "compiler:fortran:command": buildinfo.FC,
			"compiler:fortran:symbols": "underscore",
			"option:profiling:c":       "yes", "option:profiling:cxx": "no", "option:profiling:fortran": "yes",
		}},
		{"no wrapper compilers", all, both, false, map[string]string{
			"bindings:c": "yes", "bindings:fortran": "yes", "compiler:c:command": "none", "compiler:fortran:command": "none",
			"compiler:fortran:symbols": "underscore", "option:profiling:c": "yes",
		}},
		{"C only, no profiling", []string{"MPI_Init"}, []string{"mpi.h"}, true, map[string]string{
			"bindings:c": "yes", "bindings:fortran": "no", "compiler:c:command": buildinfo.CC, "compiler:fortran:command": "none",
			"compiler:fortran:symbols": "none", "option:profiling:c": "no", "option:profiling:fortran": "no",
		}},
		{"Fortran symbols without mpif.h", all, []string{"mpi.h"}, true, map[string]string{
			"bindings:c": "yes", "bindings:fortran": "no", "compiler:fortran:symbols": "none", "option:profiling:fortran": "no",
		}},
		{"no mpi.h", all, []string{"mpif.h"}, true, map[string]string{
			"bindings:c": "no", "compiler:c:command": "none", "compiler:cxx:command": "none", "option:profiling:c": "no", "bindings:fortran": "yes",
		}},
		{"double underscore", []string{"MPI_Init", "mpi_init__", "pmpi_init__"}, both, true, map[string]string{
			"compiler:fortran:symbols": "double underscore", "option:profiling:fortran": "yes",
		}},
		{"caps", []string{"MPI_Init", "MPI_INIT"}, both, true, map[string]string{
			"compiler:fortran:symbols": "caps", "bindings:fortran": "yes", "option:profiling:fortran": "no",
		}},
		{"a library without MPI", []string{"something_else"}, both, true, map[string]string{
			"bindings:c": "no", "bindings:fortran": "no", "compiler:c:command": "none", "compiler:fortran:symbols": "none",
		}},
	}
	for _, tt := range tests {
		got := bindings(fakeInstall(t, tt.funcs, tt.headers, tt.wrappers))
		for k, v := range tt.want {
			if got[k] != v {
				t.Errorf("%s: %s = %q, want %q", tt.name, k, got[k], v)
			}
		}
	}
	// No library at all, and a file that is not one.
	empty := install.At(t.TempDir())
	if got := bindings(empty); got["bindings:c"] != "no" || got["bindings:fortran"] != "no" || got["compiler:c:command"] != "none" {
		t.Errorf("no installation: %v", got)
	}
	os.MkdirAll(empty.Libdir, 0o755)
	os.WriteFile(filepath.Join(empty.Libdir, "libmpi.so"), []byte("not a library"), 0o644)
	if got := bindings(empty); got["bindings:c"] != "no" {
		t.Errorf("a libmpi.so that is not ELF: %v", got)
	}
}

// laminfo prints the bindings lines in LAM's order and form, pretty and
// parsable.
func TestBindingsOutput(t *testing.T) {
	p := fakeInstall(t, []string{"MPI_Init", "PMPI_Init", "mpi_init_", "pmpi_init_"}, []string{"mpi.h", "mpif.h"}, true)
	_, out, _ := runLaminfo(t, current(p))
	for _, want := range []string{
		"          C bindings: yes\n        C++ bindings: no\n    Fortran bindings: yes\n",
		"          C compiler: " + buildinfo.CC + "\n",
		"    Fortran compiler: " + buildinfo.FC + "\n     Fortran symbols: underscore\n",
		"         C profiling: yes\n       C++ profiling: no\n   Fortran profiling: yes\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("laminfo output lacks %q:\n%s", want, out)
		}
	}
	_, out, _ = runLaminfo(t, current(p), "-parsable")
	for _, want := range []string{"bindings:c:yes\n", "bindings:fortran:yes\n", "compiler:c:command:" + buildinfo.CC + "\n",
		"compiler:fortran:symbols:underscore\n", "option:profiling:c:yes\n", "option:profiling:fortran:yes\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("laminfo -parsable lacks %q", want)
		}
	}
}
