package mpi

import (
	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/internal/core"
	"github.com/lamgo/lam/libmpi/internal/task"
)

// The blocking calls record themselves for mpitask (libmpi/internal/task):
// each begins with one deferred line, `defer enterX(...).Leave()`.

func init() { task.CollName = func(k uint8) string { return coll.Kind(k).String() } }

// commKind tells mpitask whether c is WORLD or SELF.
func commKind(c *Comm) uint8 {
	switch c {
	case World:
		return task.CommWorld
	case Self:
		return task.CommSelf
	}
	return task.CommOther
}

// peerOf returns a peer rank of c as mpitask shows it, with its world
// rank (-1 when it is none or a wildcard).
func peerOf(c *Comm, rank int) (int32, int32) {
	switch {
	case rank == AnySource:
		return task.AnyPeer, -1
	case rank < 0:
		return task.NoPeer, -1
	}
	w, err := c.peer(rank, false)
	if err != nil {
		return int32(rank), -1
	}
	return int32(rank), int32(w)
}

// enterP2P records a blocking point-to-point call on peer and tag of c
// with count elements of type T.
func enterP2P[T any](fn task.Fn, c *Comm, peer, tag, count int) task.Mark {
	p, w := peerOf(c, peer)
	return task.Enter(fn, commKind(c), c.context, p, w, int32(tag), count, task.TypeOf[T]())
}

// sendFn is the call a blocking send of mode is.
func sendFn(mode core.SendMode) task.Fn {
	switch mode {
	case core.Sync:
		return task.Ssend
	case core.Ready:
		return task.Rsend
	}
	return task.Send
}

// enterWait records a wait on requests of c (nil: several communicators).
func enterWait(fn task.Fn, c *Comm) task.Mark {
	if c == nil {
		return task.Enter(fn, task.CommOther, 0, task.NoPeer, -1, task.NoTag, 0, task.TypeNone)
	}
	return task.Enter(fn, commKind(c), c.context, task.NoPeer, -1, task.NoTag, 0, task.TypeNone)
}

// enterWaitFor records a wait on r (of c, or of several communicators if
// c is nil) only if r has not completed yet, or while tracing (a trace
// shows every call): a wait for a request already done costs nothing
// more. Its zero Mark's Leave does nothing.
func enterWaitFor(fn task.Fn, c *Comm, r *core.Request) task.Mark {
	if r.Done() && !task.Tracing() {
		return task.Mark{}
	}
	return enterWait(fn, c)
}

// enterColl records a blocking collective, for the whole call: while
// tracing (a trace has every call, waiting or not). Otherwise the coll
// framework says when the collective waits (collWait).
func enterColl(k *call) task.Mark { return enterCollOf(k.c, k.sig.Kind, k.sig.Root) }

// enterCollOf records a blocking collective of kind on c, with its root.
func enterCollOf(c *Comm, kind coll.Kind, root int) task.Mark {
	p, w := task.NoPeer, int32(-1)
	switch kind {
	case coll.Bcast, coll.Reduce, coll.Gather, coll.Gatherv, coll.Scatter, coll.Scatterv:
		p, w = peerOf(c, root)
	}
	return task.Enter(task.FnColl+task.Fn(kind), commKind(c), c.context, p, w, task.NoTag, 0, task.TypeNone)
}

// collWait is told by c's coll framework (coll.Comm.Watch) when a
// blocking collective of c begins (begin) and ends waiting for other
// processes: mpitask shows the process in the collective meanwhile, as
// it shows a receive while it waits. A collective that does not wait
// records nothing. It runs under the framework's lock, which guards
// c.cs.mark.
func (c *Comm) collWait(kind coll.Kind, root int, begin bool) {
	if !begin {
		c.cs.mark.Leave()
		c.cs.mark = task.Mark{}
		return
	}
	if task.Tracing() {
		return // the call recorded itself (enterColl)
	}
	c.cs.mark = enterCollOf(c, kind, root)
}
