// Command mpicc is LAM's wrapper compiler: it runs the C, C++ or Fortran
// 77 compiler with the flags that build a program against LAM/Go's MPI
// library (mpi.h, mpif.h, libmpi.so). One binary acts by the name it is
// called as: mpicc and hcc (C), mpiCC, mpic++ and hcp (C++), mpif77 and
// hf77 (Fortran 77). Its arguments go to the compiler untouched; the
// wrapper itself knows only -showme, -showme:compile, -showme:link and
// -h. Its exit status is the compiler's.
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/lamgo/lam/shared/buildinfo"
	"github.com/lamgo/lam/shared/msg"
)

// exitNoCompiler is LAM's status when the compiler is not found (its
// wrapper returns -1).
const exitNoCompiler = 255

func main() {
	os.Exit(run(os.Args, os.Getenv, os.Stdout, os.Stderr, syscall.Exec))
}

// execFunc replaces the process with a program (syscall.Exec).
type execFunc func(path string, argv, env []string) error

// run is the wrapper: it prints usage or -showme's line, or replaces
// itself with the compiler (so the compiler's status and signals are the
// wrapper's). It returns an exit status only when it does not exec.
func run(argv []string, getenv func(string) string, stdout, stderr io.Writer, execve execFunc) int {
	name := filepath.Base(argv[0])
	args := argv[1:]
	if slices.Contains(args, "-h") || slices.Contains(args, "-help") {
		msg.Show(stderr, "compile", "usage", buildinfo.CC, buildinfo.CXX, buildinfo.FC)
		return 0
	}
	p := build(languageOf(name), args, paths(getenv), getenv)
	if p.show.any() {
		fmt.Fprint(stdout, p.shown())
		return 0
	}
	// As LAM's wrappers, say so when the library to link is missing (the
	// compiler's own error, "cannot find -lmpi", does not say where).
	if p.libs != nil {
		lib := filepath.Join(paths(getenv).Libdir, "libmpi.so")
		if _, err := os.Stat(lib); err != nil {
			fmt.Fprintf(stderr, "WARNING: %s expected to find %s (LAM/Go's C interface: make build)\n", name, lib)
		}
	}
	cmd := p.argv()
	path, err := exec.LookPath(cmd[0])
	if err != nil {
		msg.Show(stderr, "compile", "no-compiler-found", cmd[0])
		return exitNoCompiler
	}
	err = execve(path, cmd, os.Environ())
	fmt.Fprintf(stderr, "%s: cannot run %s: %v\n", name, path, err)
	return exitNoCompiler
}
