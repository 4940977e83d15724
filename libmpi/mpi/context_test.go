package mpi_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/internal/core"
	"github.com/lamgo/lam/libmpi/mpi"
)

// A receive that never matches gives up at its deadline, cancelled: the
// message sent afterwards goes to the next receive, not to the abandoned
// one.
func TestRecvContextDeadline(t *testing.T) {
	w := mpi.World
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	buf := []int32{0}
	st, err := mpi.RecvContext(ctx, w, buf, 0, 31)
	if !errors.Is(err, context.DeadlineExceeded) || mpi.Class(err) != mpi.ErrOther || !st.Cancelled {
		t.Fatalf("RecvContext: %+v %v", st, err)
	}
	mpi.Send(w, []int32{7}, 0, 31)
	if st, err := mpi.RecvContext(context.Background(), w, buf, 0, 31); err != nil || buf[0] != 7 || st.Bytes != 4 {
		t.Errorf("the next receive: %v %+v %v", buf, st, err)
	}
	// A context that never ends: the plain receive.
	mpi.Send(w, []int32{8}, 0, 32)
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	if _, err := mpi.RecvContext(ctx2, w, buf, 0, 32); err != nil || buf[0] != 8 {
		t.Errorf("a receive that matches at once: %v %v", buf, err)
	}
}

// WaitContext gives up with ErrPending and leaves the request active.
func TestWaitContext(t *testing.T) {
	w := mpi.World
	buf := []byte{0}
	r, err := mpi.Irecv(w, buf, 0, 33)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := r.WaitContext(ctx); !errors.Is(err, context.DeadlineExceeded) || mpi.Class(err) != mpi.ErrPending {
		t.Fatalf("WaitContext: %v", err)
	}
	mpi.Send(w, []byte{9}, 0, 33)
	if st, err := r.WaitContext(context.Background()); err != nil || buf[0] != 9 || st.Bytes != 1 {
		t.Errorf("waited again: %v %+v %v", buf, st, err)
	}
	if st, err := r.WaitContext(ctx); err != nil || st.Source != mpi.AnySource {
		t.Errorf("an inactive request: %+v %v", st, err)
	}
}

func TestProbeAndSendContext(t *testing.T) {
	w := mpi.World
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := mpi.ProbeContext(ctx, w, 0, 34); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("ProbeContext: %v", err)
	}
	// To itself, a send leaves at once, whatever the context says.
	done, stop := context.WithCancel(context.Background())
	stop()
	if err := mpi.SendContext(done, w, []int64{1, 2}, 0, 34); err != nil {
		t.Errorf("SendContext: %v", err)
	}
	got := []int64{0, 0}
	if _, err := mpi.RecvContext(done, w, got, 0, 34); err != nil || got[1] != 2 {
		t.Errorf("a receive whose message is there, with a done context: %v %v", got, err)
	}
}

// After Init, a failed call's error reaches the core's cause.
func TestErrorReachesCore(t *testing.T) {
	mpi.Send(mpi.World, []int64{1, 2, 3}, 0, 35)
	_, err := mpi.Recv(mpi.World, make([]int64, 1), 0, 35)
	if mpi.Class(err) != mpi.ErrTruncate || !errors.Is(err, core.ErrTruncate) {
		t.Errorf("truncation: %v", err)
	}
	var me *mpi.Error
	if !errors.As(err, &me) || me.Err == nil {
		t.Errorf("errors.As: %#v", me)
	}
}
