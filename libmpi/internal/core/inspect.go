package core

import (
	"context"
	"time"

	"github.com/lamgo/lam/libmpi/internal/match"
)

// inspectPasses bounds the progress passes Unexpected makes before it
// lists the queue.
const inspectPasses = 64

// Pending is an unexpected message: it arrived and no receive has
// matched it yet (what mpimsg lists).
type Pending struct {
	Context uint32
	Source  int32 // the sender's rank in the communicator
	From    int32 // the sender's world rank
	Tag     int32
	Bytes   uint64
	Sync    bool // a synchronous send waiting for the match
}

// Unexpected returns up to max messages of the unexpected queue, after
// reading what the links hold. It takes the progress lock for as long as
// that takes, waiting at most until
// ctx ends for it (a waiter releases the lock between passes).
func (e *Engine) Unexpected(ctx context.Context, max int) ([]Pending, error) {
	for !e.mu.TryLock() {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Microsecond):
		}
	}
	// What has arrived on the links is read first: a process blocked
	// where nothing reads them (in a shared-memory collective, say)
	// would otherwise hide messages that reached it.
	before := e.activity
	for range inspectPasses {
		moved := e.activity
		e.progress()
		if e.activity == moved {
			break
		}
	}
	if e.activity != before {
		defer e.ring()
	}
	defer e.mu.Unlock()
	var out []Pending
	e.match.Each(func(m *match.Message) bool {
		if len(out) >= max {
			return false
		}
		p := Pending{Context: m.Key.Context, Source: m.Key.Source, Tag: m.Key.Tag, From: -1}
		if u, ok := m.Owner.(*unexpected); ok {
			p.From, p.Bytes = int32(u.from), u.hdr.length
			p.Sync = u.self != nil || u.hdr.typ != frameEager
		}
		out = append(out, p)
		return true
	})
	return out, nil
}

// UnexpectedDepth reports how many unexpected messages (arrived before
// their receives) are queued now, and the most that ever were: how far
// this process's senders ran ahead of its receives.
func (e *Engine) UnexpectedDepth() (now, most int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.match.Unexpected()
}
