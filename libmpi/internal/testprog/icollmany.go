package main

import (
	"fmt"

	"github.com/lamgo/lam/libmpi/mpi"
)

// The icollmany suite: many nonblocking collectives outstanding at once
// on three communicators (World, a duplicate, the halves by parity),
// small ones and ones of 400 KB (rendezvous), started in an order across
// the communicators that differs from rank to rank (each communicator's
// own order is the same everywhere, as MPI asks), with a blocking
// Allreduce on a fourth communicator after each round; odd ranks wait
// for them with Waitall in the reverse order, even ranks with Waitany.
// The results have closed forms. Prints "icollmany ok".
func init() { suites["icollmany"] = icollMany }

func icollMany(rank, size int) {
	w := mpi.World
	w.SetErrhandler(mpi.ErrorsReturn)
	dup := mustV(w.Dup())
	half := mustV(w.Split(rank%2, rank))
	blocking := mustV(w.Dup())
	comms := []*mpi.Comm{w, dup, half}
	type job struct {
		what  string
		req   *mpi.Request
		check func() error
	}
	var jobs []*job
	const rounds = 6
	for i := range rounds {
		k := 3
		if i%2 == 1 {
			k = 50000 // 400 KB
		}
		for t := range comms {
			c := comms[(t+rank)%len(comms)]
			n, cr := c.Size(), c.Rank()
			name := fmt.Sprintf("round %d on communicator %d", i, (t+rank)%len(comms))
			in := make([]int64, k)
			for j := range in {
				in[j] = int64((cr + 1) * (j + 1 + i))
			}
			sum := make([]int64, k)
			jobs = append(jobs, &job{what: name + " Iallreduce", req: mustV(mpi.Iallreduce(c, in, sum, mpi.Sum)), check: func() error {
				for j, x := range sum {
					if want := int64(n * (n + 1) / 2 * (j + 1 + i)); x != want {
						return fmt.Errorf("element %d: %d, want %d", j, x, want)
					}
				}
				return nil
			}})
			root := i % n
			bc := make([]int64, k)
			if cr == root {
				for j := range bc {
					bc[j] = int64(j*7 + i)
				}
			}
			jobs = append(jobs, &job{what: name + " Ibcast", req: mustV(mpi.Ibcast(c, bc, root)), check: func() error {
				for j, x := range bc {
					if x != int64(j*7+i) {
						return fmt.Errorf("element %d: %d", j, x)
					}
				}
				return nil
			}})
			jobs = append(jobs, &job{what: name + " Ibarrier", req: mustV(mpi.Ibarrier(c)), check: func() error { return nil }})
			mine := make([]int64, k)
			for j := range mine {
				mine[j] = int64(cr*1000 + i + j)
			}
			all := make([]int64, k*n)
			jobs = append(jobs, &job{what: name + " Iallgather", req: mustV(mpi.Iallgather(c, mine, all)), check: func() error {
				for r := range n {
					for j := range k {
						if x := all[r*k+j]; x != int64(r*1000+i+j) {
							return fmt.Errorf("block %d element %d: %d", r, j, x)
						}
					}
				}
				return nil
			}})
		}
		one := []int64{1}
		mustOK("blocking Allreduce", mpi.Allreduce(blocking, []int64{int64(rank)}, one, mpi.Sum))
		if one[0] != int64(size*(size-1)/2) {
			fail("blocking Allreduce after round %d: %d", i, one[0])
		}
	}
	reqs := make([]*mpi.Request, len(jobs))
	for i, j := range jobs {
		reqs[i] = j.req
	}
	if rank%2 == 1 {
		for i := len(reqs) - 1; i >= 0; i-- {
			if _, err := reqs[i].Wait(); err != nil {
				fail("%s: %v", jobs[i].what, err)
			}
		}
	} else {
		for range reqs {
			i, _, err := mpi.Waitany(reqs...)
			if err != nil || i == mpi.Undefined {
				fail("waitany: %d %v", i, err)
			}
		}
	}
	for _, j := range jobs {
		if err := j.check(); err != nil {
			fail("%s: %v", j.what, err)
		}
	}
	for _, c := range []*mpi.Comm{dup, half, blocking} {
		mustOK("Free", c.Free())
	}
	if rank == 0 {
		fmt.Println("icollmany ok")
	}
}
