// Command crcheckpoint checkpoints a running MPI job.
//
// This version only answers -h: the rest arrives with coordinated checkpoint/restart.
package main

import "github.com/lamgo/lam/shared/lamcli"

func main() {
	tool, cmd := lamcli.Stub("crcheckpoint", "coordinated checkpoint/restart", 0)
	lamcli.Main(tool, cmd)
}
