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
	Owner      any
	next, prev *Recv
	queued     bool
}

// Message is an unexpected message. Embed it in the transport's record of
// the message (envelope, buffered body or rendezvous state).
type Message struct {
	Key Key
	// Owner is the caller's object for this message.
	Owner      any
	next, prev *Message
	queued     bool
}

// Queued reports whether the receive is waiting in the engine.
func (r *Recv) Queued() bool { return r.queued }

// Queued reports whether the message is waiting in the engine.
func (m *Message) Queued() bool { return m.queued }

type bucket struct {
	recvHead, recvTail *Recv
	msgHead, msgTail   *Message
}

// Engine is the matching engine.
type Engine struct {
	buckets map[uint32]*bucket
	// The last bucket looked up: most traffic stays in one context.
	lastCtx uint32
	last    *bucket
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
	for m := b.msgHead; m != nil; m = m.next {
		if r.Key.matches(m.Key) {
			b.unlinkMsg(m)
			return m
		}
	}
	b.appendRecv(r)
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
	for r := b.recvHead; r != nil; r = r.next {
		if r.Key.matches(k) {
			b.unlinkRecv(r)
			return r
		}
	}
	return nil
}

// Enqueue appends an unmatched message to the unexpected queue.
func (e *Engine) Enqueue(m *Message) {
	e.bucket(m.Key.Context).appendMsg(m)
}

// Probe returns the oldest unexpected message a receive with key would
// match, without removing it.
func (e *Engine) Probe(k Key) *Message {
	b := e.buckets[k.Context]
	if b == nil {
		return nil
	}
	for m := b.msgHead; m != nil; m = m.next {
		if k.matches(m.Key) {
			return m
		}
	}
	return nil
}

// Find returns the oldest unexpected message of a context for which keep
// returns true, without removing it.
func (e *Engine) Find(ctx uint32, keep func(*Message) bool) *Message {
	b := e.buckets[ctx]
	if b == nil {
		return nil
	}
	for m := b.msgHead; m != nil; m = m.next {
		if keep(m) {
			return m
		}
	}
	return nil
}

// Take removes a message found by Probe (a matched probe).
func (e *Engine) Take(m *Message) {
	if m.queued {
		e.buckets[m.Key.Context].unlinkMsg(m)
	}
}

// Cancel removes a posted receive that has not matched. It reports
// whether the receive was still queued (and so is now cancelled).
func (e *Engine) Cancel(r *Recv) bool {
	if !r.queued {
		return false
	}
	e.buckets[r.Key.Context].unlinkRecv(r)
	return true
}

// Drop forgets a context (a freed communicator) and returns how many
// receives and messages were still queued in it.
func (e *Engine) Drop(ctx uint32) (recvs, msgs int) {
	b := e.buckets[ctx]
	if b == nil {
		return 0, 0
	}
	for r := b.recvHead; r != nil; {
		next := r.next
		r.next, r.prev, r.queued = nil, nil, false
		recvs++
		r = next
	}
	for m := b.msgHead; m != nil; {
		next := m.next
		m.next, m.prev, m.queued = nil, nil, false
		msgs++
		m = next
	}
	delete(e.buckets, ctx)
	if e.last == b {
		e.last = nil
	}
	return recvs, msgs
}

func (b *bucket) appendRecv(r *Recv) {
	r.prev, r.next, r.queued = b.recvTail, nil, true
	if b.recvTail != nil {
		b.recvTail.next = r
	} else {
		b.recvHead = r
	}
	b.recvTail = r
}

func (b *bucket) unlinkRecv(r *Recv) {
	if r.prev != nil {
		r.prev.next = r.next
	} else {
		b.recvHead = r.next
	}
	if r.next != nil {
		r.next.prev = r.prev
	} else {
		b.recvTail = r.prev
	}
	r.next, r.prev, r.queued = nil, nil, false
}

func (b *bucket) appendMsg(m *Message) {
	m.prev, m.next, m.queued = b.msgTail, nil, true
	if b.msgTail != nil {
		b.msgTail.next = m
	} else {
		b.msgHead = m
	}
	b.msgTail = m
}

func (b *bucket) unlinkMsg(m *Message) {
	if m.prev != nil {
		m.prev.next = m.next
	} else {
		b.msgHead = m.next
	}
	if m.next != nil {
		m.next.prev = m.prev
	} else {
		b.msgTail = m.prev
	}
	m.next, m.prev, m.queued = nil, nil, false
}
