package mpi

import (
	"context"
	"sort"
	"sync"

	"github.com/lamgo/lam/libmpi/internal/core"
)

// BsendOverhead is what each buffered message takes in the attached buffer
// beyond its data (MPI_BSEND_OVERHEAD).
const BsendOverhead = 64

// The attached buffer of buffered sends: messages are copied into it and
// sent from there, so that Bsend returns at once.
var bsend struct {
	mu    sync.Mutex
	buf   []byte
	spans []span // in use, by offset
}

type span struct {
	off, n int
	req    *core.Request
}

// BufferAttach gives MPI a buffer for buffered sends (MPI_Buffer_attach).
func BufferAttach(b []byte) error {
	bsend.mu.Lock()
	defer bsend.mu.Unlock()
	if bsend.buf != nil {
		return errorf(ErrBuffer, "a buffer is already attached")
	}
	if len(b) == 0 {
		return errorf(ErrBuffer, "empty buffer")
	}
	bsend.buf, bsend.spans = b, nil
	return nil
}

// BufferDetach waits until every buffered message has been sent and
// returns the buffer (MPI_Buffer_detach).
func BufferDetach() ([]byte, error) {
	bsend.mu.Lock()
	defer bsend.mu.Unlock()
	if bsend.buf == nil {
		return nil, errorf(ErrBuffer, "no buffer attached")
	}
	for _, s := range bsend.spans {
		if err := st.engine.Wait(context.Background(), s.req); err != nil {
			return nil, fromCore(err)
		}
	}
	b := bsend.buf
	bsend.buf, bsend.spans = nil, nil
	return b, nil
}

// reserve finds n bytes in the attached buffer, reclaiming the space of
// messages already sent.
func reserve(n int) (int, bool) {
	live := bsend.spans[:0]
	for _, s := range bsend.spans {
		if !s.req.Done() {
			live = append(live, s)
		}
	}
	bsend.spans = live
	at := 0
	for _, s := range bsend.spans {
		if s.off-at >= n {
			return at, true
		}
		at = s.off + s.n
	}
	if len(bsend.buf)-at >= n {
		return at, true
	}
	return 0, false
}

// Bsend sends in buffered mode: the message is copied into the attached
// buffer and the call returns at once. With too little room it fails
// with ErrBuffer.
func Bsend[T Elem](c *Comm, buf []T, dest, tag int) error {
	r, err := newSend(c, buf, dest, tag, core.Standard)
	if err != nil {
		return err
	}
	return c.fail(startBuffered(r))
}

// Ibsend starts a buffered-mode send; the request completes at once.
func Ibsend[T Elem](c *Comm, buf []T, dest, tag int) (*Request, error) {
	if err := Bsend(c, buf, dest, tag); err != nil {
		return nil, err
	}
	return nil, nil // MPI_REQUEST_NULL: nothing left to wait for
}

// BsendInit makes a persistent buffered-mode send: each Start copies buf
// into the attached buffer and completes at once.
func BsendInit[T Elem](c *Comm, buf []T, dest, tag int) (*Request, error) {
	r, err := persistent(newSend(c, buf, dest, tag, core.Standard))
	if r != nil {
		r.buffered = true
	}
	return r, err
}

// startBuffered copies a standard send's data into the attached buffer and
// starts it from there.
func startBuffered(r *Request) error {
	data := r.r.Buffer()
	bsend.mu.Lock()
	defer bsend.mu.Unlock()
	st.engine.Progress()
	if bsend.buf == nil {
		return errorf(ErrBuffer, "Bsend without an attached buffer")
	}
	off, ok := reserve(len(data) + BsendOverhead)
	if !ok {
		return errorf(ErrBuffer, "the attached buffer (%d bytes) has no room for %d more", len(bsend.buf), len(data)+BsendOverhead)
	}
	copy(bsend.buf[off:], data)
	cp := st.engine.CopyTo(r.r, bsend.buf[off:off+len(data)])
	bsend.spans = append(bsend.spans, span{off: off, n: len(data) + BsendOverhead, req: cp})
	sort.Slice(bsend.spans, func(i, j int) bool { return bsend.spans[i].off < bsend.spans[j].off })
	st.engine.Start(cp)
	return nil
}
