package coll

import (
	"context"
	"errors"
	"fmt"
	"unsafe"

	"github.com/lamgo/lam/libmpi/internal/cached"
	"github.com/lamgo/lam/shared/ssi"
)

// bound is a module as one communicator's selection sees it: its Query
// asks QueryComm about that communicator, so ssi.Select applies the
// user's list, the priority parameters and the tie rules as for every
// framework.
type bound struct {
	Module
	c *Comm
}

func (b bound) Query(context.Context, *ssi.Settings) (int, error) { return b.Module.QueryComm(b.c) }

// A collective's tag: bit 30 marks the library's collective traffic (the
// communicator's hidden context also carries tags 0-3 of communicator
// construction), then the kind, the root, the op and the size, so that a
// process that receives a message of another collective, or of the same
// one called with another root, op or size, can say so.
const (
	tagMark   = 1 << 30
	kindShift = 25
	rootShift = 15
	opShift   = 10
	fieldMask = 1<<10 - 1
)

func tagOf(sig Sig) int32 { return tagOfCall(sig.Kind, sig.Root, sig.Op, sig.Send, sig.Recv) }

// tagOfCall is tagOf of the Sig with these fields.
func tagOfCall(kind Kind, root, op int, send, recv int64) int32 {
	if root < 0 {
		root = 0
	}
	return int32(tagMark | int(kind&31)<<kindShift | (root&fieldMask)<<rootShift | (op&31)<<opShift |
		int(sizeDigest(max(send, 0)+max(recv, 0))))
}

// sizeDigest folds a byte count into the tag's 10 bits.
func sizeDigest(n int64) int64 {
	u := uint64(n)
	u ^= u >> 10
	u ^= u >> 20
	u ^= u >> 40
	return int64(u & fieldMask)
}

// mismatch describes how a received tag differs from the expected one.
func (c *Comm) mismatch(got int32, src int) *Error {
	want := c.tag
	field := func(t int32, shift, mask int) int { return int(t) >> shift & mask }
	switch {
	case got&tagMark == 0 || got < 0:
		return Errorf(ErrOther, "%s: rank %d is building a communicator while this process runs %s", c.T.Name(), src, Kind(field(want, kindShift, 31)))
	case field(got, kindShift, 31) != field(want, kindShift, 31):
		return Errorf(ErrOther, "%s: rank %d called %s while this process called %s", c.T.Name(), src,
			Kind(field(got, kindShift, 31)), Kind(field(want, kindShift, 31)))
	case field(got, rootShift, fieldMask) != field(want, rootShift, fieldMask):
		return Errorf(ErrRoot, "%s: %s: rank %d gave root %d, this process %d", c.T.Name(), Kind(field(want, kindShift, 31)), src,
			field(got, rootShift, fieldMask), field(want, rootShift, fieldMask))
	case field(got, opShift, 31) != field(want, opShift, 31):
		return Errorf(ErrOp, "%s: %s: rank %d gave another reduction op", c.T.Name(), Kind(field(want, kindShift, 31)), src)
	}
	return Errorf(ErrCount, "%s: %s: rank %d gave another count", c.T.Name(), Kind(field(want, kindShift, 31)), src)
}

// Fault records a mismatch (the first one counts); the collective goes on,
// so that no process waits for a message this one would not send, and
// reports it at the end.
func (c *Comm) Fault(e *Error) {
	if c.fault == nil {
		c.fault = e
	}
}

// Pending is a send or receive started by Isend or Irecv.
type Pending struct {
	r    Request
	buf  []byte
	peer int
	recv bool
}

// Isend starts sending buf to rank dest (of the remote group, on an
// intercommunicator), tagged for the collective running.
func (c *Comm) Isend(buf []byte, dest int) (Pending, error) {
	r, err := c.T.Isend(buf, dest, int(c.tag))
	if err != nil {
		return Pending{}, err
	}
	return Pending{r: r, buf: buf, peer: dest}, nil
}

// Irecv starts receiving exactly len(buf) bytes from rank src, sent for
// the collective running.
func (c *Comm) Irecv(buf []byte, src int) (Pending, error) {
	r, err := c.T.Irecv(buf, src, c.recvTag())
	if err != nil {
		return Pending{}, err
	}
	return Pending{r: r, buf: buf, peer: src, recv: true}, nil
}

// Wait waits for every operation (zero Pendings are skipped). A receive
// that got another collective's message, or the wrong number of bytes, is
// recorded with Fault; the error is for failures that stop the collective.
func (c *Comm) Wait(ps ...Pending) error {
	var first error
	for _, p := range ps {
		if p.r == nil {
			continue
		}
		st, err := p.r.Wait()
		if err != nil && !errors.Is(err, ErrTruncated) {
			if first == nil {
				first = err
			}
			continue
		}
		if p.recv {
			c.received(st, err, p.buf, p.peer)
		}
	}
	return first
}

// received records what is wrong with a receive from rank peer into buf
// (another collective's message, or the wrong number of bytes) with
// Fault; err is nil or wraps ErrTruncated.
func (c *Comm) received(st Status, err error, buf []byte, peer int) {
	switch {
	case int32(st.Tag) != c.tag:
		c.Fault(c.mismatch(int32(st.Tag), peer))
	case err != nil:
		c.Fault(Errorf(ErrCount, "%s: rank %d sent more than the %d bytes this process expects", c.T.Name(), peer, len(buf)))
	case st.Count != len(buf):
		c.Fault(Errorf(ErrCount, "%s: rank %d sent %d bytes where this process expects %d", c.T.Name(), peer, st.Count, len(buf)))
	}
}

// Send sends buf to rank dest and waits.
func (c *Comm) Send(buf []byte, dest int) error {
	p, err := c.Isend(buf, dest)
	if err != nil {
		return err
	}
	return c.Wait(p)
}

// Recv receives len(buf) bytes from rank src and waits.
func (c *Comm) Recv(buf []byte, src int) error {
	if t, ok := c.T.(Receiver); ok {
		st, err := t.Recv(buf, src, c.recvTag())
		if err != nil && !errors.Is(err, ErrTruncated) {
			return err
		}
		c.received(st, err, buf, src)
		return nil
	}
	p, err := c.Irecv(buf, src)
	if err != nil {
		return err
	}
	return c.Wait(p)
}

// Sendrecv sends to one rank and receives from another at once.
func (c *Comm) Sendrecv(send []byte, dest int, recv []byte, src int) error {
	if _, ok := c.T.(Receiver); ok {
		// The send under way, the blocking receive (whose wait moves the
		// send along too), then the send's end.
		s, err := c.Isend(send, dest)
		if err != nil {
			return err
		}
		rerr := c.Recv(recv, src)
		if err := c.Wait(s); err != nil {
			return err
		}
		return rerr
	}
	r, err := c.Irecv(recv, src)
	if err != nil {
		return err
	}
	s, err := c.Isend(send, dest)
	if err != nil {
		c.Wait(r)
		return err
	}
	return c.Wait(s, r)
}

// Buffer returns n bytes aligned for any element type (reductions view
// them as typed slices).
func Buffer(n int) []byte {
	if n == 0 {
		return nil
	}
	w := make([]uint64, (n+7)/8)
	return bytesOfWords(w)[:n]
}

// Clone returns an aligned copy of b.
func Clone(b []byte) []byte {
	out := Buffer(len(b))
	cached.Copy(out, b)
	return out
}

func (c *Comm) String() string { return fmt.Sprintf("%s (coll %s)", c.T.Name(), c.selected) }

func bytesOfWords(w []uint64) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), len(w)*8)
}
