package lamd

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/libmpi/rpi/rpitest"
)

// fakeOOB is an in-memory stand-in for the lamds' out-of-band channel: a
// queue per (node, pid) and message type, holding at most limit bytes
// not yet received (the lamd's per-process queue limit), beyond which
// Send reports rpi.ErrOOBFull as the lamd does.
type fakeOOB struct {
	mu     sync.Mutex
	limit  int
	queues map[oobAddr]*oobQueue
}

type oobAddr struct {
	node int32
	pid  int
	typ  int32
}

type oobQueue struct {
	msgs  [][]byte
	bytes int
	ready chan struct{} // closed and replaced when a message is queued
}

func newFakeOOB(limit int) *fakeOOB {
	return &fakeOOB{limit: limit, queues: map[oobAddr]*oobQueue{}}
}

func (f *fakeOOB) queue(a oobAddr) *oobQueue {
	q := f.queues[a]
	if q == nil {
		q = &oobQueue{ready: make(chan struct{})}
		f.queues[a] = q
	}
	return q
}

// endpoint is one process's view of the channel.
type endpoint struct {
	f    *fakeOOB
	node int32
	pid  int
}

func (e endpoint) Send(ctx context.Context, node int32, pid int, typ int32, msg []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	e.f.mu.Lock()
	defer e.f.mu.Unlock()
	q := e.f.queue(oobAddr{node, pid, typ})
	if q.bytes > 0 && q.bytes+len(msg) > e.f.limit {
		return fmt.Errorf("to n%d pid %d: %w", node, pid, rpi.ErrOOBFull)
	}
	q.msgs = append(q.msgs, append([]byte(nil), msg...))
	q.bytes += len(msg)
	close(q.ready)
	q.ready = make(chan struct{})
	return nil
}

func (e endpoint) Recv(ctx context.Context, typ int32) ([]byte, error) {
	for {
		e.f.mu.Lock()
		q := e.f.queue(oobAddr{e.node, e.pid, typ})
		if len(q.msgs) > 0 {
			m := q.msgs[0]
			q.msgs[0] = nil
			q.msgs = q.msgs[1:]
			q.bytes -= len(m)
			e.f.mu.Unlock()
			return m, nil
		}
		ready := q.ready
		e.f.mu.Unlock()
		select {
		case <-ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// oobJobs gives every process of a job its own endpoint of one channel
// and a pid of its own (the channel addresses processes by node and pid).
func oobJobs(limit int) func(testing.TB, []*rpi.Job) {
	f := newFakeOOB(limit)
	var mu sync.Mutex
	next := 1 << 24
	return func(t testing.TB, jobs []*rpi.Job) {
		mu.Lock()
		defer mu.Unlock()
		for _, j := range jobs {
			next++
			j.PID = next
			j.OOB = endpoint{f: f, node: j.Node, pid: j.PID}
		}
	}
}

// The channel buffers what has not been received up to a limit, but
// every process's transport takes its messages as they come: a writer is
// never held back. A process's links learn nothing of a peer's close or
// death (LAM's mpirun ends the job instead).
func TestConformance(t *testing.T) {
	rpitest.Run(t, rpitest.Factory{Module: Module{}, Job: oobJobs(4 << 20)})
}
