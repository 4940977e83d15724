package kernel

import (
	"sync"

	"github.com/lamgo/lam/shared/wire"
)

// oobQueue holds out-of-band messages (LAM's nsend/nrecv) that arrived at
// this node before anyone asked for them, and the receivers waiting for
// one. Messages are matched in arrival order, so messages from one sender
// are received in the order they were sent.
type oobQueue struct {
	mu      sync.Mutex
	msgs    []*wire.Msg
	bytes   int64
	limit   int64
	waiters []*oobWaiter
	closed  bool
}

type oobWaiter struct {
	event, typ int32
	probe      bool
	ch         chan *wire.Msg // buffered 1
}

func (q *oobQueue) init(limit int64) { q.limit = limit }

// typesMatch is LAM's rule: types match when either is 0 or they share a
// bit.
func typesMatch(a, b int32) bool { return a == 0 || b == 0 || a&b != 0 }

// put delivers m to a waiting receiver or queues it. It reports false when
// the queue is full or closed.
func (q *oobQueue) put(m *wire.Msg) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	for i := 0; i < len(q.waiters); i++ {
		w := q.waiters[i]
		if w.event != m.Event || !typesMatch(w.typ, m.Type) {
			continue
		}
		q.waiters = append(q.waiters[:i], q.waiters[i+1:]...)
		i--
		w.ch <- m
		if !w.probe {
			return true
		}
	}
	if q.bytes+int64(len(m.Data)) > q.limit {
		return false
	}
	q.msgs = append(q.msgs, m)
	q.bytes += int64(len(m.Data))
	return true
}

// take returns the first matching queued message (removing it unless
// probe), or registers a waiter when there is none.
func (q *oobQueue) take(event, typ int32, probe, try bool) (*wire.Msg, *oobWaiter) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, m := range q.msgs {
		if m.Event == event && typesMatch(typ, m.Type) {
			if !probe {
				q.msgs = append(q.msgs[:i], q.msgs[i+1:]...)
				q.bytes -= int64(len(m.Data))
			}
			return m, nil
		}
	}
	if try || q.closed {
		return nil, nil
	}
	w := &oobWaiter{event: event, typ: typ, probe: probe, ch: make(chan *wire.Msg, 1)}
	q.waiters = append(q.waiters, w)
	return nil, w
}

// cancel forgets a waiter; a message handed to it meanwhile is queued
// again at the front, so it is not lost.
func (q *oobQueue) cancel(w *oobWaiter) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, x := range q.waiters {
		if x == w {
			q.waiters = append(q.waiters[:i], q.waiters[i+1:]...)
			return
		}
	}
	select {
	case m := <-w.ch:
		if !w.probe {
			q.msgs = append([]*wire.Msg{m}, q.msgs...)
			q.bytes += int64(len(m.Data))
		}
	default:
	}
}

// takeAll removes and returns, in order, the queued messages for event
// whose type takes says typ takes (a stream attaching takes them).
func (q *oobQueue) takeAll(event, typ int32, takes func(typ, t int32) bool) []*wire.Msg {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []*wire.Msg
	keep := q.msgs[:0]
	for _, m := range q.msgs {
		if m.Event == event && takes(typ, m.Type) {
			out = append(out, m)
			q.bytes -= int64(len(m.Data))
			continue
		}
		keep = append(keep, m)
	}
	clear(q.msgs[len(keep):])
	q.msgs = keep
	return out
}

// clear drops every queued message (lamclean).
func (q *oobQueue) clear() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.msgs, q.bytes = nil, 0
}

func (q *oobQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.msgs, q.bytes = nil, 0
}

// deliver serves a Send that reached its node.
func (k *Kernel) deliver(r *request, from *link, m *wire.Send) {
	src := k.cfg.Self
	if from != nil {
		src = from.node
	}
	msg := &wire.Msg{From: src, Event: m.Event, Type: m.Type, Data: m.Data}
	if k.deliverToStream(msg) {
		r.finish(&wire.OK{})
		return
	}
	if !k.oob.put(msg) {
		r.fail(wire.CodeFull, "n%d cannot hold more undelivered messages (limit %d bytes)", k.cfg.Self, k.oob.limit)
		return
	}
	r.finish(&wire.OK{})
}

// receive serves a Recv: it waits for a matching message.
func (k *Kernel) receive(r *request, m *wire.Recv) {
	msg, w := k.oob.take(m.Event, m.Type, m.Probe, m.Try)
	if msg != nil {
		r.finish(msg)
		return
	}
	if w == nil {
		r.fail(wire.CodeNoEntry, "no message with event %d and type %d", m.Event, m.Type)
		return
	}
	select {
	case msg := <-w.ch:
		r.finish(msg)
	case <-r.ctx.Done():
		k.oob.cancel(w)
		r.fail(wire.CodeCancelled, "receive cancelled")
	}
}
