package main

import (
	"fmt"
	"os"
	"time"

	"github.com/lamgo/lam/libmpi/mpi"
)

// inspect: a job for mpitask and mpimsg to look at (3 ranks or more).
// Rank 0 blocks in MPI_Recv from rank 1 with tag 201 for 4 int32s; rank 1
// sends rank 2 a message with tag 77 that rank 2 never receives, then
// ranks 1 and 2 block in MPI_Barrier (which rank 0 never reaches); a
// rank 3, if there is one, calls MPI_Finalize and sleeps. Each rank
// prints "rank N blocking" first. The job never ends by itself.
func init() {
	suites["inspect"] = func(rank, size int) {
		if size < 3 {
			fail("inspect needs 3 ranks, has %d", size)
		}
		if rank == 1 {
			if err := mpi.Send(mpi.World, []byte("unmatch!"), 2, 77); err != nil {
				fail("send: %v", err)
			}
		}
		if rank == 3 {
			if err := mpi.Finalize(); err != nil {
				fail("finalize: %v", err)
			}
			fmt.Printf("rank %d blocking\n", rank)
			os.Stdout.Sync()
			time.Sleep(time.Hour)
		}
		fmt.Printf("rank %d blocking\n", rank)
		os.Stdout.Sync()
		if rank == 0 {
			if _, err := mpi.Recv(mpi.World, make([]int32, 4), 1, 201); err != nil {
				fail("recv: %v", err)
			}
			fail("received a message nobody sent")
		}
		if rank > 2 {
			select {} // ranks beyond 3 wait without MPI
		}
		if err := mpi.Barrier(mpi.World); err != nil {
			fail("barrier: %v", err)
		}
		fail("left a barrier rank 0 never entered")
	}
}
