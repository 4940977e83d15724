// Command pi computes pi by integrating 4/(1+x²) over [0, 1], each rank
// taking every size-th interval, as LAM's pi example does; rank 0 gathers
// the partial sums.
//
//	mpirun -np 4 pi [intervals]
package main

import (
	"fmt"
	"math"
	"os"
	"strconv"

	"github.com/lamgo/lam/libmpi/mpi"
)

func main() {
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "pi:", err)
		os.Exit(1)
	}
	rank, size := mpi.World.Rank(), mpi.World.Size()
	n := 10_000_000
	if len(os.Args) > 1 {
		if v, err := strconv.Atoi(os.Args[1]); err == nil && v > 0 {
			n = v
		}
	}
	start := mpi.Wtime()
	h := 1.0 / float64(n)
	sum := 0.0
	for i := rank; i < n; i += size {
		x := h * (float64(i) + 0.5)
		sum += 4 / (1 + x*x)
	}
	part := []float64{h * sum}
	if rank != 0 {
		mpi.Send(mpi.World, part, 0, 0)
	} else {
		pi := part[0]
		for src := 1; src < size; src++ {
			mpi.Recv(mpi.World, part, src, 0)
			pi += part[0]
		}
		fmt.Printf("pi is approximately %.16f, error %.2e (%d intervals, %d processes, %.3f s)\n",
			pi, math.Abs(pi-math.Pi), n, size, mpi.Wtime()-start)
	}
	mpi.Finalize()
}
