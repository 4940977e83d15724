package core

import (
	"fmt"
	"io"

	"github.com/lamgo/lam/libmpi/internal/match"
	"github.com/lamgo/lam/libmpi/rpi"
)

// peer is the link to one other process and its two protocol streams.
type peer struct {
	rank   int
	link   rpi.Link
	dead   error
	fd     bool             // the link is a descriptor
	costly bool             // its poll is a system call or the like (fd, rpi.CostlyPoller)
	short  int              // largest eager message on this link
	direct rpi.RemoteReader // nil unless the peer's memory can be read directly
	vw     rpi.VectorWriter // nil unless the link writes two buffers at once
	peek   rpi.Peeker       // nil unless the link shows small writes in place
	rw     rpi.RemoteWriter // nil unless the link writes into the peer's memory
	ex     rpi.Exposer      // nil unless the peer reads only what the link exposes

	// Outgoing frames, written in order.
	out     []outFrame
	outHead int
	hb      [headerSize]byte // a header written without queueing

	// Bytes read from the link and not yet used: rbuf[rpos:rend]. Reading
	// ahead lets one read(2) bring a header and a small body.
	rbuf       []byte
	rpos, rend int

	// The incoming frame being read.
	hdr     header
	inBody  bool
	dst     []byte // where the body goes
	dstLen  int    // body bytes that fit
	dstN    int
	skip    uint64 // body bytes to discard (truncation)
	bodyFor *Request
	bodyU   *unexpected
	dvec    bool // the body goes into a layout instead, at dcur
	dcur    rpi.Cursor
	scatter bool // read into the layout by the link's scattering call

	// Layouts (layout.go).
	gw       rpi.GatherWriter  // nil unless the link writes a layout's pieces itself
	sr       rpi.ScatterReader // nil unless the link reads into a layout's pieces itself
	rl       rpi.RemoteLayout  // nil unless single copies take a layout
	cur      rpi.Cursor        // a cursor for one call (single copies)
	bounce   []byte            // gathers a layout for a link that cannot (made on first use)
	minPiece int               // the link's rpi.MinPiecer, or 0

	// Bytes written to and read from the link, for a checkpoint's drain
	// (cr.go).
	sent, recvd uint64
}

// outFrame is a frame waiting to be written.
type outFrame struct {
	hdr  [headerSize]byte
	hdrN int
	body []byte
	n    int
	done *Request    // completed once the frame is written
	vec  *layoutBody // the body, if a layout's bytes instead
}

func (p *peer) queue(h *header, body []byte, done *Request) *outFrame {
	if p.outHead > 0 && p.outHead == len(p.out) {
		p.out, p.outHead = p.out[:0], 0
	}
	p.out = append(p.out, outFrame{body: body, done: done})
	f := &p.out[len(p.out)-1]
	h.encode(&f.hdr)
	return f
}

func (p *peer) pending() bool { return p.outHead < len(p.out) }

// send sends a frame: written at once when nothing is queued before it
// (the eager fast path: no queue entry), with what the link did not take
// queued for flush. A failed write is left to flush, which fails the
// peer and what waits on it.
func (e *Engine) send(p *peer, h *header, body []byte, done *Request) {
	if p.outHead == len(p.out) && p.dead == nil && !e.hold {
		n, err := e.writeFrame(p, h, body)
		if err == nil && n == headerSize+len(body) {
			if done != nil {
				done.complete()
			}
			return
		}
		if err == nil && n > 0 {
			e.queueRest(p, h, body, done, n)
			return
		}
	}
	p.queue(h, body, done)
	e.flush(p)
}

// sendCopy writes a frame whose body the caller takes back at once. It
// reports false, having written nothing, if the link takes nothing now
// (or cannot write a header and body together); what the link does not
// take of a begun frame is queued with a copy of the body.
func (e *Engine) sendCopy(p *peer, h *header, body []byte) bool {
	if p.vw == nil && len(body) > 0 {
		return false
	}
	n, err := e.writeFrame(p, h, body)
	if err != nil || n == 0 {
		return false
	}
	if n < headerSize+len(body) {
		e.queueRest(p, h, append([]byte(nil), body...), nil, n)
	}
	return true
}

