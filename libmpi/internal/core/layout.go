package core

import (
	"unsafe"

	"github.com/lamgo/lam/libmpi/internal/cached"
	"github.com/lamgo/lam/libmpi/rpi"
)

// Requests whose data is spread over the user's buffer (a derived
// datatype, SetLayout) move it without an intermediate copy where the
// link allows: a sender's pieces go to the link in one gathering write
// (writev, a shared-memory ring's copy), a receiver's pieces take the
// body from where it lies (the staging buffer, the ring, readv), and a
// long message moves in one copy between the pieces on one side and the
// other side's contiguous buffer (process_vm_readv/writev). Only a
// message with both sides spread goes through the link's bytes then.
// Links that cannot gather (the lamd rpi) get the bytes through a
// bounded buffer of the peer's, never a copy of the whole message.

// SetLayout makes r (a send or receive not started) move the data of l
// instead of a buffer. l and its buffer must stay unchanged until r is
// done; r keeps them alive.
func (r *Request) SetLayout(l *rpi.Layout) {
	r.vec, r.buf = l, nil
}

// copyIn copies a body (or the first part of it that fits) into the
// request's data, returning the bytes copied.
func (r *Request) copyIn(b []byte) int {
	if r.vec == nil {
		return cached.Copy(r.buf, b) // a message to itself, or one that arrived first: the program reads it next
	}
	return r.scatter(b)
}

// scatter copies b (or the first part of it that fits) into the
// request's layout.
func (r *Request) scatter(b []byte) int {
	c := r.vec.Cursor()
	return c.CopyIn(b)
}

// packed returns a copy of the request's data as one run of bytes
// (a message to self kept until its receive comes).
func (r *Request) packed() []byte {
	if r.vec == nil {
		return append([]byte(nil), r.buf...)
	}
	b := make([]byte, r.vec.Len())
	c := r.vec.Cursor()
	c.CopyOut(b)
	return b
}

// copyData copies a send's data into a receive's, as much as fits, and
// returns the bytes copied (a message to self).
func copyData(dst, src *Request) int {
	switch {
	case src.vec == nil:
		return dst.copyIn(src.buf)
	case dst.vec == nil:
		c := src.vec.Cursor()
		return c.CopyOut(dst.buf)
	}
	s, d := src.vec.Cursor(), dst.vec.Cursor()
	n := 0
	for {
		p := s.Next(d.Left())
		if p == nil {
			return n
		}
		n += d.CopyIn(p)
	}
}

// layoutBody is a queued frame's body when it is a layout's bytes: n
// bytes from its start, cur at the next one to write.
type layoutBody struct {
	cur    rpi.Cursor
	n      int
	gather bool // the link's gathering write takes the pieces as they are
}

// sendLayout sends a frame whose body is the first n bytes of l.
func (e *Engine) sendLayout(p *peer, h *header, l *rpi.Layout, n int, done *Request) {
	f := p.queue(h, nil, done)
	f.vec = &layoutBody{cur: l.Cursor(), n: n, gather: p.gw != nil && p.vectors(l)}
	e.flush(p)
}

// flushLayout writes what the link takes now of a frame whose body is a
// layout's; it reports whether the frame is written.
func (e *Engine) flushLayout(p *peer, f *outFrame) bool {
	for f.hdrN < headerSize || f.n < f.vec.n {
		var hdr []byte
		if f.hdrN < headerSize {
			hdr = f.hdr[f.hdrN:]
		}
		n, err := e.writeGather(p, hdr, &f.vec.cur, f.vec.n-f.n, f.vec.gather)
		if err != nil {
			e.peerDied(p, err)
			return false
		}
		if n == 0 {
			return false
		}
		e.activity++
		p.sent += uint64(n) // for a checkpoint's drain (cr.go)
		h := min(n, len(hdr))
		f.hdrN += h
		f.n += n - h
	}
	return true
}

// vectors reports whether a layout's pieces are long enough, on average,
// for the link's gathering and scattering calls (rpi.MinPiecer).
func (p *peer) vectors(l *rpi.Layout) bool {
	return p.minPiece == 0 || l.Size >= p.minPiece*len(l.Blocks)
}

