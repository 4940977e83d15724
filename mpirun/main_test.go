package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/launch"
)

// TestFailedAwaitsAbort: a rank's MPI_Abort report that arrives after its
// exit is what mpirun reports; without one, the exit is reported, at once
// for a rank that never called MPI_Init.
func TestFailedAwaitsAbort(t *testing.T) {
	abortErr := errors.New("rank 1 called MPI_Abort")
	for _, tc := range []struct {
		name    string
		inited  bool
		abortIn time.Duration // < 0: never
		want    error
		atMost  time.Duration // whether it waited the grace or not (bounds, not speed)
	}{
		{"abort after the exit", true, 50 * time.Millisecond, abortErr, 10 * abortGrace},
		{"abort before the exit", true, 0, abortErr, abortGrace},
		{"no abort", true, -1, nil, 10 * abortGrace},
		{"never initialised", false, -1, nil, abortGrace},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &wireup{inited: map[int]bool{1: tc.inited}, finalized: map[int]bool{}, aborted: map[int]error{}}
			record := func() {
				w.mu.Lock()
				w.aborted[1] = abortErr
				w.mu.Unlock()
			}
			switch {
			case tc.abortIn == 0:
				record()
			case tc.abortIn > 0:
				time.AfterFunc(tc.abortIn, record)
			}
			start := time.Now()
			got := w.failed(context.Background(), &launch.Proc{Rank: 1})
			if got != tc.want {
				t.Errorf("failed = %v, want %v", got, tc.want)
			}
			if d := time.Since(start); d > tc.atMost {
				t.Errorf("took %v, want at most %v", d, tc.atMost)
			}
		})
	}
}