// writeFrame writes a frame to a link with nothing queued before it:
// header and body together where the link can, else the header alone
// (flush sends the body). It returns what the link took.
func (e *Engine) writeFrame(p *peer, h *header, body []byte) (int, error) {
	h.encode(&p.hb)
	var n int
	var err error
	if p.vw != nil && len(body) > 0 {
		n, err = p.vw.Write2(p.hb[:], body)
	} else {
		n, err = p.link.Write(p.hb[:])
	}
	if err == nil && n > 0 {
		e.activity++
		p.sent += uint64(n)
	}
	return n, err
}

// queueRest queues a frame of which the link took the first n bytes.
func (e *Engine) queueRest(p *peer, h *header, body []byte, done *Request, n int) {
	f := p.queue(h, body, done)
	f.hdrN = min(n, headerSize)
	f.n = n - f.hdrN
	e.flush(p)
}

// stageSize is how much a peer reads ahead.
const stageSize = 64 << 10

// flush writes what the link takes now.
func (e *Engine) flush(p *peer) {
	for p.dead == nil && p.outHead < len(p.out) {
		f := &p.out[p.outHead]
		if e.held(p, f) {
			return // a checkpoint holds frames not yet begun (cr.go)
		}
		if f.vec != nil {
			if !e.flushLayout(p, f) {
				return
			}
		} else if !e.flushBytes(p, f) {
			return
		}
		if f.done != nil {
			f.done.complete()
		}
		*f = outFrame{}
		p.outHead++
	}
}

// flushBytes writes what the link takes now of a frame whose body is
// bytes; it reports whether the frame is written.
func (e *Engine) flushBytes(p *peer, f *outFrame) bool {
	if p.vw != nil && f.hdrN == 0 && len(f.body) > 0 {
		// Header and body in one system call.
		n, err := p.vw.Write2(f.hdr[:], f.body)
		if err != nil {
			e.peerDied(p, err)
			return false
		}
		if n == 0 {
			return false
		}
		e.activity++
		p.sent += uint64(n)
		h := min(n, headerSize)
		f.hdrN, f.n = h, n-h
	}
	if f.hdrN < headerSize {
		n, err := p.link.Write(f.hdr[f.hdrN:])
		if err != nil {
			e.peerDied(p, err)
			return false
		}
		f.hdrN += n
		p.sent += uint64(n)
		e.activity += uint64(n)
		if f.hdrN < headerSize {
			return false
		}
	}
	for f.n < len(f.body) {
		n, err := p.link.Write(f.body[f.n:])
		if err != nil {
			e.peerDied(p, err)
			return false
		}
		if n == 0 {
			return false
		}
		e.activity++
		p.sent += uint64(n)
		f.n += n
	}
	return true
}

// fill reads what the link has into the staging buffer; it reports
// whether anything came.
func (e *Engine) fill(p *peer) bool {
	if p.rbuf == nil {
		p.rbuf = make([]byte, stageSize)
	}
	if p.rpos == p.rend {
		p.rpos, p.rend = 0, 0
	} else if p.rpos > 0 && len(p.rbuf)-p.rend < headerSize {
		p.rend = copy(p.rbuf, p.rbuf[p.rpos:p.rend])
		p.rpos = 0
	}
	n, err := p.link.Read(p.rbuf[p.rend:])
	if err != nil {
		e.peerDied(p, err)
		return false
	}
	p.rend += n
	p.recvd += uint64(n)
	e.activity += uint64(n)
	return n > 0
}

