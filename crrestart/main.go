// Command crrestart restarts an MPI job from a checkpoint.
//
// This version only answers -h: the rest arrives with coordinated checkpoint/restart.
package main

import "github.com/lamgo/lam/shared/lamcli"

func main() {
	tool, cmd := lamcli.Stub("crrestart", "coordinated checkpoint/restart", 0)
	lamcli.Main(tool, cmd)
}
