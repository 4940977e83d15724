//go:build ofi && cgo

package ofi

import (
	"fmt"
	"time"
	"unsafe"
)

// Long messages as tagged messages. Where the provider offers tagged
// messaging (FI_TAGGED) and rpi_ofi_tagged is set, the receiver of a long
// message pulls it rather than reading it: ReadRemote posts a tagged
// receive on the receive buffer, with a tag that names this pull (the
// sender's rank and a number), and then sends the sender's link a pull
// message (the tag, the address and length it wants from the buffer the
// key message exposed); the sender's transport, whichever of its calls
// takes the pull (the background progress too), sends that part of the
// buffer tagged, and the provider puts it straight into the posted
// receive: no bounce buffer, no copy of ours, and nothing of the
// provider's remote memory access. Matching stays in the MPI core: the
// tags only name pulls, which the receiver posts before it asks, so a
// tagged message never arrives unexpected. A pull for memory the sender
// did not expose is answered with an empty tagged message, which fails
// the read (the core then asks for the body through the link).

// tsendSlots is how many tagged sends a process has in flight at most;
// further pulls wait in the transport's queue.
const tsendSlots = 64

// tsendOp is a tagged send in flight: to l, from region r (held until
// the send completes).
type tsendOp struct {
	l *link
	r *region
}

// pullReq is a pull that waits for the provider or a send context.
type pullReq struct {
	l         *link
	tag, addr uint64
	n         int
}

// pullTag is the tag of pull seq from rank: the receiver's tagged
// receives are not directed, so the tag names the sender.
func pullTag(rank int, seq uint32) uint64 { return uint64(rank)<<32 | uint64(seq) }

// pullRemote moves len(dst) bytes at addr in the peer's exposed memory
// into dst (at base), in pieces of at most the provider's largest
// message. The caller holds mu and checked the key.
func (l *link) pullRemote(dst []byte, base uintptr, addr uint64, desc unsafe.Pointer, deadline time.Time) error {
	t := l.t
	for off, most := 0, t.fb.maxMsg(); off < len(dst); {
		n := min(len(dst)-off, most)
		tag := pullTag(l.rank, t.pullSeq)
		t.pullSeq++
		if err := l.submit(deadline, "fi_trecv", func() int { return t.fb.trecv(base+uintptr(off), n, desc, tag) }); err != nil {
			return err
		}
		t.reading = true
		var p [pullSize]byte
		pullMsg{tag: tag, addr: addr + uint64(off), n: uint64(n)}.put(p[:])
		asked, sent := false, false
		err := l.await(deadline, func() bool {
			if !asked {
				// A pull may take the last credit, as control messages
				// do; its answer gives it back (below).
				var err error
				sent, err = l.control(kindPull, p[:])
				asked = sent || err != nil
			}
			return asked && !t.reading
		})
		if err == nil && l.dead != nil && !sent {
			err = l.dead
		}
		if err != nil {
			l.cancelPull()
			return err
		}
		// The peer took the pull and posted its buffer again before it
		// answered: the answer returns the pull's credit. Were the
		// credit owed like other control messages', two processes
		// pulling from each other could each spend its last credit on a
		// pull and then be unable to tell the other it has room.
		l.credits++
		switch {
		case t.readErr != 0:
			return fmt.Errorf("tagged receive from rank %d: %s", l.rank, errText(t.readErr))
		case t.readLen != n:
			return fmt.Errorf("%w: rank %d sent %d bytes of %d asked for", errNoKey, l.rank, t.readLen, n)
		}
		off += n
	}
	return nil
}

// cancelPull cancels a tagged receive that is still posted, and waits a
// little for the provider to say so: it must not write the buffer after
// ReadRemote returned. The caller holds mu.
func (l *link) cancelPull() {
	t := l.t
	if !t.reading || t.fb == nil {
		return
	}
	t.fb.cancelRead()
	deadline := time.Now().Add(time.Second)
	for t.reading && time.Now().Before(deadline) && t.fb != nil && t.failed == nil {
		t.progress()
		if t.reading {
			t.mu.Unlock()
			time.Sleep(100 * time.Microsecond)
			t.mu.Lock()
		}
	}
	t.reading = false
}

// pulled takes a pull message from the peer. The caller holds mu.
func (l *link) pulled(b []byte) {
	m, err := parsePull(b)
	if err != nil {
		l.die(fmt.Errorf("%w: rank %d: %w", errProtocol, l.rank, err))
		return
	}
	if len(l.t.pulls) > 0 || !l.serve(m.tag, m.addr, int(m.n)) {
		l.t.pulls = append(l.t.pulls, pullReq{l: l, tag: m.tag, addr: m.addr, n: int(m.n)})
	}
}

// serve sends n bytes at addr, which must lie in a buffer this link
// exposes, tagged tag; an empty message if they do not. It reports false
// when the provider or the send contexts are busy. The caller holds mu.
func (l *link) serve(tag, addr uint64, n int) bool {
	t := l.t
	if l.dead != nil || t.fb == nil {
		return true // nobody to answer
	}
	var r *region
	for start, es := range l.exposed {
		if len(es) > 0 && uint64(start) <= addr && addr+uint64(n) <= uint64(start+es[len(es)-1].n) {
			r = es[len(es)-1].r
			break
		}
	}
	if r == nil {
		rc := t.fb.tinject0(l.dest, tag)
		if rc == again {
			return false
		}
		if rc != 0 {
			l.die(fmt.Errorf("%w: %w", errPeerGone, ferr("fi_tinject", rc)))
		}
		return true
	}
	if len(t.freeT) == 0 {
		return false
	}
	i := t.freeT[len(t.freeT)-1]
	var desc unsafe.Pointer
	if t.fb.mrLocal() {
		desc = t.mrs.desc(r.key)
	}
	rc := t.fb.tsend(i, uintptr(addr), n, desc, l.dest, tag)
	switch {
	case rc == again:
		return false
	case rc != 0:
		l.die(fmt.Errorf("%w: %w", errPeerGone, ferr("fi_tsend", rc)))
		return true
	}
	t.freeT = t.freeT[:len(t.freeT)-1]
	t.rc.hold(r)
	t.tsends[i] = tsendOp{l: l, r: r}
	l.tsends++
	t.sent.Store(true)
	return true
}

// sent1 takes the completion of tagged send i. The caller holds mu.
func (t *transport) sent1(i int, code int) {
	if i < 0 || i >= len(t.tsends) || t.tsends[i].l == nil {
		return
	}
	op := t.tsends[i]
	t.tsends[i] = tsendOp{}
	t.freeT = append(t.freeT, i)
	op.l.tsends--
	if t.rc != nil {
		t.rc.release(op.r)
	}
	if code != 0 && code != codeCanceled {
		op.l.die(fmt.Errorf("%w: the fabric could not deliver to rank %d: %s", errPeerGone, op.l.rank, errText(code)))
	}
}
