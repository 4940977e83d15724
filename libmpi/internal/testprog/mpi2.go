package main

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/lamgo/lam/libmpi/mpi"
)

// mpi2: matched probes across ranks (four goroutines of rank 0 receive
// eager and rendezvous messages from every other rank with Mprobe and
// Mrecv, each exactly once), CreateGroup over the even ranks only while
// the odd ones talk on the parent, SplitType by node and Idup.
func init() { suites["mpi2"] = mpi2 }

func mpi2(rank, size int) {
	w := mpi.World
	w.SetErrhandler(mpi.ErrorsReturn)
	// main called Init, and runs the suites.
	other := make(chan bool)
	go func() { other <- mpi.IsThreadMain() }()
	if !mpi.IsThreadMain() || <-other {
		fail("IsThreadMain: not true on the goroutine of Init only")
	}
	matchedProbes(rank, size)
	createGroup(rank, size)
	shared, err := w.SplitType(mpi.SplitTypeShared, -rank)
	mustOK("split shared", err)
	// Every rank of a local universe is on one node; ordered by key.
	if shared.Size() != size || shared.Rank() != size-1-rank {
		fail("split shared: rank %d of %d", shared.Rank(), shared.Size())
	}
	sum := []int32{0}
	mustOK("allreduce on the shared split", mpi.Allreduce(shared, []int32{1}, sum, mpi.Sum))
	if int(sum[0]) != size {
		fail("allreduce on the shared split: %d", sum[0])
	}
	mustOK("free", shared.Free())
	d, r, err := w.Idup()
	mustOK("idup", err)
	_, err = r.Wait()
	mustOK("idup wait", err)
	mustOK("barrier on the idup", mpi.Barrier(d))
	mustOK("free", d.Free())
	mustOK("barrier", mpi.Barrier(w))
	if rank == 0 {
		fmt.Println("mpi2 ok")
	}
}

func matchedProbes(rank, size int) {
	w := mpi.World
	const perRank = 60
	sizes := []int{3, 100, 20000, 70000, 300000}
	if rank != 0 {
		var reqs []*mpi.Request
		for i := range perRank {
			buf := make([]byte, sizes[(i+rank)%len(sizes)])
			binary.LittleEndian.PutUint16(buf, uint16(rank))
			buf[len(buf)-1] = byte(i)
			r, err := mpi.Isend(w, buf, 0, i)
			mustOK("isend", err)
			reqs = append(reqs, r)
		}
		_, err := mpi.Waitall(reqs...)
		mustOK("waitall", err)
		return
	}
	total := (size - 1) * perRank
	var mu sync.Mutex
	got := map[[2]int]int{}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		n := total / 4
		if g == 0 {
			n += total % 4
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				m, st, err := mpi.Mprobe(w, mpi.AnySource, mpi.AnyTag)
				if err != nil {
					errs <- err
					return
				}
				buf := make([]byte, st.Bytes)
				rs, err := mpi.Mrecv(buf, m)
				if err != nil || rs != st {
					errs <- fmt.Errorf("mrecv: %+v after %+v: %v", rs, st, err)
					return
				}
				from := int(binary.LittleEndian.Uint16(buf))
				if from != st.Source || int(buf[len(buf)-1]) != st.Tag || len(buf) != sizes[(st.Tag+from)%len(sizes)] {
					errs <- fmt.Errorf("message %d from %d: %d bytes from %d", st.Tag, st.Source, len(buf), from)
					return
				}
				mu.Lock()
				got[[2]int{from, st.Tag}]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	select {
	case err := <-errs:
		fail("matched probes: %v", err)
	default:
	}
	if len(got) != total {
		fail("matched probes: %d messages, want %d", len(got), total)
	}
	for k, n := range got {
		if n != 1 {
			fail("matched probes: message %v received %d times", k, n)
		}
	}
	if _, _, ok, _ := mpi.Improbe(w, mpi.AnySource, mpi.AnyTag); ok {
		fail("matched probes: a message left over")
	}
}

func createGroup(rank, size int) {
	w := mpi.World
	g, err := w.Group()
	mustOK("group", err)
	var even []int
	for r := 0; r < size; r += 2 {
		even = append(even, r)
	}
	eg, err := g.Incl(even)
	mustOK("incl", err)
	if rank%2 == 1 {
		// Outside the group: talk on the parent meanwhile.
		if rank+2 < size {
			mustOK("send", mpi.Send(w, []int32{int32(rank)}, rank+2, 5))
		}
		if rank >= 3 {
			buf := []int32{0}
			_, err := mpi.Recv(w, buf, rank-2, 5)
			mustOK("recv", err)
		}
		return
	}
	c, err := w.CreateGroup(eg, 9)
	mustOK("create group", err)
	if c.Size() != len(even) || c.Rank() != rank/2 {
		fail("create group: rank %d of %d", c.Rank(), c.Size())
	}
	sum := []int32{0}
	mustOK("allreduce on the group", mpi.Allreduce(c, []int32{int32(rank)}, sum, mpi.Sum))
	want := 0
	for _, r := range even {
		want += r
	}
	if int(sum[0]) != want {
		fail("allreduce on the group: %d, want %d", sum[0], want)
	}
	mustOK("free", c.Free())
}
