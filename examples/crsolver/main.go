// Command crsolver is a checkpointable iterative solver: Jacobi iterations
// for the steady heat equation on a rod, its points split among the
// ranks, each iteration exchanging the boundary values with the
// neighbours and ending with the residual, summed over every rank. It
// registers checkpoint, continue and restart callbacks (the self cr
// module), so a run can be checkpointed, stopped and restarted:
//
//	mpirun -ssi cr self -ssi rpi crtcp -np 4 crsolver 200000 &
//	crcheckpoint <mpirun's pid>          # a set; the job goes on
//	crcheckpoint -stop <mpirun's pid>    # a set; the job ends
//	crrestart ~/lam-checkpoints/<job>    # on from the newest set
//
// and prints the same answer as a run never interrupted.
//
// A checkpoint comes at any moment, while the main goroutine may be
// anywhere inside an iteration, and the ranks are not all at the same
// iteration. So the program keeps the state after its last two completed
// iterations (the ranks are at most one apart: each iteration ends with an
// Allreduce) and saves both; a restarted job goes back to the last
// iteration every rank completed, and drops the messages saved with the
// checkpoint, which the ranks send again from there.
package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"sync"

	"github.com/lamgo/lam/libmpi/mpi"
)

// snapshot is a rank's state after Iter iterations.
type snapshot struct {
	Iter     int
	U        []float64 // this rank's points, with a ghost point at each end
	Residual float64   // after the iteration
}

// solver is what the callbacks share with the main goroutine.
type solver struct {
	mu        sync.Mutex
	cur, prev snapshot
	restarted bool
}

var s solver

func main() {
	iters := 100000
	if len(os.Args) > 1 {
		n, err := strconv.Atoi(os.Args[1])
		if err != nil || n < 1 {
			fmt.Fprintln(os.Stderr, "usage: crsolver [iterations]")
			os.Exit(2)
		}
		iters = n
	}
	mpi.OnCheckpoint(func(w *mpi.CheckpointWriter) error {
		s.mu.Lock()
		defer s.mu.Unlock()
		if err := w.Encode(s.prev); err != nil {
			return err
		}
		return w.Encode(s.cur)
	})
	mpi.OnContinue(func() error {
		fmt.Printf("rank %d: checkpoint taken, going on\n", mpi.World.Rank())
		return nil
	})
	mpi.OnRestart(func(r *mpi.CheckpointReader) error {
		s.mu.Lock()
		defer s.mu.Unlock()
		if err := r.Decode(&s.prev); err != nil {
			return err
		}
		if err := r.Decode(&s.cur); err != nil {
			return err
		}
		r.DiscardMessages() // they are sent again from the iteration we go back to
		s.restarted = true
		return nil
	})
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "crsolver:", err)
		os.Exit(1)
	}
	if err := run(iters); err != nil {
		fmt.Fprintln(os.Stderr, "crsolver:", err)
		mpi.Abort(mpi.World, 1)
	}
	mpi.Finalize()
}

const points = 32 // points of the rod per rank

func run(iters int) error {
	rank, size := mpi.World.Rank(), mpi.World.Size()
	if s.restarted {
		if err := rewind(); err != nil {
			return err
		}
		fmt.Printf("rank %d: restarted at iteration %d\n", rank, s.cur.Iter)
	} else {
		// The rod is cold; its left end is held at 1, its right at 0.
		s.cur = snapshot{U: make([]float64, points+2)}
		s.prev = s.cur
	}
	left, right := rank-1, rank+1
	if left < 0 {
		left = mpi.ProcNull
	}
	if right >= size {
		right = mpi.ProcNull
	}
	u := append([]float64(nil), s.cur.U...)
	next := make([]float64, len(u))
	residual := s.cur.Residual
	for it := s.cur.Iter; it < iters; it++ {
		// Boundary values to the neighbours, theirs into the ghosts.
		if _, err := mpi.Sendrecv(mpi.World, u[points:points+1], right, 0, u[0:1], left, 0); err != nil {
			return err
		}
		if _, err := mpi.Sendrecv(mpi.World, u[1:2], left, 1, u[points+1:], right, 1); err != nil {
			return err
		}
		if rank == 0 {
			u[0] = 1
		}
		if rank == size-1 {
			u[points+1] = 0
		}
		local := 0.0
		for i := 1; i <= points; i++ {
			next[i] = (u[i-1] + u[i+1]) / 2
			local += (next[i] - u[i]) * (next[i] - u[i])
		}
		next[0], next[points+1] = u[0], u[points+1]
		sum := []float64{0}
		if err := mpi.Allreduce(mpi.World, []float64{local}, sum, mpi.Sum); err != nil {
			return err
		}
		residual = math.Sqrt(sum[0])
		u, next = next, u
		s.mu.Lock()
		s.prev = s.cur
		s.cur = snapshot{Iter: it + 1, U: append([]float64(nil), u...), Residual: residual}
		s.mu.Unlock()
	}
	// The temperature in the middle of the rod, and the last residual.
	mid := (size * points) / 2
	owner, at := mid/points, mid%points+1
	t := []float64{0}
	if rank == owner {
		t[0] = u[at]
	}
	if err := mpi.Bcast(mpi.World, t, owner); err != nil {
		return err
	}
	if rank == 0 {
		fmt.Printf("after %d iterations: temperature at the middle %.12f, residual %.6e\n", iters, t[0], residual)
	}
	return nil
}

// rewind takes every rank back to the last iteration all of them
// completed.
func rewind() error {
	least := []int64{0}
	if err := mpi.Allreduce(mpi.World, []int64{int64(s.cur.Iter)}, least, mpi.Min); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch int(least[0]) {
	case s.cur.Iter:
	case s.prev.Iter:
		s.cur = s.prev
	default:
		return fmt.Errorf("the ranks are more than one iteration apart (%d; this one has %d and %d)", least[0], s.prev.Iter, s.cur.Iter)
	}
	return nil
}
