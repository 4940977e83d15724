package mpi_test

import (
	"bytes"
	"testing"

	"github.com/lamgo/lam/libmpi/mpi"
)

// IrecvType and the persistent typed requests: a column sent as a vector
// arrives as a contiguous run and back; the receive's buffer holds the
// data once Wait, Test, Waitall or RequestGetStatus reports it; each
// Start of a persistent send packs the buffer as it is then.
func TestTypedRequests(t *testing.T) {
	w := mpi.World
	col, _ := mpi.TypeVector(3, 1, 4, mpi.Int8)
	m := []byte{0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23}
	report := []struct {
		name string
		done func(r *mpi.Request) (mpi.Status, error)
	}{
		{"Wait", (*mpi.Request).Wait},
		{"Test", func(r *mpi.Request) (mpi.Status, error) {
			for {
				st, done, err := r.Test()
				if done || err != nil {
					return st, err
				}
			}
		}},
		{"Waitall", func(r *mpi.Request) (mpi.Status, error) {
			sts, err := mpi.Waitall(r)
			return sts[0], err
		}},
		{"RequestGetStatus", func(r *mpi.Request) (mpi.Status, error) {
			for {
				st, done, err := mpi.RequestGetStatus(r)
				if done || err != nil {
					return st, err
				}
			}
		}},
	}
	for i, tt := range report {
		got := bytes.Repeat([]byte{0xee}, 12)
		r, err := mpi.IrecvType(w, got[2:], 1, col, 0, 40+i)
		if err != nil {
			t.Fatal(err)
		}
		three, _ := mpi.TypeContiguous(3, mpi.Int8)
		if err := mpi.SendType(w, m[1:], 1, col, 0, 40+i); err != nil {
			t.Fatal(err)
		}
		st, err := tt.done(r)
		want := []byte{0xee, 0xee, 1, 0xee, 0xee, 0xee, 11, 0xee, 0xee, 0xee, 21, 0xee}
		if err != nil || st.Bytes != 3 || mpi.GetCountType(st, col) != 1 || !bytes.Equal(got, want) {
			t.Errorf("%s: %v %+v %v", tt.name, got, st, err)
		}
		back := make([]byte, 3)
		r, _ = mpi.IsendType(w, got[2:], 1, col, 0, 50+i)
		if _, err := mpi.RecvType(w, back, 1, three, 0, 50+i); err != nil || !bytes.Equal(back, []byte{1, 11, 21}) {
			t.Errorf("%s back: %v %v", tt.name, back, err)
		}
		r.Wait()
	}

	src := []byte{1, 0, 0, 0, 2, 0, 0, 0, 3}
	dst := make([]byte, 9)
	s, err := mpi.SendTypeInit(w, src, 1, col, 0, 60)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := mpi.RecvTypeInit(w, dst, 1, col, 0, 60)
	if err != nil {
		t.Fatal(err)
	}
	for round := range 3 {
		src[0], src[4], src[8] = byte(round), byte(round+10), byte(round+20)
		if err := mpi.Startall(rr, s); err != nil {
			t.Fatal(err)
		}
		if _, err := mpi.Waitall(s, rr); err != nil {
			t.Fatal(err)
		}
		if dst[0] != byte(round) || dst[4] != byte(round+10) || dst[8] != byte(round+20) {
			t.Errorf("round %d: %v", round, dst)
		}
		dst[0], dst[4], dst[8] = 0xee, 0xee, 0xee
	}

	// A message ending inside an element: the elements it covers and
	// the start of the next are filled.
	pair, _ := mpi.TypeStruct([]int{1, 1}, []int{0, 4}, []*mpi.Datatype{mpi.Int16, mpi.Int32})
	into := bytes.Repeat([]byte{0xee}, 16)
	r, _ := mpi.IrecvType(w, into, 2, pair, 0, 61)
	mpi.Send(w, []byte{1, 2, 3, 4, 5, 6, 7, 8}, 0, 61)
	st, err := r.Wait()
	if err != nil || mpi.GetCountType(st, pair) != mpi.Undefined || mpi.GetElements(st, pair) != 3 ||
		!bytes.Equal(into, []byte{1, 2, 0xee, 0xee, 3, 4, 5, 6, 7, 8, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee}) {
		t.Errorf("partial: %v %+v %v", into, st, err)
	}
	// Cancel of a typed receive.
	r, _ = mpi.IrecvType(w, into, 1, pair, 0, 62)
	r.Cancel()
	if st, err := r.Wait(); err != nil || !st.Cancelled {
		t.Errorf("cancel: %+v %v", st, err)
	}
	// Argument errors come at once.
	if _, err := mpi.IrecvType(w, into[:5], 1, pair, 0, 0); mpi.Class(err) != mpi.ErrBuffer {
		t.Errorf("short buffer: %v", err)
	}
	if _, err := mpi.SendTypeInit(w, into, 1, nil, 0, 0); mpi.Class(err) != mpi.ErrType {
		t.Errorf("nil type: %v", err)
	}
	if _, err := mpi.RecvTypeInit(w, into, -1, pair, 0, 0); mpi.Class(err) != mpi.ErrCount {
		t.Errorf("negative count: %v", err)
	}
}