// read moves what the link has now through the protocol.
func (e *Engine) read(p *peer) {
	for p.dead == nil {
		avail := p.rend - p.rpos
		if !p.inBody {
			if avail == 0 && p.peek != nil {
				// At a frame's start with nothing staged: a frame that
				// arrived whole in one small write is read in place.
				v, ready, err := p.peek.Peek()
				if err != nil {
					e.peerDied(p, err)
					return
				}
				if !ready {
					return
				}
				if e.inPlace(p, v) {
					continue
				}
			}
			if avail < headerSize {
				if !e.fill(p) {
					return
				}
				continue
			}
			p.hdr.decode((*[headerSize]byte)(p.rbuf[p.rpos:]))
			p.rpos += headerSize
			if err := e.onHeader(p); err != nil {
				e.peerDied(p, err)
				return
			}
			continue
		}
		// Body: from what is staged, else straight into the destination
		// (large bodies skip the staging copy), then past what did not fit.
		switch {
		case p.dstN < p.dstLen && avail > 0:
			var n int
			if p.dvec {
				n = p.dcur.CopyIn(p.rbuf[p.rpos:min(p.rend, p.rpos+p.dstLen-p.dstN)])
			} else {
				n = copy(p.dst[p.dstN:], p.rbuf[p.rpos:p.rend])
			}
			p.rpos += n
			p.dstN += n
		case p.dstN < p.dstLen && p.dvec:
			if !e.readLayout(p) {
				return
			}
		case p.dstN < p.dstLen:
			n, err := p.link.Read(p.dst[p.dstN:])
			if err != nil {
				e.peerDied(p, err)
				return
			}
			if n == 0 {
				return
			}
			e.activity++
			p.recvd += uint64(n)
			p.dstN += n
		case p.skip > 0 && avail > 0:
			n := int(min(uint64(avail), p.skip))
			p.rpos += n
			p.skip -= uint64(n)
		case p.skip > 0:
			if !e.fill(p) {
				return
			}
		}
		if p.dstN == p.dstLen && p.skip == 0 {
			e.onBody(p)
		}
	}
}

// inPlace handles a frame the link shows in place (v) if v holds exactly
// one whole frame, and reports whether it did.
func (e *Engine) inPlace(p *peer, v []byte) bool {
	if len(v) < headerSize {
		return false
	}
	p.hdr.decode((*[headerSize]byte)(v))
	body := v[headerSize:]
	if p.hdr.typ == frameEager || p.hdr.typ == frameData {
		if uint64(len(body)) != p.hdr.length {
			return false
		}
	} else if len(body) != 0 {
		return false
	}
	e.activity++
	p.recvd += uint64(len(v))
	h := &p.hdr
	if h.typ == frameEager {
		// The common case first: a small message for a posted receive.
		if r := e.arrive(match.Key{Context: h.context, Source: h.source, Tag: h.tag}, h.length); r != nil {
			r.peer = p.rank
			var n int
			if r.vec == nil {
				n = copy(r.buf, body)
			} else {
				n = r.scatter(body)
			}
			e.eagerDone(p, r, n)
			p.peek.Consume()
			return true
		}
	}
	if err := e.onHeader(p); err != nil {
		e.peerDied(p, err)
		return true
	}
	if p.inBody {
		if p.dvec {
			p.dstN = p.dcur.CopyIn(body[:p.dstLen])
		} else {
			p.dstN = copy(p.dst, body)
		}
		p.skip = 0
		e.onBody(p)
	}
	p.peek.Consume()
	return true
}

