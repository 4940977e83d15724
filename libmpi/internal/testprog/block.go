package main

import (
	"fmt"
	"os"

	"github.com/lamgo/lam/libmpi/mpi"
)

// block: every rank says "rank N blocking" and then waits in MPI_Recv for
// a message nobody sends, so that a test can kill a lamd under ranks
// blocked in an MPI call.
func init() {
	suites["block"] = func(rank, size int) {
		fmt.Printf("rank %d blocking\n", rank)
		os.Stdout.Sync()
		if _, err := mpi.Recv(mpi.World, make([]byte, 1), mpi.AnySource, 12345); err != nil {
			fail("recv: %v", err)
		}
		fail("received a message nobody sent")
	}
}
