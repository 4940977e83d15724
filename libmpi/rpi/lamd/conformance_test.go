package lamd_test

import (
	"sync"
	"testing"

	"github.com/lamgo/lam/libmpi/internal/wireup"
	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/libmpi/rpi/lamd"
	"github.com/lamgo/lam/libmpi/rpi/rpitest"
	"github.com/lamgo/lam/shared/kernel/kerneltest"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/wire"
)

// lamdJobs runs every job's processes through real lamds of an
// in-process universe of nodes nodes: process i is on node i%nodes, with a
// connection to its lamd and a pid of its own (the lamds address
// processes by node and pid).
func lamdJobs(t testing.TB, nodes int) func(testing.TB, []*rpi.Job) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: nodes})
	u.WaitLinked(t)
	var mu sync.Mutex
	next := 1 << 24
	return func(tb testing.TB, jobs []*rpi.Job) {
		mu.Lock()
		defer mu.Unlock()
		for _, j := range jobs {
			next++
			j.PID = next
			j.Node = int32(j.Rank % nodes)
			cl, err := lamclient.Dial(tb.Context(), u.Dir(int(j.Node)), "rpitest", wire.RoleMPI)
			if err != nil {
				tb.Fatal(err)
			}
			tb.Cleanup(func() { cl.Close() })
			j.OOB = wireup.NewOOB(cl, j.PID)
		}
	}
}

// The lamds hold a process's messages up to a bound, then hold its
// senders back (beyond what the suite calls bounded). A process's links learn nothing of a peer's close or
// death (LAM's mpirun ends the job instead).
func TestConformance(t *testing.T) {
	rpitest.Run(t, rpitest.Factory{Module: lamd.Module{}, Job: lamdJobs(t, 1)})
}

// Between two nodes every message crosses a link between the lamds.
func TestConformanceTwoNodes(t *testing.T) {
	rpitest.Run(t, rpitest.Factory{Module: lamd.Module{}, Job: lamdJobs(t, 2)})
}
