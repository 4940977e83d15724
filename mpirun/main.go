// Command mpirun starts an MPI job on the LAM universe: it starts the
// ranks through the lamds (as lamexec does), hands every rank the job's
// process table once all have called MPI_Init, forwards their standard
// streams, and reports the first rank that fails — or that never called
// MPI_Init, or exited without MPI_Finalize. Its command line is LAM
// 7.1.4's (lamcli.MPIRunOptions).
package main

import "github.com/lamgo/lam/shared/lamcli"

var tool = &lamcli.Tool{
	Name:         "mpirun",
	NoDaemonExit: lamcli.ExitNoKernel,
	Syntax:       lamcli.MPIRunSyntax(),
}

type cmd struct {
	lamcli.MPIRunOptions `embed:""`
}

func main() { lamcli.Main(tool, &cmd{}) }
