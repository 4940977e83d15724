package main

import (
	"fmt"
	"os"

	"github.com/lamgo/lam/libmpi/mpi"
)

// collloop: every rank runs Allreduce, Bcast and Barrier on World until
// killed; rank 0 prints "looping <module>" once the first round is done
// (the test then kills a rank in the middle of a collective).
func init() {
	suites["collloop"] = func(rank, size int) {
		buf := make([]float64, 1<<17) // 1 MiB: many rounds of the shmem pool
		out := make([]float64, len(buf))
		for i := 0; ; i++ {
			if err := mpi.Allreduce(mpi.World, buf, out, mpi.Sum); err != nil {
				fail("collloop allreduce: %v", err)
			}
			if err := mpi.Bcast(mpi.World, buf, i%size); err != nil {
				fail("collloop bcast: %v", err)
			}
			if err := mpi.Barrier(mpi.World); err != nil {
				fail("collloop barrier: %v", err)
			}
			if i == 0 && rank == 0 {
				fmt.Println("looping", mpi.World.CollModule())
				os.Stdout.Sync()
			}
		}
	}
}
