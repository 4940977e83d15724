// Package match is the one matching engine of the MPI library: every
// transport hands it the envelopes that arrive, every receive and probe
// asks it, so the rules are the same whatever carries the bytes (the
// LA-MPI lesson).
//
// It keeps, per communicator context, the receives posted and not yet
// matched and the messages that arrived before any receive wanted them
// (the unexpected queue). Both are FIFO, which with FIFO transports gives
// MPI's non-overtaking rule: two messages from one sender on one
// communicator match receives in the order they were sent. Wildcards
// (AnySource, AnyTag) are allowed on the receive side only.
//
// The queues are intrusive lists: matching allocates nothing. The engine is
// not safe for concurrent use; the caller serialises access (the progress
// lock).
package match

import "unsafe"

// Wildcards for a receive's source and tag.
const (
	AnySource = -1
	AnyTag    = -1
)

// Key addresses a message: communicator context, source rank in that
// communicator, tag.
type Key struct {
	Context uint32
	Source  int32
	Tag     int32
}

// matches reports whether a receive key (which may hold wildcards)
// accepts a message key (which may not).
func (want Key) matches(got Key) bool {
	return want.Context == got.Context &&
		(want.Source == AnySource || want.Source == got.Source) &&
		(want.Tag == AnyTag || want.Tag == got.Tag)
}

// Recv is a posted receive. Embed it in the request; the engine links it.
type Recv struct {
	Key Key
	// Owner is the caller's object for this receive (its request).
	Owner any
	link  link[Recv]
}

// Message is an unexpected message. Embed it in the transport's record of
// the message (envelope, buffered body or rendezvous state).
type Message struct {
	Key Key
	// Owner is the caller's object for this message.
	Owner any
	link  link[Message]
}

// Queued reports whether the receive is waiting in the engine.
func (r *Recv) Queued() bool { return r.link.queued() }

// Queued reports whether the message is waiting in the engine.
func (m *Message) Queued() bool { return m.link.queued() }

// bucket holds one context's queues.
type bucket struct {
	recvs list[Recv]
	msgs  list[Message]
}

// Engine is the matching engine.
type Engine struct {
	buckets map[uint32]*bucket
	// The last bucket looked up: most traffic stays in one context.
	lastCtx uint32
	last    *bucket
	// queued counts the unexpected messages in every bucket, most the
	// greatest count so far.
	queued, most int
}

// New returns an empty engine.
func New() *Engine { return &Engine{buckets: map[uint32]*bucket{}} }

func (e *Engine) bucket(ctx uint32) *bucket {
	b := e.find(ctx)
	if b == nil {
		b = &bucket{}
		e.buckets[ctx] = b
		e.lastCtx, e.last = ctx, b
	}
	return b
}

// find returns the context's bucket, or nil.
func (e *Engine) find(ctx uint32) *bucket {
	if e.last != nil && e.lastCtx == ctx {
		return e.last
	}
	b := e.buckets[ctx]
	if b != nil {
		e.lastCtx, e.last = ctx, b
	}
	return b
}

// Post offers a receive. If an unexpected message matches, the oldest such
// message is removed and returned, and the receive is not queued.
// Otherwise the receive is queued and nil returned.
func (e *Engine) Post(r *Recv) *Message {
	b := e.bucket(r.Key.Context)
	if n := b.msgs.find(func(m *Message) bool { return r.Key.matches(m.Key) }); n != nil {
		e.queued--
		return b.msgs.remove(n)
	}
	b.recvs.push(&r.link, r)
	return nil
}

// Arrive offers an incoming message. If a posted receive matches, the
// oldest such receive is removed and returned. Otherwise nil is returned
// and the caller, if it keeps the message, must Enqueue it.
func (e *Engine) Arrive(k Key) *Recv {
	b := e.find(k.Context)
	if b == nil {
		return nil
	}
	if n := b.recvs.find(func(r *Recv) bool { return r.Key.matches(k) }); n != nil {
		return b.recvs.remove(n)
	}
	return nil
}

// Enqueue appends an unmatched message to the unexpected queue.
func (e *Engine) Enqueue(m *Message) {
	e.bucket(m.Key.Context).msgs.push(&m.link, m)
	e.queued++
	e.most = max(e.most, e.queued)
}

// Unexpected reports how many unexpected messages are queued now, in
// every context, and the most that ever were.
func (e *Engine) Unexpected() (now, most int) { return e.queued, e.most }

// Probe returns the oldest unexpected message a receive with key would
// match, without removing it.
func (e *Engine) Probe(k Key) *Message {
	return e.Find(k.Context, func(m *Message) bool { return k.matches(m.Key) })
}

// Find returns the oldest unexpected message of a context for which keep
// returns true, without removing it.
func (e *Engine) Find(ctx uint32, keep func(*Message) bool) *Message {
	b := e.buckets[ctx]
	if b == nil {
		return nil
	}
	if n := b.msgs.find(keep); n != nil {
		return n.elem
	}
	return nil
}

// Take removes a message found by Probe (a matched probe).
func (e *Engine) Take(m *Message) {
	if m.Queued() {
		e.buckets[m.Key.Context].msgs.remove(&m.link)
		e.queued--
	}
}

// Cancel removes a posted receive that has not matched. It reports
// whether the receive was still queued (and so is now cancelled).
func (e *Engine) Cancel(r *Recv) bool {
	if !r.Queued() {
		return false
	}
	e.buckets[r.Key.Context].recvs.remove(&r.link)
	return true
}

// Drop forgets a context (a freed communicator) and returns how many
// receives and messages were still queued in it.
func (e *Engine) Drop(ctx uint32) (recvs, msgs int) {
	b := e.buckets[ctx]
	if b == nil {
		return 0, 0
	}
	recvs, msgs = b.recvs.clear(), b.msgs.clear()
	e.queued -= msgs
	delete(e.buckets, ctx)
	if e.last == b {
		e.last = nil
	}
	return recvs, msgs
}

// Heads returns the addresses of a context's two queue heads, posted
// receives and unexpected messages, each nil while its queue is empty,
// for a reader outside Go (libmpi.so's C fast path) that holds the
// caller's lock. The context's bucket is made if need be; the addresses
// hold until the context is dropped.
func (e *Engine) Heads(ctx uint32) (recvs, msgs *unsafe.Pointer) {
	b := e.bucket(ctx)
	return (*unsafe.Pointer)(unsafe.Pointer(&b.recvs.head)), (*unsafe.Pointer)(unsafe.Pointer(&b.msgs.head))
}
