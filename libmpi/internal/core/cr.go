package core

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/lamgo/lam/libmpi/internal/match"
	"github.com/lamgo/lam/libmpi/rpi"
)

// Checkpoints (the cr framework). A checkpoint quiesces the engine: it
// takes the progress lock, which every other goroutine's call waits for
// (a call blocked in Wait waits between two of its polls: the engine never
// blocks holding the lock, so no call needs interrupting otherwise), and
// holds new frames. It then drains the links: it finishes the frames it
// has begun writing, tells every peer how many bytes it wrote to it, and
// reads every link until it has read what the peer wrote, so that nothing
// is left in flight. Messages read meanwhile go through the protocol as
// always (to their receives, or to the unexpected queue); the answers
// they call for (clear-to-send, acknowledgements) are held with the other
// new frames and written when the engine resumes. With every process
// holding, the counters announced are final, so one exchange suffices.

// Announcement is what a peer says it wrote to this process.
type Announcement struct {
	Rank int    // the peer's world rank
	Sent uint64 // bytes it wrote on its link to this process
}

// Quiesce stops the engine for a checkpoint and returns the function that
// resumes it. In between the caller may Drain and save.
func (e *Engine) Quiesce() (resume func()) {
	e.mu.Lock()
	e.hold = true
	e.quiesced.Store(true)
	return func() {
		e.hold = false
		e.quiesced.Store(false)
		e.progress() // what was held goes as the links take it
		e.mu.Unlock()
	}
}

// Drain empties every link of a quiesced engine: it finishes the frames
// begun, gives announce the bytes written to each peer (by world rank; 0
// for this process), which it must tell every peer, and reads until every
// peer's bytes, as its announcement on announced says, have come. It
// fails when ctx ends, a peer dies, or a peer announces less than was
// read from it.
func (e *Engine) Drain(ctx context.Context, announce func(sent []uint64) error, announced <-chan Announcement) error {
	idle := 0
	for e.begun() {
		if err := e.drainStep(ctx, &idle); err != nil {
			return fmt.Errorf("finishing the messages begun: %w", err)
		}
	}
	sent := make([]uint64, len(e.peers))
	for i, p := range e.peers {
		if p != nil {
			sent[i] = p.sent
		}
	}
	if err := announce(sent); err != nil {
		return err
	}
	want := make([]uint64, len(e.peers))
	known := make([]bool, len(e.peers))
	for {
		for more := true; more; {
			select {
			case a := <-announced:
				if a.Rank >= 0 && a.Rank < len(e.peers) && e.peers[a.Rank] != nil {
					want[a.Rank], known[a.Rank] = a.Sent, true
				}
			default:
				more = false
			}
		}
		done := true
		for i, p := range e.peers {
			switch {
			case p == nil:
			case p.dead != nil:
				return fmt.Errorf("draining the link to rank %d: %w", i, p.dead)
			case !known[i] || p.recvd < want[i]:
				done = false
			case p.recvd > want[i]:
				return fmt.Errorf("%w: read %d bytes from rank %d, which says it wrote %d", ErrProtocol, p.recvd, i, want[i])
			}
		}
		if done {
			return nil
		}
		if err := e.drainStep(ctx, &idle); err != nil {
			return fmt.Errorf("draining the links: %w (waiting for %s)", err, e.missing(known, want))
		}
	}
}

// begun reports whether a frame is partly written on some live link.
func (e *Engine) begun() bool {
	for _, p := range e.peers {
		if p != nil && p.dead == nil && p.pending() && !e.held(p, &p.out[p.outHead]) {
			return true
		}
	}
	return false
}

// held reports whether a checkpoint holds frame f, the next of p's: one
// not begun. A frame is begun when the core wrote part of it, or when the
// link took part of its first write while reporting none (rpi.WriteBeginner:
// the lamd rpi), since those bytes reach the peer.
func (e *Engine) held(p *peer, f *outFrame) bool {
	if !e.hold || f.hdrN > 0 {
		return false
	}
	b, ok := p.link.(rpi.WriteBeginner)
	return !ok || !b.WriteBegun()
}

// missing names the peers a drain still waits for.
func (e *Engine) missing(known []bool, want []uint64) string {
	s := ""
	for i, p := range e.peers {
		if p == nil || (known[i] && p.recvd >= want[i]) {
			continue
		}
		if s != "" {
			s += ", "
		}
		if known[i] {
			s += fmt.Sprintf("rank %d's last %d bytes", i, want[i]-p.recvd)
		} else {
			s += fmt.Sprintf("rank %d's counters", i)
		}
	}
	return s
}

// drainStep moves bytes once and paces a drain that waits: it polls, then
// yields, then sleeps briefly (the peers may share the processors).
func (e *Engine) drainStep(ctx context.Context, idle *int) error {
	before := e.activity
	e.progress()
	if e.activity != before {
		*idle = 0
		return nil
	}
	*idle++
	switch {
	case *idle < 64:
	case *idle < 1024:
		runtime.Gosched()
	default:
		time.Sleep(50 * time.Microsecond)
	}
	if *idle&15 == 0 {
		return ctx.Err()
	}
	return nil
}

// SavedMessage is a message that arrived and that no receive has matched, as
// a checkpoint saves it.
type SavedMessage struct {
	From    int    // the sender's world rank
	Context uint32 // the communicator's context
	Source  int32  // the sender's rank in the communicator
	Tag     int32
	Body    []byte
}

// Unmatched returns the messages of a quiesced, drained engine that no
// receive has matched, oldest first within each context. Only eager
// messages carry their data; a rendezvous message (its sender waits with
// the data) cannot be saved, and is reported by rts, the number of them.
func (e *Engine) Unmatched() (msgs []SavedMessage, rts int) {
	e.match.Each(func(m *match.Message) bool {
		u, ok := m.Owner.(*unexpected)
		if !ok {
			return true
		}
		if u.hdr.typ != frameEager {
			rts++
			return true
		}
		msgs = append(msgs, SavedMessage{From: u.from, Context: u.hdr.context, Source: u.hdr.source, Tag: u.hdr.tag, Body: u.body})
		return true
	})
	return msgs, rts
}

// Restore queues messages saved by a checkpoint as arrived and not
// matched, in their order (a restarted process, before any receive).
// Synchronous senders are not acknowledged: they are gone.
func (e *Engine) Restore(msgs []SavedMessage) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, m := range msgs {
		k := match.Key{Context: m.Context, Source: m.Source, Tag: m.Tag}
		u := &unexpected{from: m.From, hdr: header{typ: frameEager, context: m.Context, source: m.Source, tag: m.Tag, length: uint64(len(m.Body))}, body: m.Body}
		if r := e.arrive(k, u.hdr.length); r != nil {
			r.peer = m.From
			e.matchUnexpected(r, u)
			continue
		}
		u.Key, u.Owner = k, u
		e.match.Enqueue(&u.Message)
	}
}
