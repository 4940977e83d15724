// Command mpicc is LAM's wrapper compiler: it runs the C, C++ or Fortran
// 77 compiler with the flags that build a program against LAM/Go's MPI
// library (mpi.h, mpif.h, libmpi.so). One binary acts by the name it is
// called as: mpicc and hcc (C), mpiCC, mpic++ and hcp (C++), mpif77 and
// hf77 (Fortran 77). Its arguments go to the compiler untouched; the
// wrapper itself knows only -showme, -showme:compile, -showme:link and
// -h. Its exit status is the compiler's.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/lamgo/lam/shared/buildinfo"
	"github.com/lamgo/lam/shared/msg"
)

// exitNoCompiler is LAM's status when the compiler is not found (its
// wrapper returns -1).
const exitNoCompiler = 255

func main() {
	os.Exit(run(os.Args, os.Getenv, os.Stdout, os.Stderr, syscall.Exec, compilerVersion))
}

// execFunc replaces the process with a program (syscall.Exec).
type execFunc func(path string, argv, env []string) error

// run is the wrapper: it prints usage or -showme's line, or replaces
// itself with the compiler (so the compiler's status and signals are the
// wrapper's). It returns an exit status only when it does not exec.
// probe asks the compiler its version (compilerVersion).
func run(argv []string, getenv func(string) string, stdout, stderr io.Writer, execve execFunc, probe versionProbe) int {
	name := filepath.Base(argv[0])
	args := argv[1:]
	if slices.Contains(args, "-h") || slices.Contains(args, "-help") {
		msg.Show(stderr, "compile", "usage", buildinfo.CC, buildinfo.CXX, buildinfo.FC)
		return 0
	}
	p := build(languageOf(name), args, paths(getenv), getenv, probe)
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

// compilerVersion runs the compiler with --version (bounded: a compiler
// that does not answer in probeTimeout counts as unknown).
func compilerVersion(compiler []string) string {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	argv := append(slices.Clip(compiler), "--version")
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).Output()
	if err != nil {
		return ""
	}
	return string(out)
}

// probeTimeout bounds compilerVersion.
const probeTimeout = 10 * time.Second