// onHeader handles a frame's header; for frames with a body it sets where
// the body goes.
func (e *Engine) onHeader(p *peer) error {
	h := &p.hdr
	switch h.typ {
	case frameEager:
		k := match.Key{Context: h.context, Source: h.source, Tag: h.tag}
		if r := e.arrive(k, h.length); r != nil {
			r.peer = p.rank
			e.expectBody(p, r.buf, h.length, r, nil)
			return nil
		}
		if h.length > maxEager {
			return fmt.Errorf("%w: eager message of %d bytes", ErrProtocol, h.length)
		}
		u := e.newUnexpected(p.rank, h, k)
		e.expectBody(p, u.body, h.length, nil, u)
	case frameRTS:
		k := match.Key{Context: h.context, Source: h.source, Tag: h.tag}
		if r := e.arrive(k, h.length); r != nil {
			u := unexpected{from: p.rank, hdr: *h}
			e.matchUnexpected(r, &u)
			return nil
		}
		u := &unexpected{from: p.rank, hdr: *h}
		u.Key, u.Owner = k, u
		e.match.Enqueue(&u.Message)
	case frameCTS:
		s := e.sends[h.sendID]
		if s == nil || s.peer != p.rank {
			return fmt.Errorf("%w: clear-to-send for unknown send %d", ErrProtocol, h.sendID)
		}
		if h.flags&flagDirect != 0 {
			return e.writeFirstPart(p, s, h)
		}
		done := s
		if h.flags&flagSync != 0 {
			// A drain pulled a synchronous send's body (cr.go): the
			// send waits for the match, which the receiver acknowledges.
			s.awaitAck = true
			done = nil
		} else {
			delete(e.sends, h.sendID)
		}
		d := header{typ: frameData, recvID: h.recvID, length: uint64(s.size())}
		if s.vec != nil {
			e.sendLayout(p, &d, s.vec, s.size(), done)
			break
		}
		e.send(p, &d, s.buf, done)
	case frameData:
		r := e.recvs[h.recvID]
		if r == nil || r.peer != p.rank {
			return fmt.Errorf("%w: data for unknown receive %d", ErrProtocol, h.recvID)
		}
		delete(e.recvs, h.recvID)
		if h.flags&flagDirect != 0 {
			if !r.split || h.length != 0 {
				return fmt.Errorf("%w: a written part for receive %d, which is not split", ErrProtocol, h.recvID)
			}
			r.complete() // the sender wrote the first part
			return nil
		}
		e.expectBody(p, r.buf, h.length, r, nil)
	case frameSAck:
		s := e.sends[h.sendID]
		if s == nil && h.sendID&restoredAck != 0 {
			// A send of the process that was checkpointed, whose
			// request this restarted one has not got back (AwaitAck)
			// yet, or will not.
			e.ackEarly(h.sendID)
			break
		}
		if s == nil || s.peer != p.rank {
			return fmt.Errorf("%w: acknowledgement for unknown send %d", ErrProtocol, h.sendID)
		}
		delete(e.sends, h.sendID)
		s.complete()
	case frameCancel:
		// Withdraw the sender's message if no receive took it yet.
		ack := header{typ: frameCancelAck, sendID: h.sendID}
		m := e.match.Find(h.context, func(m *match.Message) bool {
			u := m.Owner.(*unexpected)
			// One a drain pulled is as good as matched: its body comes.
			return u.from == p.rank && u.hdr.sendID == h.sendID && u.pull == nil
		})
		if m != nil {
			e.match.Take(m)
			ack.flags = flagCancelled
		}
		e.send(p, &ack, nil, nil)
	case frameCancelAck:
		s := e.sends[h.sendID]
		if s == nil || s.peer != p.rank || h.flags&flagCancelled == 0 {
			return nil // matched meanwhile: the send completes as usual
		}
		delete(e.sends, h.sendID)
		s.status.Cancelled = true
		s.complete()
	default:
		return fmt.Errorf("%w: frame type %d", ErrProtocol, h.typ)
	}
	return nil
}

// writeFirstPart answers a direct cts: it writes the first h.length bytes
// of s into the receiver's buffer and says so, or, if the link refuses,
// sends them as data. s stays among the sends until the sack that says
// the receiver read the rest.
//
// With flagAll (the answer to a push rts) the receiver asks for all it
// takes this way and reads nothing itself: no sack follows, and s is done
// once the bytes are written.
func (e *Engine) writeFirstPart(p *peer, s *Request, h *header) error {
	k := h.length
	if k > uint64(s.size()) || s.parts != 0 {
		return fmt.Errorf("%w: a split clear-to-send of %d bytes for a send of %d", ErrProtocol, k, s.size())
	}
	if h.flags&flagAll != 0 {
		delete(e.sends, h.sendID)
	} else {
		s.parts = 1
	}
	addr := uint64(uint32(h.context)) | uint64(uint32(h.source))<<32
	if e.writeRemote(p, s, int(k), addr) {
		done := header{typ: frameData, flags: flagDirect, recvID: h.recvID}
		e.send(p, &done, nil, nil)
		s.complete() // the first of two, or all
		return nil
	}
	d := header{typ: frameData, recvID: h.recvID, length: k}
	if s.vec != nil {
		e.sendLayout(p, &d, s.vec, int(k), s)
		return nil
	}
	e.send(p, &d, s.buf[:k], s)
	return nil
}

