package launch

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/wire"
)

// TestBlame checks the ordering rule: an MPI_Abort called on seeing a
// rank die reports that rank's failure, whether its exit is recorded
// before the abort is examined or while it waits; any other failure is
// reported at once. Events are fed through ends as wait feeds them; the
// results depend on no timing (a peer that never ends is given no grace).
func TestBlame(t *testing.T) {
	type event struct {
		rank int
		ex   *wire.Exited
	}
	killed := &wire.Exited{Signal: 9}
	abort := func(rank, dead int) *AbortError {
		return &AbortError{Rank: rank, Code: 1, Msg: "MPI_ERR_PROC_FAILED", Dead: dead}
	}
	sig9 := func(rank int) error { return fmt.Errorf("rank %d: signal 9", rank) }
	tests := []struct {
		name    string
		failed  error
		aborted map[int]error // what Failed finds for a rank that aborted
		before  []event       // recorded before blame runs
		during  []event       // recorded while it runs
		grace   time.Duration
		want    error
	}{
		{name: "peer's exit first", failed: abort(0, 1), before: []event{{1, killed}}, grace: time.Minute, want: sig9(1)},
		{name: "peer's exit after the abort", failed: abort(0, 1), during: []event{{1, killed}}, grace: time.Minute, want: sig9(1)},
		{name: "others' exits first", failed: abort(0, 1), before: []event{{2, killed}, {3, &wire.Exited{Status: 1}}}, during: []event{{1, killed}}, grace: time.Minute, want: sig9(1)},
		{name: "peer exited 0", failed: abort(0, 1), before: []event{{1, &wire.Exited{}}}, grace: time.Minute, want: abort(0, 1)},
		{name: "peer never ends", failed: abort(0, 1), grace: 0, want: abort(0, 1)},
		{name: "abort on no death", failed: abort(0, -1), grace: time.Minute, want: abort(0, -1)},
		{name: "abort naming itself", failed: abort(2, 2), grace: time.Minute, want: abort(2, 2)},
		{name: "not an abort", failed: sig9(3), grace: time.Minute, want: sig9(3)},
		{name: "peer aborted by itself", failed: abort(0, 1), aborted: map[int]error{1: abort(1, -1)},
			during: []event{{1, &wire.Exited{Status: 1}}}, grace: time.Minute, want: abort(1, -1)},
		{name: "chain of aborts", failed: abort(0, 1), aborted: map[int]error{1: abort(1, 2)},
			before: []event{{1, &wire.Exited{Status: 1}}}, during: []event{{2, killed}}, grace: time.Minute, want: sig9(2)},
		{name: "cycle of aborts", failed: abort(0, 1), aborted: map[int]error{1: abort(1, 0)},
			before: []event{{1, &wire.Exited{Status: 1}}, {0, &wire.Exited{Status: 1}}}, grace: time.Minute, want: abort(1, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnds()
			for _, ev := range tt.before {
				e.record(ev.rank, ev.ex, nil)
			}
			// As settle in wait: the failure of a rank that failed.
			end := func(ctx context.Context, rank int) error {
				got, ok := e.await(ctx, rank)
				if !ok || got.err != nil || got.ex.Signal == 0 && got.ex.Status == 0 {
					return nil
				}
				if err := tt.aborted[rank]; err != nil {
					return err
				}
				return sig9(rank)
			}
			go func() {
				for _, ev := range tt.during {
					e.record(ev.rank, ev.ex, nil)
				}
			}()
			done := make(chan error, 1)
			go func() { done <- blame(context.Background(), tt.failed, tt.grace, end) }()
			var got error
			select {
			case got = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("blame did not return")
			}
			if got.Error() != tt.want.Error() {
				t.Errorf("reported %q, want %q", got, tt.want)
			}
			var ae, wae *AbortError
			if errors.As(tt.want, &wae) && (!errors.As(got, &ae) || *ae != *wae) {
				t.Errorf("reported %+v, want %+v", got, wae)
			}
		})
	}
}

// An abort's wait for its dead peer ends with the caller's context.
func TestBlameCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e := newEnds()
	failed := &AbortError{Rank: 0, Code: 1, Dead: 1}
	got := blame(ctx, failed, time.Hour, func(ctx context.Context, rank int) error {
		if _, ok := e.await(ctx, rank); ok {
			t.Error("await reported an end never recorded")
		}
		return nil
	})
	if got != failed {
		t.Errorf("reported %v, want the abort", got)
	}
}
