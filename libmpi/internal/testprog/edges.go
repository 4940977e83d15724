package main

import (
	"bytes"
	"fmt"
	"time"

	"github.com/lamgo/lam/libmpi/mpi"
)

// edges: the corners the p2p suite leaves out, between rank 0 and rank 1
// (the other ranks check the local ones): ready sends, zero-length
// messages, synchronous sends that complete only once matched, the
// any/some functions over nil and inactive requests, and every error
// class the point-to-point, group and communicator calls can return.
func init() { suites["edges"] = edges }

func edges(rank, size int) {
	w := mpi.World
	w.SetErrhandler(mpi.ErrorsReturn)
	errorClasses(rank, size)
	inactiveRequests()
	if size < 2 || rank > 1 {
		if rank == 0 {
			fmt.Println("edges ok")
		}
		return
	}
	peer := 1 - rank
	token := []byte{1}
	if rank == 1 {
		// Ready sends: the receives are posted before rank 0 is told so.
		a := make([]int32, 3)
		b := make([]int32, 3)
		c := make([]int32, 3)
		ra, _ := mpi.Irecv(w, a, 0, 200)
		rb, _ := mpi.Irecv(w, b, 0, 201)
		rc, _ := mpi.Irecv(w, c, 0, 202)
		must(mpi.Send(w, token, 0, 199))
		if _, err := mpi.Waitall(ra, rb, rc); err != nil || a[2] != 3 || b[2] != 6 || c[2] != 9 {
			fail("ready sends: %v %v %v %v", a, b, c, err)
		}
		// A persistent ready send, started twice.
		for i := 0; i < 2; i++ {
			r, _ := mpi.Irecv(w, a, 0, 203)
			must(mpi.Send(w, token, 0, 199))
			if _, err := r.Wait(); err != nil || a[0] != int32(10+i) {
				fail("persistent ready send %d: %v %v", i, a, err)
			}
		}
		// Zero-length messages: probed, received with and without
		// wildcards and a buffer.
		st, err := mpi.Probe(w, mpi.AnySource, mpi.AnyTag)
		if err != nil || st.Bytes != 0 || st.Source != 0 || st.Tag != 210 {
			fail("probe of an empty message: %+v %v", st, err)
		}
		for _, tag := range []int{210, 211, 212} {
			src, tg := 0, tag
			if tag != 210 {
				src, tg = mpi.AnySource, mpi.AnyTag
			}
			var buf []byte
			if tag == 212 {
				buf = make([]byte, 8)
			}
			st, err := mpi.Recv(w, buf, src, tg)
			if err != nil || st.Bytes != 0 || st.Source != 0 || st.Tag != tag || mpi.GetCount[byte](st) != 0 {
				fail("empty message %d: %+v %v", tag, st, err)
			}
		}
		// Synchronous sends complete only once matched: rank 0 watches
		// them stay incomplete until this rank says it will receive.
		for _, n := range []int{8, 2 << 20} {
			if _, err := mpi.Recv(w, token, 0, 219); err != nil {
				fail("ssend handshake: %v", err)
			}
			buf := make([]byte, n)
			if _, err := mpi.Recv(w, buf, 0, 220); err != nil || buf[n-1] != 5 {
				fail("ssend of %d bytes: %v", n, err)
			}
		}
	} else {
		if _, err := mpi.Recv(w, token, 1, 199); err != nil {
			fail("ready handshake: %v", err)
		}
		must(mpi.Rsend(w, []int32{1, 2, 3}, 1, 200))
		r, _ := mpi.Irsend(w, []int32{4, 5, 6}, 1, 201)
		if _, err := r.Wait(); err != nil {
			fail("irsend: %v", err)
		}
		must(mpi.Rsend(w, []int32{7, 8, 9}, 1, 202))
		buf := []int32{0}
		pr, err := mpi.RsendInit(w, buf, 1, 203)
		if err != nil {
			fail("RsendInit: %v", err)
		}
		for i := 0; i < 2; i++ {
			if _, err := mpi.Recv(w, token, 1, 199); err != nil {
				fail("ready handshake: %v", err)
			}
			buf[0] = int32(10 + i)
			must(pr.Start())
			if _, err := pr.Wait(); err != nil {
				fail("persistent ready send %d: %v", i, err)
			}
		}
		pr.Free()
		// Zero-length messages.
		must(mpi.Send(w, []byte{}, 1, 210))
		r1, _ := mpi.Isend[byte](w, nil, 1, 211)
		must(mpi.Ssend[byte](w, nil, 1, 212))
		if _, err := r1.Wait(); err != nil {
			fail("empty isend: %v", err)
		}
		// Synchronous sends, short (eager) and long (rendezvous).
		for _, n := range []int{8, 2 << 20} {
			msg := bytes.Repeat([]byte{5}, n)
			r, err := mpi.Issend(w, msg, 1, 220)
			if err != nil {
				fail("issend: %v", err)
			}
			deadline := time.Now().Add(50 * time.Millisecond)
			for time.Now().Before(deadline) {
				if _, done, _ := r.Test(); done {
					fail("a synchronous send of %d bytes completed before its receive was posted", n)
				}
				time.Sleep(time.Millisecond)
			}
			must(mpi.Send(w, token, 1, 219))
			if _, err := r.Wait(); err != nil {
				fail("issend of %d bytes: %v", n, err)
			}
		}
	}
	// Both ranks agree they are done before rank 0 reports.
	if _, err := mpi.Sendrecv(w, token, peer, 230, make([]byte, 1), peer, 230); err != nil {
		fail("final handshake: %v", err)
	}
	if rank == 0 {
		fmt.Println("edges ok")
	}
}

