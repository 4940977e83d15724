package main

import (
	"debug/elf"
	"os"
	"path/filepath"

	"github.com/lamgo/lam/shared/buildinfo"
	"github.com/lamgo/lam/shared/install"
)

// The language bindings are not configure-time choices here, as they
// were in LAM: libmpi.so, its headers and the wrapper compilers are
// built beside the tools (make build) or not at all (go build of one
// tool). So laminfo reports what the installation it belongs to holds:
//
//   - C bindings: libmpi.so in the library directory exports MPI_Init and
//     mpi.h is in the include directory; C profiling: it also exports
//     PMPI_Init;
//   - Fortran bindings: the library exports mpi_init as a Fortran
//     compiler names it (the naming is "Fortran symbols": underscore for
//     mpi_init_, double underscore, plain, caps) and mpif.h is there;
//     Fortran profiling: it exports pmpi_init named the same way;
//   - the compilers (C, C++, Fortran) are those the wrapper compilers run,
//     printed when mpicc is in the binary directory and the bindings it
//     compiles against are there, else "none";
//   - C++ bindings (LAM's MPI:: classes) do not exist: "no". mpiCC
//     compiles C++ programs against the C bindings.

// fortranNames are the ways a Fortran compiler names the symbols of
// MPI_INIT and PMPI_INIT, with laminfo's word for each.
var fortranNames = []struct{ symbol, profiling, naming string }{
	{"mpi_init_", "pmpi_init_", "underscore"},
	{"mpi_init__", "pmpi_init__", "double underscore"},
	{"mpi_init", "pmpi_init", "plain"},
	{"MPI_INIT", "PMPI_INIT", "caps"},
}

// bindings returns the configuration values of the language bindings
// installed under paths.
func bindings(paths install.Paths) map[string]string {
	syms := exported(filepath.Join(paths.Libdir, "libmpi.so"))
	has := func(dir, name string) bool {
		fi, err := os.Stat(filepath.Join(dir, name))
		return err == nil && fi.Mode().IsRegular()
	}
	c := syms["MPI_Init"] && has(paths.Incdir, "mpi.h")
	naming, f, fprof := "none", false, false
	for _, n := range fortranNames {
		if syms[n.symbol] && has(paths.Incdir, "mpif.h") {
			naming, f, fprof = n.naming, true, syms[n.profiling]
			break
		}
	}
	wrappers := has(paths.Bindir, "mpicc")
	compiler := func(ok bool, cmd string) string {
		if ok && wrappers {
			return cmd
		}
		return "none"
	}
	return map[string]string{
		"bindings:c":               yesNo(c),
		"bindings:cxx":             "no",
		"bindings:fortran":         yesNo(f),
		"compiler:c:command":       compiler(c, buildinfo.CC),
		"compiler:cxx:command":     compiler(c, buildinfo.CXX),
		"compiler:fortran:command": compiler(f, buildinfo.FC),
		"compiler:fortran:symbols": naming,
		"option:profiling:c":       yesNo(c && syms["PMPI_Init"]),
		"option:profiling:cxx":     "no",
		"option:profiling:fortran": yesNo(fprof),
	}
}

// exported returns the names of the defined dynamic symbols of the
// shared library at path (none when it is missing or not a library).
func exported(path string) map[string]bool {
	f, err := elf.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		return nil
	}
	out := make(map[string]bool, len(syms))
	for _, s := range syms {
		if s.Section != elf.SHN_UNDEF {
			out[s.Name] = true
		}
	}
	return out
}
