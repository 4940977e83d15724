package core

import (
	"context"
	"slices"

	"github.com/lamgo/lam/libmpi/internal/match"
)

// Message is a message a matched probe took from the matching engine
// (MPI_Message): no receive can match it any more, only the Mrecv given
// it. A rendezvous message's body stays with its sender until then: the
// clear-to-send leaves when Mrecv gives the buffer.
type Message struct {
	u      *unexpected // nil once received
	status Status
}

// Status describes the message (Count in bytes).
func (m *Message) Status() Status { return m.status }

// take removes the oldest unexpected message a receive with key would
// match. The caller holds the progress lock.
func (e *Engine) take(k match.Key) *Message {
	mm := e.match.Probe(k)
	if mm == nil {
		return nil
	}
	e.match.Take(mm)
	u := mm.Owner.(*unexpected)
	e.taken = append(e.taken, u)
	return &Message{u: u, status: u.status()}
}

// Improbe takes a message matching (context, source, tag) if one has
// arrived: the matched probe that does not wait.
func (e *Engine) Improbe(context uint32, source, tag int) (*Message, bool) {
	e.mu.Lock()
	e.progress()
	m := e.take(match.Key{Context: context, Source: int32(source), Tag: int32(tag)})
	e.mu.Unlock()
	e.Tested(m != nil)
	return m, m != nil
}

// Mprobe waits for a message matching (context, source, tag) and takes
// it. A message taken is always returned, even if ctx ends meanwhile.
func (e *Engine) Mprobe(ctx context.Context, context uint32, source, tag int) (*Message, error) {
	k := match.Key{Context: context, Source: int32(source), Tag: int32(tag)}
	var m *Message
	err := e.waitFor(ctx, func() bool {
		e.mu.Lock()
		if m == nil {
			m = e.take(k)
		}
		e.mu.Unlock()
		return m != nil
	}, true, false)
	if m != nil {
		return m, nil
	}
	return nil, err
}

// Imrecv starts receiving a message a matched probe took into buf; it
// returns nil if the message was received already.
func (e *Engine) Imrecv(buf []byte, m *Message) *Request {
	e.mu.Lock()
	defer e.mu.Unlock()
	u := m.u
	if u == nil {
		return nil
	}
	m.u = nil
	e.untake(u)
	r := new(Request)
	e.InitRecv(r, buf, m.status.Source, m.status.Tag, u.hdr.context)
	r.reset()
	if u.self == nil && u.from != e.self {
		r.peer = u.from
	}
	e.matchUnexpected(r, u)
	return r
}

// status is what a probe of the unexpected message reports.
func (u *unexpected) status() Status {
	return Status{Source: int(u.hdr.source), Tag: int(u.hdr.tag), Count: int(u.hdr.length)}
}

// untake forgets u, a taken message being received.
func (e *Engine) untake(u *unexpected) {
	if i := slices.Index(e.taken, u); i >= 0 {
		e.taken = slices.Delete(e.taken, i, i+1)
	}
}