func must(err error) {
	if err != nil {
		fail("%v", err)
	}
}

// inactiveRequests checks the any/some/all functions over requests that
// are nil, persistent and never started, or finished and already waited
// for: MPI treats them all as MPI_REQUEST_NULL.
func inactiveRequests() {
	w := mpi.World
	me := w.Rank()
	never, err := mpi.RecvInit(w, make([]byte, 1), me, 300)
	if err != nil {
		fail("RecvInit: %v", err)
	}
	done, _ := mpi.Isend(w, []byte{1}, mpi.ProcNull, 0)
	if _, err := done.Wait(); err != nil {
		fail("send to ProcNull: %v", err)
	}
	reqs := []*mpi.Request{nil, never, done}
	if i, st, err := mpi.Waitany(reqs...); err != nil || i != mpi.Undefined || st.Source != mpi.AnySource || st.Tag != mpi.AnyTag {
		fail("Waitany over inactive requests: %d %+v %v", i, st, err)
	}
	if idx, _, err := mpi.Waitsome(reqs...); err != nil || len(idx) != 0 {
		fail("Waitsome over inactive requests: %v %v", idx, err)
	}
	if i, _, ok, err := mpi.Testany(reqs...); err != nil || !ok || i != mpi.Undefined {
		fail("Testany over inactive requests: %d %v %v", i, ok, err)
	}
	if idx, _, err := mpi.Testsome(reqs...); err != nil || len(idx) != 0 {
		fail("Testsome over inactive requests: %v %v", idx, err)
	}
	if _, ok, err := mpi.Testall(reqs...); err != nil || !ok {
		fail("Testall over inactive requests: %v %v", ok, err)
	}
	if sts, err := mpi.Waitall(reqs...); err != nil || len(sts) != 3 || sts[1].Source != mpi.AnySource {
		fail("Waitall over inactive requests: %+v %v", sts, err)
	}
	// One active request among them: Waitany finds it, then it is
	// inactive too.
	never.Start()
	must(mpi.Send(w, []byte{9}, me, 300))
	if i, st, err := mpi.Waitany(reqs...); err != nil || i != 1 || st.Source != me || st.Tag != 300 {
		fail("Waitany with one active request: %d %+v %v", i, st, err)
	}
	if i, _, _ := mpi.Waitany(reqs...); i != mpi.Undefined {
		fail("Waitany returned a request it had already returned: %d", i)
	}
	if err := never.Cancel(); err != nil {
		fail("cancel of an inactive request: %v", err)
	}
	never.Free()
}

