// Command hello is the classic MPI hello world: every rank says who it is.
//
//	mpirun C hello
package main

import (
	"fmt"
	"os"

	"github.com/lamgo/lam/libmpi/mpi"
)

func main() {
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "hello:", err)
		os.Exit(1)
	}
	fmt.Printf("Hello, world! I am %d of %d on %s\n", mpi.World.Rank(), mpi.World.Size(), mpi.ProcessorName())
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, "hello:", err)
		os.Exit(1)
	}
}
