package main

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/lamgo/lam/libmpi/mpi"
)

// The icollreuse suite: nonblocking collectives started and waited for
// one after another, as a loop of small ones runs, with the first
// request of each kind kept: the parts a reported request had serve the
// later ones (mpi's pool), so the later ones must complete with their
// own results and the kept ones stay inactive (Wait, Test and Waitall
// report an empty status at once). Every other one is waited for with
// WaitContext, which moves it on as Wait does, and gives up (the request
// still active) when its context ends first. Where shmem's board runs them, a
// start and its Wait allocate the Request alone (at most 256 bytes a
// call, where the parts are over 600); a ring exchange by Irecv, Isend
// and Waitall reuses its core requests the same way. Prints
// "icollreuse ok".
func init() { suites["icollreuse"] = icollReuse }

func icollReuse(rank, size int) {
	c := mpi.World
	c.SetErrhandler(mpi.ErrorsReturn)
	const calls = 300
	type kind struct {
		name  string
		start func(i int) (*mpi.Request, func() error)
	}
	bc := make([]int64, 1)
	sum := make([]int64, 1)
	all := make([]int64, size)
	one := make([]int64, 1)
	kinds := []kind{
		{"Ibarrier", func(int) (*mpi.Request, func() error) {
			return mustV(mpi.Ibarrier(c)), func() error { return nil }
		}},
		{"Ibcast", func(i int) (*mpi.Request, func() error) {
			root := i % size
			bc[0] = -1
			if rank == root {
				bc[0] = int64(i)
			}
			return mustV(mpi.Ibcast(c, bc, root)), func() error { return equal(bc[0], int64(i)) }
		}},
		{"Iallreduce", func(i int) (*mpi.Request, func() error) {
			in := []int64{int64(rank + i)}
			return mustV(mpi.Iallreduce(c, in, sum, mpi.Sum)), func() error {
				return equal(sum[0], int64(size*(size-1)/2+size*i))
			}
		}},
		{"Iallgather", func(i int) (*mpi.Request, func() error) {
			in := []int64{int64(rank * i)}
			return mustV(mpi.Iallgather(c, in, all)), func() error {
				for q, x := range all {
					if err := equal(x, int64(q*i)); err != nil {
						return err
					}
				}
				return nil
			}
		}},
		{"Iscatter", func(i int) (*mpi.Request, func() error) {
			root := (i + 1) % size
			var send []int64
			if rank == root {
				send = make([]int64, size)
				for q := range send {
					send[q] = int64(q + i)
				}
			}
			return mustV(mpi.Iscatter(c, send, one, root)), func() error { return equal(one[0], int64(rank+i)) }
		}},
	}
	firsts := make([]*mpi.Request, len(kinds))
	for k, kd := range kinds {
		for i := range calls {
			r, check := kd.start(i)
			if i%2 == 1 {
				// WaitContext moves the collective on as Wait does.
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				_, err := r.WaitContext(ctx)
				cancel()
				if err != nil {
					fail("%s %d: WaitContext: %v", kd.name, i, err)
				}
			} else if _, err := r.Wait(); err != nil {
				fail("%s %d: %v", kd.name, i, err)
			}
			if err := check(); err != nil {
				fail("%s %d: %v", kd.name, i, err)
			}
			if i == 0 {
				firsts[k] = r
			}
		}
	}
	empty := mpi.Status{Source: mpi.AnySource, Tag: mpi.AnyTag}
	for k, r := range firsts {
		if s, err := r.Wait(); err != nil || s != empty {
			fail("%s: the first request waited for again: %+v, %v", kinds[k].name, s, err)
		}
		if s, done, err := r.Test(); err != nil || !done || s != empty {
			fail("%s: the first request tested: %+v, %v, %v", kinds[k].name, s, done, err)
		}
	}
	if sts, err := mpi.Waitall(firsts...); err != nil || len(sts) != len(firsts) || sts[0] != empty {
		fail("Waitall of the first requests: %v, %v", sts, err)
	}
	// WaitContext gives up when its context ends, the request still
	// active, and completes it when called again.
	if rank == 1 {
		time.Sleep(200 * time.Millisecond)
	}
	r := mustV(mpi.Ibarrier(c))
	if rank == 0 && size > 1 {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		_, err := r.WaitContext(ctx)
		cancel()
		if mpi.Class(err) != mpi.ErrPending || !r.Active() {
			fail("WaitContext of an Ibarrier that rank 1 starts late: %v, active %v; want ErrPending, active", err, r.Active())
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	_, err := r.WaitContext(ctx)
	cancel()
	if err != nil || r.Active() {
		fail("WaitContext of the Ibarrier again: %v, active %v", err, r.Active())
	}
	if c.CollModule() == "shmem" && !race {
		for _, k := range kinds[:2] {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for i := range 2000 {
				r, check := k.start(i)
				if _, err := r.Wait(); err != nil {
					fail("%s: %v", k.name, err)
				}
				if err := check(); err != nil {
					fail("%s: %v", k.name, err)
				}
			}
			runtime.ReadMemStats(&after)
			if b := (after.TotalAlloc - before.TotalAlloc) / 2000; b > 256 {
				fail("%s and Wait on shmem's board allocate %d bytes a call; want at most 256", k.name, b)
			}
		}
	}
	// Point-to-point the same way: a ring exchange by Irecv, Isend and
	// Waitall, whose core requests come from the blocking calls' pool
	// (two Requests, the two slices and Waitall's statuses: about 300
	// bytes; 880 with the core requests).
	ring := func(i int) {
		out, in := []int64{int64(rank + i)}, make([]int64, 1)
		from := (rank + size - 1) % size
		r := mustV(mpi.Irecv(c, in, from, 9))
		s := mustV(mpi.Isend(c, out, (rank+1)%size, 9))
		if _, err := mpi.Waitall(r, s); err != nil || in[0] != int64(from+i) {
			fail("ring exchange %d: %d, %v; want %d", i, in[0], err, from+i)
		}
	}
	for i := range calls {
		ring(i)
	}
	if !race {
		if b := leastBytes(ring); b > 400 {
			fail("a ring exchange by Irecv, Isend and Waitall allocates %d bytes; want at most 400", b)
		}
	}
	must(mpi.Barrier(c))
	if rank == 0 {
		fmt.Println("icollreuse ok")
	}
}

// equal is an error unless got is w.
func equal(got, w int64) error {
	if got != w {
		return fmt.Errorf("%d, want %d", got, w)
	}
	return nil
}

// leastBytes is the fewest bytes the process allocated per call of f in
// five runs of 500 calls: a collection that empties the pools counts in
// some runs only.
func leastBytes(f func(i int)) uint64 {
	least := ^uint64(0)
	for range 5 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := range 500 {
			f(i)
		}
		runtime.ReadMemStats(&after)
		least = min(least, (after.TotalAlloc-before.TotalAlloc)/500)
	}
	return least
}