// errorClasses provokes every error class the point-to-point, group and
// communicator calls can return and checks each one's class and string.
func errorClasses(rank, size int) {
	w := mpi.World
	type check struct {
		want mpi.ErrorClass
		err  error
	}
	var checks []check
	add := func(want mpi.ErrorClass, err error) { checks = append(checks, check{want, err}) }

	// ErrBuffer: a buffered send without enough attached buffer.
	add(mpi.ErrBuffer, mpi.Bsend(w, make([]byte, 100), rank, 400))
	must(mpi.BufferAttach(make([]byte, 64)))
	add(mpi.ErrBuffer, mpi.Bsend(w, make([]byte, 1000), rank, 400))
	if _, err := mpi.BufferDetach(); err != nil {
		fail("detach: %v", err)
	}
	// ErrCount and ErrType: datatypes.
	_, err := mpi.TypeVector(-1, 1, 1, mpi.Byte)
	add(mpi.ErrCount, err)
	_, err = mpi.TypeVector(1, 1, 1, nil)
	add(mpi.ErrType, err)
	add(mpi.ErrType, mpi.SendType(w, make([]byte, 4), 1, nil, rank, 0))
	add(mpi.ErrCount, mpi.SendType(w, make([]byte, 4), -1, mpi.Byte, rank, 0))
	// ErrTag, ErrRank, ErrComm.
	add(mpi.ErrTag, mpi.Send(w, []byte{1}, rank, -7))
	add(mpi.ErrTag, mpi.Send(w, []byte{1}, rank, mpi.AnyTag)) // wildcards only receive
	_, err = mpi.Recv(w, make([]byte, 1), rank, -7)
	add(mpi.ErrTag, err)
	add(mpi.ErrRank, mpi.Send(w, []byte{1}, size, 0))
	add(mpi.ErrRank, mpi.Send(w, []byte{1}, mpi.AnySource, 0))
	_, err = mpi.Recv(w, make([]byte, 1), -9, 0)
	add(mpi.ErrRank, err)
	add(mpi.ErrComm, mpi.Send[byte](nil, []byte{1}, 0, 0))
	_, err = mpi.Irecv[byte](nil, make([]byte, 1), 0, 0)
	add(mpi.ErrComm, err)
	// ErrRequest: starting what is not persistent, cancelling nothing.
	r, _ := mpi.Isend(w, []byte{1}, mpi.ProcNull, 0)
	add(mpi.ErrRequest, r.Start())
	var null *mpi.Request
	add(mpi.ErrRequest, null.Cancel())
	// ErrGroup, ErrRank in groups, ErrArg.
	_, err = w.Create(nil)
	add(mpi.ErrGroup, err)
	g, _ := w.Group()
	_, err = g.Incl([]int{size})
	add(mpi.ErrRank, err)
	_, err = g.RangeIncl([][3]int{{0, size - 1, 0}})
	add(mpi.ErrArg, err)
	_, err = w.Split(-5, 0)
	add(mpi.ErrArg, err)
	// ErrTruncate, with the status filled; ErrInStatus from Waitall,
	// each status with its own error.
	must(mpi.Send(w, []byte("four"), rank, 401))
	st, err := mpi.Recv(w, make([]byte, 2), rank, 401)
	add(mpi.ErrTruncate, err)
	if st.Bytes != 2 || st.Source != rank || st.Tag != 401 {
		fail("truncated status: %+v", st)
	}
	must(mpi.Send(w, []byte("four"), rank, 402))
	must(mpi.Send(w, []byte("4"), rank, 403))
	ra, _ := mpi.Irecv(w, make([]byte, 2), rank, 402)
	rb, _ := mpi.Irecv(w, make([]byte, 2), rank, 403)
	sts, err := mpi.Waitall(ra, rb)
	add(mpi.ErrInStatus, err)
	if mpi.Class(sts[0].Err) != mpi.ErrTruncate || sts[1].Err != nil || sts[1].Bytes != 1 {
		fail("Waitall statuses: %+v", sts)
	}

	seen := map[mpi.ErrorClass]bool{}
	for i, c := range checks {
		if got := mpi.Class(c.err); got != c.want {
			fail("error check %d: class %v (%v), want %v", i, got, c.err, c.want)
		}
		if mpi.ErrorString(c.want) == "" {
			fail("no string for %v", c.want)
		}
		seen[c.want] = true
	}
	if mpi.Class(nil) != mpi.Success {
		fail("the class of no error is %v", mpi.Class(nil))
	}
	if len(seen) != 11 {
		fail("%d error classes checked", len(seen))
	}
}
