// Command crrestart restarts an MPI job from a checkpoint set on the
// current universe (which may have other nodes and another number of
// them): the job keeps its size, its ranks are placed as mpirun places a
// new job, and each finds its state through LAMCRRESTART. It then runs
// the job as mpirun does. Installed also as lamrestart, it takes LAM
// 7.1.4's options (-ssi cr self -ssi cr_restart_args "<mpirun args>").
// See docs/checkpoint.md.
package main

import (
	"os"
	"path/filepath"

	"github.com/lamgo/lam/crrestart/internal/restart"
	"github.com/lamgo/lam/shared/lamcli"
)

func main() {
	name := "crrestart"
	if filepath.Base(os.Args[0]) == "lamrestart" {
		name = "lamrestart"
	}
	lamcli.Main(restart.Tool(name), &restart.Cmd{})
}