// writeGather writes hdr and then up to n bytes of a layout from c on,
// as much as the link takes now, and moves c past the body bytes written:
// with the link's gathering write if gather, else the header alone, or
// the bytes gathered into the peer's bounded buffer (and c moved past
// what the link took).
func (e *Engine) writeGather(p *peer, hdr []byte, c *rpi.Cursor, n int, gather bool) (int, error) {
	if gather {
		return p.gw.WriteGather(hdr, c, n)
	}
	if len(hdr) > 0 {
		return p.link.Write(hdr)
	}
	if p.bounce == nil {
		p.bounce = make([]byte, stageSize)
	}
	from := *c
	k := c.CopyOut(p.bounce[:min(n, len(p.bounce))])
	w, err := p.link.Write(p.bounce[:k])
	if w < k {
		*c = from
		c.Skip(w)
	}
	return w, err
}

// readLayout reads body bytes straight into the layout being received
// (or, for a link that cannot scatter, into the staging buffer, which
// the caller then copies from); it reports false when nothing came.
func (e *Engine) readLayout(p *peer) bool {
	if !p.scatter {
		return e.fill(p)
	}
	n, err := p.sr.ReadScatter(&p.dcur, p.dstLen-p.dstN)
	if err != nil {
		e.peerDied(p, err)
		return false
	}
	if n == 0 {
		return false
	}
	e.activity++
	p.recvd += uint64(n) // for a checkpoint's drain (cr.go)
	p.dstN += n
	return true
}

// readDirect receives a direct rts's body (the part that fits) by copying
// it from the sender's memory itself, into r's buffer or its layout; it
// reports whether it did. If the link refuses, it asks for the body no
// more this way.
func (e *Engine) readDirect(p *peer, r *Request, h *header) bool {
	n := min(uint64(r.size()), h.length)
	var err error
	switch {
	case r.vec == nil:
		if e.splitCopy(p, r, h, n) {
			return true
		}
		err = p.direct.ReadRemote(r.buf[:n], h.recvID)
	case p.rl != nil:
		p.cur = r.vec.Cursor()
		err = p.rl.ReadRemoteLayout(&p.cur, int(n), h.recvID)
		p.cur = rpi.Cursor{}
	default:
		return false // the body comes through the link
	}
	if err != nil {
		p.direct = nil // not permitted here: ask for the body
		return false
	}
	r.finishRecv(int(h.source), int(h.tag), int(h.length), int(n))
	e.ack(p.rank, h.sendID) // the sender's buffer is free
	return true
}

// askPush answers a push rts (a long message spread over the sender's
// memory) for a receive into one buffer: it asks the sender to write all
// that fits straight into it (a direct cts with flagAll). The receive is
// done when the sender says it wrote (or sent) the bytes. It reports
// false, having done nothing, if the receive cannot take it this way.
func (e *Engine) askPush(p *peer, r *Request, h *header) bool {
	if r.vec != nil || p.direct == nil {
		return false
	}
	n := min(uint64(len(r.buf)), h.length)
	if n == 0 {
		return false
	}
	r.id = e.newID()
	r.split = true // completed by the sender's data frame, written or sent
	r.status.Source, r.status.Tag, r.status.Count = int(h.source), int(h.tag), int(n)
	if h.length > n {
		r.status.Err = ErrTruncate
	}
	e.recvs[r.id] = r
	addr := uint64(uintptr(unsafe.Pointer(unsafe.SliceData(r.buf))))
	r.expose() // the sender writes at addr
	cts := header{typ: frameCTS, flags: flagDirect | flagAll, sendID: h.sendID, recvID: r.id, length: n,
		context: uint32(addr), source: int32(uint32(addr >> 32))}
	e.send(p, &cts, nil, nil)
	return true
}

// writeRemote copies the first n bytes of a send's data to addr in the
// peer's memory (a direct cts), and reports whether it did.
func (e *Engine) writeRemote(p *peer, s *Request, n int, addr uint64) bool {
	if p.rw == nil {
		return false
	}
	if s.vec == nil {
		return p.rw.WriteRemote(s.buf[:n], addr) == nil
	}
	if p.rl == nil {
		return false
	}
	p.cur = s.vec.Cursor()
	err := p.rl.WriteRemoteLayout(&p.cur, n, addr)
	p.cur = rpi.Cursor{}
	return err == nil
}
