package mpi_test

import (
	"math"
	"runtime"
	"testing"

	"github.com/lamgo/lam/libmpi/mpi"
)

// Requests already waited for, and persistent ones not started, are
// inactive: the any/some/all functions treat them as null requests.
func TestInactiveRequests(t *testing.T) {
	w := mpi.World
	never, err := mpi.RecvInit(w, make([]byte, 1), 0, 5)
	if err != nil {
		t.Fatal(err)
	}
	done, _ := mpi.Isend(w, []byte{1}, mpi.ProcNull, 0)
	done.Wait()
	reqs := []*mpi.Request{nil, never, done}
	if i, st, err := mpi.Waitany(reqs...); i != mpi.Undefined || err != nil || st.Source != mpi.AnySource {
		t.Errorf("Waitany: %d %+v %v", i, st, err)
	}
	if idx, _, err := mpi.Waitsome(reqs...); len(idx) != 0 || err != nil {
		t.Errorf("Waitsome: %v %v", idx, err)
	}
	if i, _, ok, _ := mpi.Testany(reqs...); !ok || i != mpi.Undefined {
		t.Errorf("Testany: %d %v", i, ok)
	}
	if _, ok, err := mpi.Testall(reqs...); !ok || err != nil {
		t.Errorf("Testall: %v %v", ok, err)
	}
	never.Start()
	mpi.Send(w, []byte{7}, 0, 5)
	if i, st, err := mpi.Waitany(reqs...); i != 1 || err != nil || st.Bytes != 1 {
		t.Errorf("Waitany with one started: %d %+v %v", i, st, err)
	}
	if st, err := never.Wait(); err != nil || st.Source != mpi.AnySource {
		t.Errorf("Wait on a request already waited for: %+v %v", st, err)
	}
}

// A failed request among several: Waitall says ErrInStatus and each
// status carries its own error.
func TestWaitallInStatus(t *testing.T) {
	w := mpi.World
	mpi.Send(w, []byte("long"), 0, 6)
	mpi.Send(w, []byte("s"), 0, 7)
	a, _ := mpi.Irecv(w, make([]byte, 2), 0, 6)
	b, _ := mpi.Irecv(w, make([]byte, 2), 0, 7)
	sts, err := mpi.Waitall(a, b)
	if mpi.Class(err) != mpi.ErrInStatus || mpi.Class(sts[0].Err) != mpi.ErrTruncate || sts[1].Err != nil {
		t.Errorf("Waitall: %+v %v", sts, err)
	}
}

// A nil datatype or a negative count is an error, never a panic.
func TestBadDatatypeArguments(t *testing.T) {
	w := mpi.World
	buf := make([]byte, 8)
	pos := 0
	for name, err := range map[string]error{
		"SendType nil":   mpi.SendType(w, buf, 1, nil, 0, 0),
		"SendType count": mpi.SendType(w, buf, -1, mpi.Byte, 0, 0),
		"Pack nil":       mpi.Pack(buf, 1, nil, buf, &pos),
		"Unpack nil":     mpi.Unpack(buf, &pos, buf, 1, nil),
		"Pack nil pos":   mpi.Pack(buf, 1, mpi.Byte, buf, nil),
	} {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := mpi.TypeContiguous(2, nil); mpi.Class(err) != mpi.ErrType {
		t.Errorf("TypeContiguous(nil): %v", err)
	}
	if _, err := mpi.RecvType(w, buf, 1, nil, 0, 0); mpi.Class(err) != mpi.ErrType {
		t.Errorf("RecvType(nil): %v", err)
	}
	var d *mpi.Datatype
	if d.Size() != 0 || d.Extent() != 0 || mpi.PackSize(3, nil) != 0 || mpi.GetCountType(mpi.Status{Bytes: 4}, nil) != mpi.Undefined {
		t.Error("nil datatype accessors")
	}
}

// A send's or receive's request, once reported, stays inactive while its
// core request serves the ones started after it (the pool the blocking
// calls use): Wait, Test, RequestGetStatus, Cancel, Free and the
// any/some/all functions treat it as waited for, and the later ones
// carry their own messages. A start and its Wait allocate little more
// than the Request.
func TestReportedRequestsReused(t *testing.T) {
	w := mpi.World
	out, in := []int64{1}, make([]int64, 1)
	firstRecv, err := mpi.Irecv(w, in, 0, 7)
	if err != nil {
		t.Fatal(err)
	}
	firstSend, err := mpi.Isend(w, out, 0, 7)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mpi.Waitall(firstRecv, firstSend); err != nil || in[0] != 1 {
		t.Fatalf("the first exchange: %v, %v", in, err)
	}
	exchange := func(i int) {
		t.Helper()
		out[0] = int64(i)
		r, err := mpi.Irecv(w, in, 0, 8)
		if err != nil {
			t.Fatal(err)
		}
		s, err := mpi.Isend(w, out, 0, 8)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Wait(); err != nil {
			t.Fatal(err)
		}
		if st, err := r.Wait(); err != nil || in[0] != int64(i) || st.Tag != 8 || st.Bytes != 8 {
			t.Fatalf("exchange %d: %v, %+v, %v", i, in, st, err)
		}
	}
	for i := range 100 {
		exchange(i)
	}
	checkReported(t, firstRecv)
	checkReported(t, firstSend)
	if i, _, done, err := mpi.Testany(firstRecv, firstSend); err != nil || !done || i != mpi.Undefined {
		t.Errorf("Testany of reported requests: %d, %v, %v", i, done, err)
	}
	// Still the later ones' own.
	exchange(1000)

	if race {
		return
	}
	if b := bytesPerCall(500, exchange); b > 256 {
		t.Errorf("an Irecv, Isend and their Waits allocate %d bytes; want at most 256", b)
	}
}

// bytesPerCall is the fewest bytes the process allocated per call of f
// in five runs of calls calls each: the other tests' goroutines, and a
// collection that empties the pools, count in some runs only.
func bytesPerCall(calls int, f func(i int)) uint64 {
	least := uint64(math.MaxUint64)
	for range 5 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := range calls {
			f(i)
		}
		runtime.ReadMemStats(&after)
		least = min(least, (after.TotalAlloc-before.TotalAlloc)/uint64(calls))
	}
	return least
}

// checkReported checks that r, a request waited for, is inactive: Wait,
// Test and RequestGetStatus give an empty status at once, Cancel and
// Free do nothing.
func checkReported(t *testing.T, r *mpi.Request) {
	t.Helper()
	empty := mpi.Status{Source: mpi.AnySource, Tag: mpi.AnyTag}
	if s, err := r.Wait(); err != nil || s != empty {
		t.Errorf("Wait again: %+v, %v; want an empty status", s, err)
	}
	if s, done, err := r.Test(); err != nil || !done || s != empty {
		t.Errorf("Test after Wait: %+v, %v, %v", s, done, err)
	}
	if s, done, err := mpi.RequestGetStatus(r); err != nil || !done || s != empty {
		t.Errorf("RequestGetStatus after Wait: %+v, %v, %v", s, done, err)
	}
	if err := r.Cancel(); err != nil {
		t.Errorf("Cancel after Wait: %v", err)
	}
	r.Free()
	if r.Active() || r.Persistent() {
		t.Errorf("after Wait: active %v, persistent %v", r.Active(), r.Persistent())
	}
}
