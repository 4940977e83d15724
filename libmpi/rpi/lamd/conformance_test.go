package lamd

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/libmpi/rpi/rpitest"
	"github.com/lamgo/lam/shared/kernel/kerneltest"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/wire"
)

// fakePID numbers the test's processes, which all live in this one: the
// lamd addresses a process's messages by its pid.
var fakePID atomic.Int32

func init() { fakePID.Store(1 << 24) }

// daemonJobs gives every process of a job its own connection to the
// lamd of node 0 of u, and a pid of its own.
func daemonJobs(u *kerneltest.Universe) func(testing.TB, []*rpi.Job) {
	return func(t testing.TB, jobs []*rpi.Job) {
		for _, j := range jobs {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			c, err := lamclient.Dial(ctx, u.Dirs[0], "rpitest", wire.RoleMPI)
			cancel()
			if err != nil {
				t.Fatalf("rank %d: %v", j.Rank, err)
			}
			t.Cleanup(func() { c.Close() })
			j.Daemon, j.PID = c, int(fakePID.Add(1))
		}
	}
}

// The lamd buffers what it has not delivered up to a few MiB, but every
// process's transport takes its messages as they come: a writer is never
// held back. A process's links learn nothing of a peer's close or death
// (LAM's mpirun ends the job instead).
func TestConformance(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 1, OOBLimit: 4 << 20})
	rpitest.Run(t, rpitest.Factory{Module: Module{}, Job: daemonJobs(u)})
}
