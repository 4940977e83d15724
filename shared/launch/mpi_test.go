package launch

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/jobwire"
)

// TestFailedAwaitsAbort: a rank's MPI_Abort report that arrives after its
// exit is what mpirun reports; without one, the exit is reported, at once
// for a rank that never called MPI_Init.
func TestFailedAwaitsAbort(t *testing.T) {
	abortErr := &AbortError{Rank: 1, Code: 3, Msg: "test"}
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
		{"never initialised", false, -1, errNoInit, 2 * abortGrace},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWireup(jobwire.JobID{PID: 1}, nil)
			w.inited[1] = tc.inited
			record := func() { w.record(func() { w.aborted[1] = abortErr }) }
			switch {
			case tc.abortIn == 0:
				record()
			case tc.abortIn > 0:
				time.AfterFunc(tc.abortIn, record)
			}
			start := time.Now()
			got := w.failed(context.Background(), &Proc{Rank: 1})
			var ni *NoInitError
			if tc.want == errNoInit {
				if !errors.As(got, &ni) || ni.Rank != 1 {
					t.Errorf("failed = %v, want a *NoInitError", got)
				}
			} else if tc.want == nil && got != nil || tc.want != nil && !errors.Is(got, tc.want) {
				t.Errorf("failed = %v, want %v", got, tc.want)
			}
			if d := time.Since(start); d > tc.atMost {
				t.Errorf("took %v, want at most %v", d, tc.atMost)
			}
		})
	}
}

// TestExitedAwaitsFinalize: a rank that exited 0 is fine once its
// MPI_Finalize report arrives; without one it is reported, and an ended
// context ends the wait at once.
func TestExitedAwaitsFinalize(t *testing.T) {
	w := newWireup(jobwire.JobID{PID: 1}, nil)
	w.inited[0], w.inited[1] = true, true
	time.AfterFunc(20*time.Millisecond, func() { w.record(func() { w.finalized[0] = true }) })
	if err := w.exited(context.Background(), &Proc{Rank: 0}); err != nil {
		t.Errorf("finalized rank: %v", err)
	}
	var nf *NoFinalizeError
	if err := w.exited(context.Background(), &Proc{Rank: 1, PID: 7}); !errors.As(err, &nf) || nf.Rank != 1 || nf.PID != 7 {
		t.Errorf("rank without MPI_Finalize: %v, want a *NoFinalizeError", err)
	}
	var ni *NoInitError
	if err := w.exited(context.Background(), &Proc{Rank: 2, Node: 1, Program: "/bin/true"}); !errors.As(err, &ni) || ni.Node != 1 || ni.Program != "/bin/true" {
		t.Errorf("rank without MPI_Init: %v, want a *NoInitError", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	var ie *InterruptedError
	if err := w.exited(ctx, &Proc{Rank: 1}); !errors.As(err, &ie) {
		t.Errorf("cancelled wait: %v, want an *InterruptedError", err)
	}
	if d := time.Since(start); d >= finalizeGrace {
		t.Errorf("a cancelled wait took %v", d)
	}
}

func TestLAMEnviron(t *testing.T) {
	got := LAMEnviron([]string{"PATH=/bin", "LAM_MPI_SSI_rpi=tcp", "LAM_MPI_SESSION_PREFIX=/tmp", "LAM_MPI_SESSION_SUFFIX=s"})
	if len(got) != 2 || got[0] != "LAM_MPI_SSI_rpi=tcp" || got[1] != "LAM_MPI_SESSION_SUFFIX=s" {
		t.Errorf("LAMEnviron = %q", got)
	}
}

// errNoInit stands for "a *NoInitError" in the table of TestFailedAwaitsAbort.
var errNoInit = errors.New("no init")
