package mpi

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/lamgo/lam/libmpi/internal/core"
	"github.com/lamgo/lam/libmpi/rpi"
)

// brokenLink fails every write and read with err.
type brokenLink struct{ err error }

func (l brokenLink) Read([]byte) (int, error)  { return 0, l.err }
func (l brokenLink) Write([]byte) (int, error) { return 0, l.err }
func (brokenLink) Fd() int                     { return -1 }
func (brokenLink) Close() error                { return nil }

// deadPeerErr is the error of a send to a peer whose link breaks with
// cause, as the core reports it.
func deadPeerErr(t *testing.T, cause error) error {
	t.Helper()
	e := core.New(core.Config{Rank: 0, Links: []rpi.Link{nil, brokenLink{cause}}})
	r := e.NewSend([]byte("x"), 1, 1, 0, 0, 0, core.Standard)
	e.Start(r)
	if err := e.Wait(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if r.Status().Err == nil {
		t.Fatal("a send on a broken link succeeded")
	}
	return r.Status().Err
}

// An MPI error keeps its cause: errors.Is reaches the core's error and
// the link's below it, and the class is what the cause says.
func TestErrorCauses(t *testing.T) {
	reset := deadPeerErr(t, syscall.ECONNRESET)
	tests := []struct {
		name    string
		err     error
		class   ErrorClass
		reaches []error
	}{
		{"dead peer", fromCore(reset), ErrProcFailed, []error{core.ErrDeadPeer, syscall.ECONNRESET}},
		{"truncation", fromCore(fmt.Errorf("recv: %w", core.ErrTruncate)), ErrTruncate, []error{core.ErrTruncate}},
		{"protocol", fromCore(core.ErrProtocol), ErrOther, []error{core.ErrProtocol}},
		{"errorf %w", errorf(ErrArg, "bad: %w", syscall.EINVAL), ErrArg, []error{syscall.EINVAL}},
		{"errorf two %w", errorf(ErrOther, "%w and %w", syscall.EINVAL, core.ErrDeadPeer), ErrOther, []error{syscall.EINVAL, core.ErrDeadPeer}},
		{"MPI error kept", fromCore(errorf(ErrRank, "rank")), ErrRank, nil},
		{"gave up", gaveUp(ErrPending, "wait", context.DeadlineExceeded), ErrPending, []error{context.DeadlineExceeded}},
	}
	for _, tt := range tests {
		if got := Class(tt.err); got != tt.class {
			t.Errorf("%s: class %v, want %v (%v)", tt.name, got, tt.class, tt.err)
		}
		if !errors.Is(tt.err, &Error{Class: tt.class}) {
			t.Errorf("%s: errors.Is by class fails", tt.name)
		}
		for _, want := range tt.reaches {
			if !errors.Is(tt.err, want) {
				t.Errorf("%s: %v does not reach %v", tt.name, tt.err, want)
			}
		}
	}
	if e := errorf(ErrArg, "plain %d", 3); e.Err != nil || e.Msg != "plain 3" {
		t.Errorf("errorf without a cause: %#v", e)
	}
	if ErrProcFailed.String() != "MPI_ERR_PROC_FAILED" || ErrLastCode <= ErrProcFailed {
		t.Errorf("ErrProcFailed is %v, ErrLastCode %d", ErrProcFailed, ErrLastCode)
	}
}
