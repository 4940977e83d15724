// Package colladapter gives the coll modules a communicator's
// point-to-point on its hidden context (coll.Transport), over the core
// engine. The mpi package makes one per communicator that runs a
// collective.
package colladapter

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/internal/comm"
	"github.com/lamgo/lam/libmpi/internal/core"
)

// Owner is what only the API's communicator can do for its collectives.
type Owner interface {
	// Split makes a hidden sub-communicator (none for a negative color)
	// and returns its collectives.
	Split(color, key int) (*coll.Comm, error)
	// Local is the collectives of an intercommunicator's local group.
	Local() *coll.Comm
	// Free releases a sub-communicator made by Split.
	Free() error
}

// Transport is a communicator's point-to-point on its hidden context.
type Transport struct {
	Engine *core.Engine
	Comm   comm.Comm
	Remote []int   // an intercommunicator's remote group in world ranks; nil for an intracommunicator
	Nodes  []int32 // world rank → node
	Label  string  // the communicator's name, for messages
	Owner  Owner
	// Shared is the job's path prefix for what its processes of a node
	// share ("" outside a job), and PIDs the world ranks' process ids.
	Shared string
	PIDs   []int32
	// Oversub says that the job's processes of this node outnumber the
	// processors they may run on (wireup.Process.Oversubscribed).
	Oversub bool
}

var _ interface {
	coll.Transport
	coll.Receiver
	coll.Sharer
	coll.Progressor
} = (*Transport)(nil)

func (t *Transport) Rank() int       { return t.Comm.Rank }
func (t *Transport) Size() int       { return len(t.Comm.Group) }
func (t *Transport) Name() string    { return t.Label }
func (t *Transport) RemoteSize() int { return len(t.Remote) }

func (t *Transport) Node(r int) int32 {
	if r < 0 || r >= len(t.Comm.Group) || t.Comm.Group[r] >= len(t.Nodes) {
		return -1
	}
	return t.Nodes[t.Comm.Group[r]]
}

// SharedPath names the communicator's shared-memory area on this node:
// the job's prefix, the node, the communicator's context id and the world
// rank of its rank 0. Disjoint communicators may share a context id (the
// groups of a Split), but not a context id and a process.
func (t *Transport) SharedPath() string {
	if t.Shared == "" || len(t.Remote) > 0 || len(t.Comm.Group) == 0 {
		return ""
	}
	return fmt.Sprintf("%sn%d-coll-%x-%d", t.Shared, t.Node(t.Comm.Rank), t.Comm.Context, t.Comm.Group[0])
}

// PID is the process id of rank r, 0 if unknown.
func (t *Transport) PID(r int) int {
	if r < 0 || r >= len(t.Comm.Group) || t.Comm.Group[r] >= len(t.PIDs) {
		return 0
	}
	return int(t.PIDs[t.Comm.Group[r]])
}

// Oversubscribed says that the job's processes of this node outnumber
// the processors they may run on.
func (t *Transport) Oversubscribed() bool { return t.Oversub }

func (t *Transport) Split(color, key int) (*coll.Comm, error) { return t.Owner.Split(color, key) }
func (t *Transport) Local() *coll.Comm                        { return t.Owner.Local() }
func (t *Transport) Free() error                              { return t.Owner.Free() }

// world returns the world rank of a destination or source (of the remote
// group, on an intercommunicator), or the wildcard or ProcNull unchanged.
func (t *Transport) world(rank int, wildcard bool) (int, error) {
	group := t.Comm.Group
	if t.Remote != nil {
		group = t.Remote
	}
	switch {
	case rank == core.ProcNull:
		return core.ProcNull, nil
	case wildcard && rank == core.AnySource:
		return core.AnySource, nil
	case rank < 0 || rank >= len(group):
		return 0, coll.Errorf(coll.ErrRank, "%s: rank %d is not in a group of %d", t.Label, rank, len(group))
	}
	return group[rank], nil
}