// maxEager bounds an unexpected eager message a peer may make us buffer.
const maxEager = 1 << 30

func (e *Engine) expectBody(p *peer, buf []byte, length uint64, r *Request, u *unexpected) {
	if r != nil && r.vec != nil {
		n := min(uint64(r.vec.Len()), length)
		p.inBody, p.dst, p.dvec, p.dcur, p.dstLen = true, nil, true, r.vec.Cursor(), int(n)
		p.scatter = p.sr != nil && p.vectors(r.vec)
		p.dstN, p.skip, p.bodyFor, p.bodyU = 0, length-n, r, u
	} else {
		n := min(uint64(len(buf)), length)
		p.inBody, p.dst, p.dstLen, p.dstN, p.skip, p.bodyFor, p.bodyU = true, buf[:n], int(n), 0, length-n, r, u
	}
	if length == 0 {
		e.onBody(p)
	}
}

// onBody finishes a frame whose body has been read.
func (e *Engine) onBody(p *peer) {
	h := &p.hdr
	r, u := p.bodyFor, p.bodyU
	p.inBody, p.dst, p.bodyFor, p.bodyU = false, nil, nil, nil
	if p.dvec {
		p.dvec, p.dcur = false, rpi.Cursor{}
	}
	if u != nil {
		// A receive posted while the body was on its way takes it now:
		// enqueuing it would let this sender's next message overtake it.
		if r := e.arrive(u.Key, u.hdr.length); r != nil {
			r.peer = p.rank
			e.matchUnexpected(r, u)
			e.reuse(u)
			return
		}
		e.match.Enqueue(&u.Message)
		return
	}
	if h.typ == frameData {
		if r.pulled != nil {
			e.pulledIn(r, p.dstN) // a drain's (cr.go)
			return
		}
		if r.split {
			r.complete() // the first part, which the sender could not write
			return
		}
		r.finishRecv(r.status.Source, r.status.Tag, int(h.length), p.dstN)
		return
	}
	e.eagerDone(p, r, p.dstN)
}

// eagerDone completes a receive that got n bytes of the eager frame
// p.hdr, and acknowledges a synchronous send.
func (e *Engine) eagerDone(p *peer, r *Request, n int) {
	h := &p.hdr
	r.finishRecv(int(h.source), int(h.tag), int(h.length), n)
	if h.flags&flagSync != 0 {
		e.ack(p.rank, h.sendID)
	}
}

// fail completes r with err, whatever parts it still awaited.
func (r *Request) fail(err error) {
	r.status.Err = err
	r.parts = 0
	r.complete()
}

// peerDied fails everything that depends on a peer whose link broke.
func (e *Engine) peerDied(p *peer, err error) {
	if p.dead != nil {
		return
	}
	if err == io.EOF {
		err = nil
	}
	err = &DeadPeerError{Rank: p.rank, Err: err}
	p.dead = err
	p.link.Close()
	for i := p.outHead; i < len(p.out); i++ {
		if r := p.out[i].done; r != nil && !r.Done() {
			r.fail(err)
		}
	}
	p.out, p.outHead = nil, 0
	if r := p.bodyFor; r != nil {
		r.fail(err)
	}
	for id, r := range e.sends {
		if r.peer == p.rank {
			delete(e.sends, id)
			r.fail(err)
		}
	}
	for id, r := range e.recvs {
		if r.peer == p.rank {
			delete(e.recvs, id)
			r.fail(err)
		}
	}
}
