// Command ring passes a counter around the ranks, as LAM's ring example
// does: rank 0 starts it at 10, each lap rank 0 decrements it, and every
// rank stops once it has passed on a 0.
//
//	mpirun -np 4 ring
package main

import (
	"fmt"
	"os"

	"github.com/lamgo/lam/libmpi/mpi"
)

const tag = 201

func main() {
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "ring:", err)
		os.Exit(1)
	}
	rank, size := mpi.World.Rank(), mpi.World.Size()
	next, prev := (rank+1)%size, (rank+size-1)%size
	msg := []int32{10}
	if rank == 0 {
		fmt.Printf("Process 0 sending %d to %d, tag %d (%d processes in ring)\n", msg[0], next, tag, size)
		mpi.Send(mpi.World, msg, next, tag)
		fmt.Println("Process 0 sent to", next)
	}
	for {
		mpi.Recv(mpi.World, msg, prev, tag)
		if rank == 0 {
			msg[0]--
			fmt.Println("Process 0 decremented value:", msg[0])
		}
		mpi.Send(mpi.World, msg, next, tag)
		if msg[0] == 0 {
			fmt.Printf("Process %d exiting\n", rank)
			break
		}
	}
	// The last message goes back to rank 0.
	if rank == 0 {
		mpi.Recv(mpi.World, msg, prev, tag)
	}
	mpi.Finalize()
}
