package mpi_test

import (
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
