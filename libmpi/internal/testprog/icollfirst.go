package main

import (
	"fmt"

	"github.com/lamgo/lam/libmpi/mpi"
)

// The icollfirst suite: fresh communicators (two duplicates of World,
// the halves by parity, a Create of every rank but the last, and an
// intercommunicator between the halves) whose first collectives are
// nonblocking, started in an order across the communicators that differs
// from rank to rank (each communicator's own order is the same
// everywhere, as MPI asks), then waited for together with Waitall. A
// module whose setup communicates (smp, shmem) must have been set up
// when the communicator was made: set up by the first collective, the
// processes would each wait in a different communicator's setup. Prints
// "icollfirst ok".
func init() { suites["icollfirst"] = icollFirst }

func icollFirst(rank, size int) {
	w := mpi.World
	w.SetErrhandler(mpi.ErrorsReturn)
	comms := []*mpi.Comm{mustV(w.Dup()), mustV(w.Dup()), mustV(w.Split(rank%2, rank))}
	g := mustV(w.Group())
	if size > 1 {
		g = mustV(g.Excl([]int{size - 1}))
	}
	if c := mustV(w.Create(g)); c != nil {
		comms = append(comms, c)
	}
	var ic *mpi.Comm
	if size > 1 {
		ic = mustV(mpi.IntercommCreate(comms[2], 0, w, 1-rank%2, 91))
	}
	type job struct {
		what  string
		req   *mpi.Request
		check func() error
	}
	var jobs []*job
	// Every rank starts its communicators' first collectives from a
	// different one; the intercommunicator's Ibarrier comes first or
	// last, by rank.
	if ic != nil && rank%2 == 0 {
		jobs = append(jobs, &job{what: "intercommunicator Ibarrier", req: mustV(mpi.Ibarrier(ic)), check: func() error { return nil }})
	}
	for t := range comms {
		i := (t + rank) % len(comms)
		c := comms[i]
		n, cr := c.Size(), c.Rank()
		name := fmt.Sprintf("communicator %d", i)
		const k = 50000 // 400 KB: rendezvous messages
		in, sum := make([]int64, k), make([]int64, k)
		for j := range in {
			in[j] = int64((cr + 1) * (j + 1))
		}
		jobs = append(jobs, &job{what: name + " Iallreduce", req: mustV(mpi.Iallreduce(c, in, sum, mpi.Sum)), check: func() error {
			for j, x := range sum {
				if want := int64(n * (n + 1) / 2 * (j + 1)); x != want {
					return fmt.Errorf("element %d: %d, want %d", j, x, want)
				}
			}
			return nil
		}})
		bc := make([]int64, 3)
		if cr == n-1 {
			bc = []int64{7, int64(i), 9}
		}
		jobs = append(jobs, &job{what: name + " Ibcast", req: mustV(mpi.Ibcast(c, bc, n-1)), check: func() error {
			if bc[0] != 7 || bc[1] != int64(i) || bc[2] != 9 {
				return fmt.Errorf("got %v", bc)
			}
			return nil
		}})
	}
	if ic != nil && rank%2 == 1 {
		jobs = append(jobs, &job{what: "intercommunicator Ibarrier", req: mustV(mpi.Ibarrier(ic)), check: func() error { return nil }})
	}
	reqs := make([]*mpi.Request, len(jobs))
	for i, j := range jobs {
		reqs[i] = j.req
	}
	if _, err := mpi.Waitall(reqs...); err != nil {
		fail("waitall: %v", err)
	}
	for _, j := range jobs {
		if err := j.check(); err != nil {
			fail("%s: %v", j.what, err)
		}
	}
	if ic != nil {
		mustOK("Free", ic.Free())
	}
	for _, c := range comms {
		mustOK("Free", c.Free())
	}
	if rank == 0 {
		fmt.Println("icollfirst ok")
	}
}
