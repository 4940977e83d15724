// Command mpitask shows the state of the MPI processes of the universe.
//
// This version only answers -h: the rest arrives with mpirun and the MPI core.
package main

import "github.com/lamgo/lam/shared/lamcli"

func main() {
	tool, cmd := lamcli.Stub("mpitask", "mpirun and the MPI core", 0)
	lamcli.Main(tool, cmd)
}
