package mpi_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/mpi"
)

func TestGrequest(t *testing.T) {
	var calls []string
	cancelled := false
	r, err := mpi.GrequestStart(
		func() (mpi.Status, error) {
			calls = append(calls, "query")
			return mpi.Status{Source: 0, Tag: 3, Bytes: 24, Cancelled: cancelled}, nil
		},
		func() error { calls = append(calls, "free"); return nil },
		func(complete bool) error {
			calls = append(calls, "cancel")
			if complete {
				t.Error("cancel says complete before GrequestComplete")
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if _, done, err := r.Test(); done || err != nil {
		t.Fatalf("test before complete: %v %v", done, err)
	}
	if err := r.Cancel(); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(5 * time.Millisecond)
		cancelled = true // what MPI_Status_set_cancelled does in C
		if err := mpi.GrequestComplete(r); err != nil {
			t.Error(err)
		}
	}()
	st, err := r.Wait()
	if err != nil || st.Tag != 3 || st.Bytes != 24 || !st.Cancelled {
		t.Errorf("wait: %+v %v", st, err)
	}
	if len(calls) != 3 || calls[0] != "cancel" || calls[1] != "query" || calls[2] != "free" {
		t.Errorf("callbacks %v", calls)
	}
	if err := mpi.GrequestComplete(r); mpi.Class(err) != mpi.ErrRequest {
		t.Errorf("complete twice: %v", err)
	}
	if err := mpi.GrequestComplete(nil); mpi.Class(err) != mpi.ErrRequest {
		t.Errorf("complete of nil: %v", err)
	}
}

func TestGrequestErrorsAndWaitall(t *testing.T) {
	bad := errors.New("the device failed")
	g, _ := mpi.GrequestStart(func() (mpi.Status, error) { return mpi.Status{}, bad }, nil, nil)
	ok, _ := mpi.GrequestStart(nil, nil, nil)
	buf := make([]int8, 1)
	rr, _ := mpi.Irecv(mpi.World, buf, 0, 81)
	mpi.Send(mpi.World, []int8{7}, 0, 81)
	mpi.GrequestComplete(g)
	mpi.GrequestComplete(ok)
	if err := ok.Cancel(); err != nil { // no cancel callback: nothing happens
		t.Error(err)
	}
	sts, err := mpi.Waitall(g, ok, rr)
	if mpi.Class(err) != mpi.ErrInStatus || !errors.Is(sts[0].Err, bad) || sts[1].Err != nil || sts[2].Err != nil || buf[0] != 7 {
		t.Errorf("waitall: %+v %v", sts, err)
	}
	if sts[1].Source != mpi.AnySource {
		t.Errorf("no query: %+v", sts[1])
	}
	free := errors.New("free failed")
	f, _ := mpi.GrequestStart(nil, func() error { return free }, nil)
	mpi.GrequestComplete(f)
	if _, err := f.Wait(); !errors.Is(err, free) {
		t.Errorf("free's error: %v", err)
	}
}
