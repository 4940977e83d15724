package core

import (
	"context"
	"fmt"
	"time"

	"github.com/lamgo/lam/libmpi/internal/match"
	"github.com/lamgo/lam/libmpi/internal/yield"
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

// Announcement is what a process says to a peer at the end of a round of
// a drain: the bytes it had written on its link to the peer and those it
// had read from it, with every frame it had for the peer written. Given
// to Drain's announce, Rank is the peer it goes to; on Drain's announced,
// the peer it comes from.
type Announcement struct {
	Rank  int    // the peer's world rank
	Round int    // the round of the drain with that peer, from 1
	Sent  uint64 // bytes written on the link to the other
	Read  uint64 // bytes read from the other's link
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

// drainPair is a drain's state with one peer.
type drainPair struct {
	round  int
	told   bool         // this round's counters are told
	mine   Announcement // told in this round
	prev   uint64       // what this process had read when it told the last round's
	theirs map[int]Announcement
	done   bool
}

// Drain empties every link of a quiesced engine, in rounds with each
// peer. A round with a peer: this process writes every frame it has for
// it (those queued, the answers to what it read, and a clear-to-send for
// each rendezvous message of the peer's that no receive has matched: the
// drain pulls its body into a buffer of the library, so that it is saved
// like an eager message, and its sender's request completes), gives
// announce its counters, and reads until it has read what the peer says
// it wrote. The link is drained when, in the same round, each side had
// read all that the other had written: then nothing is in flight and
// nothing remains to answer (an answer comes only after what it answers,
// and neither side had anything left to answer). Otherwise another round
// follows. A link with nothing on its way takes one round; one with a
// rendezvous message announced and not received, three (the
// clear-to-send, the body, and the counters that show both read), or two
// when the sender reads the clear-to-send before it first tells its
// counters. Drain fails when ctx ends, a peer dies, or a peer's counters
// contradict what was read from it.
func (e *Engine) Drain(ctx context.Context, announce func([]Announcement) error, announced <-chan Announcement) error {
	e.hold = false // the drain writes what it has; the hold is back after
	defer func() { e.hold = true }()
	ps := make([]drainPair, len(e.peers))
	left := 0
	for i, p := range e.peers {
		if p != nil {
			ps[i] = drainPair{round: 1, theirs: map[int]Announcement{}}
			left++
		}
	}
	idle := 0
	e.drainStats, e.pulled = DrainStats{}, 0
	var batch []Announcement
	for left > 0 {
		for more := true; more; {
			select {
			case a := <-announced:
				if a.Rank >= 0 && a.Rank < len(e.peers) && e.peers[a.Rank] != nil && a.Round >= ps[a.Rank].round {
					ps[a.Rank].theirs[a.Round] = a
				}
			default:
				more = false
			}
		}
		batch = batch[:0]
		for i, p := range e.peers {
			s := &ps[i]
			if p == nil || s.done {
				continue
			}
			if p.dead != nil {
				return fmt.Errorf("draining the link to rank %d: %w", i, p.dead)
			}
			if !s.told {
				if e.pull(p) || p.pending() {
					continue // written by the progress below
				}
				s.mine = Announcement{Rank: i, Round: s.round, Sent: p.sent, Read: p.recvd}
				s.told = true
				batch = append(batch, s.mine)
				continue
			}
			a, ok := s.theirs[s.round]
			if !ok {
				continue
			}
			if a.Sent < s.prev {
				// The peer told this round after it had this process's
				// last counters, so after it wrote what was read then.
				return fmt.Errorf("%w: read %d bytes from rank %d, which says it wrote %d", ErrProtocol, s.prev, i, a.Sent)
			}
			if p.recvd < a.Sent {
				continue
			}
			if s.mine.Read == a.Sent && a.Read == s.mine.Sent {
				if p.recvd != a.Sent {
					return fmt.Errorf("%w: read %d bytes from rank %d, which says it wrote %d", ErrProtocol, p.recvd, i, a.Sent)
				}
				s.done = true
				e.drainStats.Rounds++
				left--
				continue
			}
			delete(s.theirs, s.round)
			e.drainStats.Rounds++
			s.round++
			s.told = false
			s.prev = s.mine.Read
		}
		if len(batch) > 0 {
			if err := announce(batch); err != nil {
				return err
			}
			continue
		}
		if left == 0 {
			break
		}
		if err := e.drainStep(ctx, &idle); err != nil {
			return fmt.Errorf("draining the links: %w (waiting for %s)", err, e.missing(ps))
		}
	}
	return nil
}

// pull sends p a clear-to-send for each of its rendezvous messages that
// wait here unmatched, or taken by a matched probe and not received, and
// are not pulled yet, with a buffer of the library to receive the body;
// it reports whether it sent any. A message that would take the drain's
// pulls past maxPulled is left with its sender (Unmatched counts it).
func (e *Engine) pull(p *peer) bool {
	asked := false
	for _, u := range e.taken {
		asked = e.pullOne(p, u) || asked
	}
	e.match.Each(func(m *match.Message) bool {
		if u, ok := m.Owner.(*unexpected); ok {
			asked = e.pullOne(p, u) || asked
		}
		return true
	})
	return asked
}

// pullOne asks p for u's body if u is a rendezvous message of p's to pull.
func (e *Engine) pullOne(p *peer, u *unexpected) bool {
	if u.from != p.rank || u.hdr.typ != frameRTS || u.pull != nil || u.hdr.length > maxPulled-e.pulled {
		return false
	}
	e.pulled += u.hdr.length
	r := &Request{e: e, kind: kindRecv, buf: make([]byte, u.hdr.length), peer: p.rank, pulled: u}
	r.id = e.newID()
	r.status.Source, r.status.Tag = int(u.hdr.source), int(u.hdr.tag)
	e.recvs[r.id] = r
	u.pull = r
	// flagSync: a synchronous send, which completes at the match, not
	// when its body has left.
	h := header{typ: frameCTS, flags: u.hdr.flags & flagSync, sendID: u.hdr.sendID, recvID: r.id}
	e.send(p, &h, nil, nil)
	return true
}

// pulledIn makes a pulled rendezvous message, whose n bytes came into
// r's buffer, an eager one: still in its place among the unmatched
// messages, or given to the receive that matched it meanwhile.
func (e *Engine) pulledIn(r *Request, n int) {
	u := r.pulled
	r.pulled = nil
	u.hdr.typ, u.hdr.flags = frameEager, u.hdr.flags&flagSync // acknowledged at its match
	u.body = r.buf[:n]
	u.pull = nil
	if w := u.waiter; w != nil {
		u.waiter = nil
		e.matchUnexpected(w, u)
	}
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
func (e *Engine) missing(ps []drainPair) string {
	s := ""
	for i, p := range e.peers {
		if p == nil || ps[i].done {
			continue
		}
		if s != "" {
			s += ", "
		}
		a, ok := ps[i].theirs[ps[i].round]
		switch {
		case !ps[i].told:
			s += fmt.Sprintf("rank %d: this process's frames to write", i)
		case ok && p.recvd < a.Sent:
			s += fmt.Sprintf("rank %d's last %d bytes", i, a.Sent-p.recvd)
		default:
			s += fmt.Sprintf("rank %d's counters", i)
		}
		if ps[i].round > 1 {
			s += fmt.Sprintf(" (round %d)", ps[i].round)
		}
	}
	return s
}

// drainStep moves bytes once and paces a drain that waits: it polls a
// few times, then gives the processor to the other processes (the peers
// it waits for may share the processors: a checkpoint of 8 ranks on 2
// processors is the usual case, and a yield to this process's other
// goroutines, runtime.Gosched, would keep the processor from them), then
// sleeps briefly.
func (e *Engine) drainStep(ctx context.Context, idle *int) error {
	before := e.activity
	e.progress()
	e.drainStats.Polls++
	if e.activity != before {
		*idle = 0
		return nil
	}
	*idle++
	switch {
	case *idle < drainPolls:
	case *idle < drainYields:
		e.drainStats.Yields++
		yield.OS()
	default:
		e.drainStats.Sleeps++
		time.Sleep(50 * time.Microsecond)
	}
	if *idle&15 == 0 {
		return ctx.Err()
	}
	return nil
}

// DrainStats counts what the last drain did while it waited for its
// peers (their counters, the rest of their bytes): a measure of its cost
// that the machine's load changes only through how long the peers take.
type DrainStats struct {
	Rounds int // rounds completed, summed over the peers
	Polls  int // polls of the links that waited (drainStep)
	Yields int // of them, followed by a sched_yield
	Sleeps int // of them, followed by a sleep
}

// LastDrain returns the counts of the engine's last Drain (of the
// checkpoint under way or the last one), for a caller that holds the
// engine quiesced, or for tests.
func (e *Engine) LastDrain() DrainStats { return e.drainStats }

// maxPulled bounds the bodies one drain pulls into the library, in all:
// each is held in memory, then encoded with the rank's file (a second
// copy while it is written, and one more while a restart reads it), so a
// rank that would hold more leaves the rest with their senders, as
// LostMessages reports. The transfer itself needs no bound: the body of
// a pull moves as any rendezvous body, in the pieces the link takes.
// encoding/gob refuses a library part of 8 GiB or more, which a bound
// of 4 GiB keeps clear of. A variable for the tests.
var maxPulled uint64 = 4 << 30

// A drain that waits polls drainPolls times, then yields until
// drainYields, then sleeps between polls.
const (
	drainPolls  = 16
	drainYields = 256
)

// SavedMessage is a message that arrived and that no receive has matched, as
// a checkpoint saves it.
type SavedMessage struct {
	From    int    // the sender's world rank
	Context uint32 // the communicator's context
	Source  int32  // the sender's rank in the communicator
	Tag     int32
	Body    []byte
	// Ack is, for a synchronous send's message, the id under which its
	// sender waits for the acknowledgement of its match (RequestOp.Ack);
	// 0 for the others.
	Ack uint64
}

// restoredAck marks the ids of the synchronous sends a restarted process
// got back (RequestOp.Ack, SavedMessage.Ack): the ids of the process that
// was checkpointed, which the new process's own ids never reach.
const restoredAck = 1 << 63

// Unmatched returns the messages of a quiesced, drained engine that no
// receive has matched: first those matched probes took and no Mrecv has
// received, in the order they were taken, then those still waiting for a
// receive, oldest first within each context; the eager ones and the
// rendezvous ones the drain pulled. Each message taken by a probe is
// older than every waiting one of its context, source and tag (the probe
// takes the oldest that matches), so restored in this order they match
// as they would have. A rendezvous message whose body stayed with its
// sender (past the drain's maxPulled, or a drain that failed) cannot be saved,
// and is reported by rts, the number of them.
func (e *Engine) Unmatched() (msgs []SavedMessage, rts int) {
	save := func(u *unexpected) {
		if u.hdr.typ != frameEager {
			rts++
			return
		}
		m := SavedMessage{From: u.from, Context: u.hdr.context, Source: u.hdr.source, Tag: u.hdr.tag, Body: u.body}
		switch {
		case u.self != nil:
			m.Ack = u.self.id &^ restoredAck // a synchronous send to this process
		case u.hdr.flags&flagSync != 0:
			m.Ack = u.hdr.sendID &^ restoredAck
		}
		msgs = append(msgs, m)
	}
	for _, u := range e.taken {
		save(u)
	}
	e.match.Each(func(m *match.Message) bool {
		if u, ok := m.Owner.(*unexpected); ok {
			save(u)
		}
		return true
	})
	return msgs, rts
}

// Restore queues messages saved by a checkpoint as arrived and not
// matched, in their order (a restarted process, before any receive). A
// synchronous send's message is acknowledged to its sender when a
// receive matches it, as any: the sender's request, given back to the
// restarted sender (AwaitAck), completes then.
func (e *Engine) Restore(msgs []SavedMessage) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, m := range msgs {
		k := match.Key{Context: m.Context, Source: m.Source, Tag: m.Tag}
		u := &unexpected{from: m.From, hdr: header{typ: frameEager, context: m.Context, source: m.Source, tag: m.Tag, length: uint64(len(m.Body))}, body: m.Body}
		if m.Ack != 0 {
			u.hdr.flags, u.hdr.sendID = flagSync, m.Ack|restoredAck
		}
		if r := e.arrive(k, u.hdr.length); r != nil {
			r.peer = m.From
			e.matchUnexpected(r, u)
			continue
		}
		u.Key, u.Owner = k, u
		e.match.Enqueue(&u.Message)
	}
}

// Discard drops messages saved by a checkpoint that a restarted process
// does not want (DiscardMessages): the synchronous sends' are
// acknowledged, as received, so that their senders do not wait for ever.
func (e *Engine) Discard(msgs []SavedMessage) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, m := range msgs {
		if m.Ack != 0 {
			e.ack(m.From, m.Ack|restoredAck)
		}
	}
}

// AwaitAck makes r, a synchronous send made by NewSend and not started,
// whose message a checkpoint saved with its receiver, wait for that
// message's match there: it completes when the acknowledgement of ack
// (RequestOp.Ack) comes, or came already.
func (e *Engine) AwaitAck(r *Request, ack uint64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	r.reset()
	r.id = ack | restoredAck
	if e.acked[r.id] {
		delete(e.acked, r.id)
		r.complete()
		return
	}
	e.sends[r.id] = r
}

// ackEarly keeps the acknowledgement of a restored synchronous send that
// came before the restarted process got the send's request back.
func (e *Engine) ackEarly(id uint64) {
	if e.acked == nil {
		e.acked = map[uint64]bool{}
	}
	e.acked[id] = true
}

// RequestOp is what a checkpoint keeps of a point-to-point request's
// operation.
type RequestOp struct {
	Send      bool
	Mode      SendMode
	Rank, Tag int // the rank argument (destination, or source or AnySource) and tag
	// Delivered says, of a send of a quiesced, drained engine, that its
	// message has left: it is with its receiver, received or among the
	// messages a checkpoint saves there. It has completed, or it is a
	// synchronous send waiting for its match to be acknowledged.
	Delivered bool
	// Ack is, for a delivered synchronous send that waits for its
	// match, the id the acknowledgement comes for (AwaitAck); else 0.
	Ack uint64
}

// Op returns r's operation. For Delivered, the engine is quiesced and
// drained (the caller holds the progress lock through Quiesce).
func (r *Request) Op() RequestOp {
	op := RequestOp{Send: r.kind == kindSend, Mode: r.mode, Rank: r.rank, Tag: r.tag}
	if !op.Send {
		return op
	}
	switch e := r.e; {
	case r.Done():
		op.Delivered = true
	case r.mode != Sync:
	case r.peer == e.self:
		op.Delivered = true // in this process's unexpected queue
		op.Ack = r.id &^ restoredAck
	case r.peer >= 0 && r.peer < len(e.peers) && e.peers[r.peer] != nil:
		// Waiting for its acknowledgement: an eager one was written
		// whole, and the drain brought it to its receiver.
		op.Delivered = e.sends[r.id] == r && (r.id&restoredAck != 0 || r.awaitAck || r.size() <= e.peers[r.peer].short)
		if op.Delivered {
			op.Ack = r.id &^ restoredAck
		}
	}
	return op
}

// Completed makes r, a request made by NewSend or NewRecv and not
// started, complete at once with status s, as if it had run (a request a
// restarted process gets back done).
func (e *Engine) Completed(r *Request, s Status) {
	e.mu.Lock()
	defer e.mu.Unlock()
	r.reset()
	r.status = s
	r.complete()
}
