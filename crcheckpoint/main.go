// Command crcheckpoint checkpoints a running MPI job: it asks the job's
// mpirun, through the local lamd, for a checkpoint set, waits (bounded)
// for the answer and prints the set's directory. Installed also as
// lamcheckpoint, it takes LAM 7.1.4's options (-ssi cr self -pid <pid>).
//
// mpirun asks every rank, through the lamds, to write its state into a
// fresh directory, then writes the job's description beside the ranks'
// files and renames the directory into place: a set is complete or
// absent. See docs/checkpoint.md.
package main

import (
	"os"
	"path/filepath"

	"github.com/lamgo/lam/crcheckpoint/internal/ckpt"
	"github.com/lamgo/lam/shared/lamcli"
)

func main() {
	name := "crcheckpoint"
	if filepath.Base(os.Args[0]) == "lamcheckpoint" {
		name = "lamcheckpoint"
	}
	lamcli.Main(ckpt.Tool(name), &ckpt.Cmd{})
}