// request is a collective's send or receive. They come from a pool and go
// back to it once waited for (coll waits for each once), so a collective
// allocates no requests.
type request struct {
	e *core.Engine
	r core.Request
}

var requests = sync.Pool{New: func() any { return new(request) }}

// Done reports whether the request has completed (coll.Tester).
func (q *request) Done() bool { return q.r.Done() }

func (q *request) Wait() (coll.Status, error) {
	if err := q.e.Wait(context.Background(), &q.r); err != nil {
		return coll.Status{}, err // still in the engine's hands: not reused
	}
	src, tag, n, _, err := q.r.Result()
	q.r = core.Request{}
	requests.Put(q)
	return coll.Status{Source: src, Tag: tag, Count: n}, collErr(err)
}

// collErr is a collective's error for a receive's: one that wraps
// coll.ErrTruncated, or the core's.
func collErr(err error) error {
	if err != nil && errors.Is(err, core.ErrTruncate) {
		return fmt.Errorf("%w: %w", coll.ErrTruncated, err)
	}
	return err
}

// sent is a collective's eager send that left at once.
type sent struct{}

func (sent) Wait() (coll.Status, error) { return coll.Status{}, nil }
func (sent) Done() bool                 { return true }

// progresses holds each engine's progress of nonblocking collectives.
var progresses sync.Map // *core.Engine → *coll.Progress

// boardNap is the longest a Waitany, Waitsome or Waitall over a board's
// collective and other requests sleeps before it looks at the board
// again (coll.Until): its end is another process's store in shared
// memory, which wakes no link (the engine's own nap is 10 ms).
const boardNap = 200 * time.Microsecond

// Progress is the progress of the nonblocking collectives of t's engine
// (coll.Progressor): its goroutine waits behind the program
// (core.Engine.WaitBehind: a few polls of the links, then asleep until
// one can move bytes), so that the processor stays with the program's
// computation; a caller in Wait waits as the blocking collectives do
// (core.Engine.WaitAny: spinning, then yielding, then asleep).
func (t *Transport) Progress() *coll.Progress {
	if p, ok := progresses.Load(t.Engine); ok {
		return p.(*coll.Progress)
	}
	e := t.Engine
	p, _ := progresses.LoadOrStore(e, coll.NewProgress(func(cond func() bool) error {
		return e.WaitBehind(context.Background(), cond)
	}, func(cond func() bool) error {
		return e.WaitAny(context.Background(), cond)
	}, func(cond func() bool) error {
		return e.WaitNap(context.Background(), cond, boardNap)
	}))
	return p.(*coll.Progress)
}

func (t *Transport) Isend(buf []byte, dest, tag int) (coll.Request, error) {
	w, err := t.world(dest, false)
	if err != nil {
		return nil, err
	}
	e, ctx := t.Engine, comm.Hidden(t.Comm.Context)
	if e.SendNow(buf, w, t.Comm.Rank, tag, ctx) {
		return sent{}, nil
	}
	q := requests.Get().(*request)
	q.e = e
	e.InitSend(&q.r, buf, w, dest, t.Comm.Rank, tag, ctx, core.Standard)
	e.Start(&q.r)
	return q, nil
}

func (t *Transport) Irecv(buf []byte, src, tag int) (coll.Request, error) {
	if _, err := t.world(src, true); err != nil {
		return nil, err
	}
	q := requests.Get().(*request)
	q.e = t.Engine
	t.Engine.InitRecv(&q.r, buf, src, tag, comm.Hidden(t.Comm.Context))
	t.Engine.Start(&q.r)
	return q, nil
}

// Recv is the blocking receive of collectives.
func (t *Transport) Recv(buf []byte, src, tag int) (coll.Status, error) {
	if _, err := t.world(src, true); err != nil {
		return coll.Status{}, err
	}
	source, rtag, n, err := t.Engine.RecvNow(context.Background(), buf, src, tag, comm.Hidden(t.Comm.Context), nil)
	return coll.Status{Source: source, Tag: rtag, Count: n}, collErr(err)
}
