package main

import (
	"fmt"

	"github.com/lamgo/lam/libmpi/mpi"
)

// The icollmix suite: point-to-point requests (a ring's Irecv and Isend,
// rendezvous-sized) mixed with nonblocking collectives (Iallreduce of
// 400 KB, Ibarrier, Ibcast, IneighborAllgather on a periodic ring) in one
// list, completed by each of Waitany, Waitsome, Testany, Testsome,
// Testall and Waitall in turn (which advance the collectives' schedules
// on the caller's goroutine, as Wait and Test do), several rounds; the
// results have closed forms. Prints "icollmix ok".
func init() { suites["icollmix"] = icollMix }

func icollMix(rank, size int) {
	w := mpi.World
	w.SetErrhandler(mpi.ErrorsReturn)
	ring := mustV(mpi.CartCreate(w, []int{size}, []bool{true}, false))
	ring.SetErrhandler(mpi.ErrorsReturn)
	next, prev := (rank+1)%size, (rank+size-1)%size
	const k = 50000 // 400 KB of int64: rendezvous messages
	for round, how := range []string{"Waitany", "Waitsome", "Testany", "Testsome", "Testall", "Waitall", "Waitany", "Testsome"} {
		in, sum := make([]int64, k), make([]int64, k)
		for j := range in {
			in[j] = int64((rank + 1) * (j + round))
		}
		got, out := make([]int64, k), make([]int64, k)
		for j := range out {
			out[j] = int64(rank*7 + j + round)
		}
		bc := make([]int64, 4)
		root := round % size
		if rank == root {
			bc = []int64{1, 2, 3, int64(round)}
		}
		nb := make([]int64, 2)
		reqs := []*mpi.Request{
			mustV(mpi.Irecv(w, got, prev, round)),
			mustV(mpi.Iallreduce(w, in, sum, mpi.Sum)),
			mustV(mpi.Ibarrier(w)),
			mustV(mpi.Isend(w, out, next, round)),
			mustV(mpi.Ibcast(w, bc, root)),
			mustV(mpi.IneighborAllgather(ring, []int64{int64(rank*10 + round)}, nb)),
		}
		if rank%2 == 1 {
			// A rank-dependent order in the list (each communicator's
			// collectives were started in the same order everywhere).
			for i, j := 0, len(reqs)-1; i < j; i, j = i+1, j-1 {
				reqs[i], reqs[j] = reqs[j], reqs[i]
			}
		}
		complete(how, reqs)
		for j, x := range got {
			if want := int64(prev*7 + j + round); x != want {
				fail("%s round %d: received element %d: %d, want %d", how, round, j, x, want)
			}
		}
		for j, x := range sum {
			if want := int64(size * (size + 1) / 2 * (j + round)); x != want {
				fail("%s round %d: Iallreduce element %d: %d, want %d", how, round, j, x, want)
			}
		}
		if bc[0] != 1 || bc[1] != 2 || bc[2] != 3 || bc[3] != int64(round) {
			fail("%s round %d: Ibcast gave %v", how, round, bc)
		}
		if nb[0] != int64(prev*10+round) || nb[1] != int64(next*10+round) {
			fail("%s round %d: IneighborAllgather gave %v", how, round, nb)
		}
	}
	mustOK("Free", ring.Free())
	if rank == 0 {
		fmt.Println("icollmix ok")
	}
}

// complete completes every request of reqs with the call how names.
func complete(how string, reqs []*mpi.Request) {
	left := len(reqs)
	for left > 0 {
		switch how {
		case "Waitany":
			i, _, err := mpi.Waitany(reqs...)
			if err != nil || i == mpi.Undefined {
				fail("Waitany: %d %v", i, err)
			}
			left--
		case "Waitsome", "Testsome":
			f := mpi.Waitsome
			if how == "Testsome" {
				f = mpi.Testsome
			}
			idx, _, err := f(reqs...)
			if err != nil {
				fail("%s: %v", how, err)
			}
			left -= len(idx)
		case "Testany":
			i, _, ok, err := mpi.Testany(reqs...)
			if err != nil {
				fail("Testany: %v", err)
			}
			if ok && i != mpi.Undefined {
				left--
			}
		case "Testall":
			if _, ok, err := mpi.Testall(reqs...); err != nil {
				fail("Testall: %v", err)
			} else if ok {
				left = 0
			}
		case "Waitall":
			if _, err := mpi.Waitall(reqs...); err != nil {
				fail("Waitall: %v", err)
			}
			left = 0
		}
	}
}
