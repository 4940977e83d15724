// Command mpiexec is LAM's MPI-2 launcher: mpiexec [global] <app context>
// [: <app context> ...] (or -configfile <file>) runs the app contexts as
// one MPI job through mpirun's launch code, optionally booting a universe
// around it (-boot, -boot-args, -machinefile) and halting it after. See
// lamcli.MPIExec.
package main

import "github.com/lamgo/lam/shared/lamcli"

var tool = &lamcli.Tool{
	Name:         "mpiexec",
	NoDaemonExit: lamcli.ExitNoKernel,
	Syntax:       lamcli.Syntax{Raw: true},
	RootOK:       true, // MPIExec.Run refuses root itself, after its global options
}

type cmd struct {
	lamcli.MPIExec `embed:""`
}

func main() { lamcli.Main(tool, &cmd{}) }
