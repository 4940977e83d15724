// Command mpirun starts an MPI job on the LAM universe.
//
// This version only answers -h: the rest arrives with mpirun and the MPI core.
package main

import "github.com/lamgo/lam/shared/lamcli"

func main() {
	tool, cmd := lamcli.Stub("mpirun", "mpirun and the MPI core", 0)
	lamcli.Main(tool, cmd)
}
