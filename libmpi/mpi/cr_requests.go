package mpi

import (
	"github.com/lamgo/lam/libmpi/internal/core"
)

// Requests at a checkpoint. The checkpoint callback hands the library a
// request of a non-blocking or persistent point-to-point operation
// (CheckpointWriter.Request); the library saves the operation — the
// communicator, the peer, the tag, the buffer's length, the mode,
// whether it is persistent and active — and where it stands after the
// drain: a send whose message has left (it is with its receiver, saved
// there if not received) is done, or, synchronous, done when the
// receiver matches the message (after the restart if it had not before); a send whose message has not left
// keeps its data; a receive that got its message keeps what it received;
// one that did not is posted again. The restart callback gets the
// equivalent request back on its new buffer (ReadRequest): done, with
// the received bytes in the buffer, or started again.

// crRequest is a request as a checkpoint saves it.
type crRequest struct {
	Null       bool // nil, or waited for: nothing to give back
	Send       bool
	Mode       core.SendMode
	Persistent bool
	Buffered   bool   // a persistent buffered send (BsendInit)
	Active     bool   // started and not waited for
	Done       bool   // completed (a send: its message left)
	Ack        uint64 // a synchronous send whose message left and is not matched yet: core.RequestOp.Ack
	Comm       int    // CheckpointWriter.commRef
	Rank, Tag  int    // destination, or source (or AnySource), and tag
	Bytes      int    // the buffer's length
	Data       []byte
	Source     int // a completed receive's status
	RecvTag    int
	Count      int
	Cancelled  bool
}

// Request saves req, a request of the program's, with the program's
// state: the restart callback gets it back with ReadRequest, in the same
// place among what it reads. nil, and a request already waited for,
// come back as nil. The requests the library cannot make again are
// refused, with the reason: those of nonblocking collectives (their
// schedules live in this process: wait for them before the checkpoint
// can matter, or start them again at restart), generalized requests (the
// program's functions), and requests over a derived datatype or of a Go
// value (IsendType, IrecvValue ...).
func (w *CheckpointWriter) Request(req *Request) error {
	s, err := w.saveRequest(req)
	if err != nil {
		return err
	}
	return w.Encode(s)
}

func (w *CheckpointWriter) saveRequest(req *Request) (crRequest, error) {
	switch {
	case req == nil, req.waited && !req.r.Persistent:
		return crRequest{Null: true}, nil
	case req.sched != nil:
		return crRequest{}, errorf(ErrRequest, "checkpoint: the request of a nonblocking collective cannot be saved (its schedule lives in this process); wait for it before, or start the collective again after the restart")
	case req.x != nil && req.x.gen != nil:
		return crRequest{}, errorf(ErrRequest, "checkpoint: a generalized request cannot be saved (its functions are the program's)")
	case req.x != nil && (req.x.typed != nil || req.x.decode != nil):
		return crRequest{}, errorf(ErrRequest, "checkpoint: a request over a derived datatype or of a Go value cannot be saved; save its data and post it again at restart")
	}
	ref, err := w.commRef(req.comm)
	if err != nil {
		return crRequest{}, err
	}
	r := req.r
	op := r.Op()
	s := crRequest{Send: op.Send, Mode: op.Mode, Persistent: r.Persistent, Buffered: req.buffered, Active: !req.inactive(),
		Comm: ref, Rank: op.Rank, Tag: op.Tag, Bytes: len(r.Buffer())}
	if !s.Active {
		return s, nil
	}
	if s.Send {
		s.Done, s.Ack = op.Delivered, op.Ack
		if !s.Done {
			s.Data = r.Buffer()
		}
		return s, nil
	}
	if !r.Done() {
		return s, nil
	}
	source, tag, count, cancelled, rerr := r.Result()
	if rerr != nil {
		return crRequest{}, errorf(ErrRequest, "checkpoint: the receive completed with an error, which a checkpoint does not save (wait for it first): %v", rerr)
	}
	s.Done, s.Source, s.RecvTag, s.Count, s.Cancelled = true, source, tag, count, cancelled
	s.Data = r.Buffer()[:min(count, len(r.Buffer()))]
	return s, nil
}

// ReadRequest reads a request the checkpoint callback saved with
// CheckpointWriter.Request and gives it back on buf, the program's new
// buffer of the same length as the saved request's: a request done
// before the checkpoint (a send whose message had left, a receive that
// had its message, whose bytes are now in buf) is done; one under way is
// started again (a receive posted, a send sent, from the data saved,
// which is copied into buf); a persistent request not active is not
// started. A saved nil comes back nil.
func ReadRequest[T Elem](r *CheckpointReader, buf []T) (*Request, error) {
	var s crRequest
	if err := r.Decode(&s); err != nil {
		return nil, err
	}
	if s.Null {
		return nil, nil
	}
	b := bytesOf(buf)
	if len(b) != s.Bytes {
		return nil, errorf(ErrBuffer, "restart: a buffer of %d bytes for a request saved with %d", len(b), s.Bytes)
	}
	c, err := r.comm(s.Comm)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, errorf(ErrComm, "restart: a request without a communicator")
	}
	var req *Request
	if s.Send {
		req, err = newSend(c, buf, s.Rank, s.Tag, s.Mode)
	} else {
		req, err = newRecv(c, buf, s.Rank, s.Tag)
	}
	if err != nil {
		return nil, err
	}
	req.r.Persistent, req.buffered = s.Persistent, s.Buffered
	switch {
	case !s.Active:
	case s.Done && s.Ack != 0:
		// Its message is with its receiver, saved there if not
		// matched: the send completes at the match.
		st.engine.AwaitAck(req.r, s.Ack)
	case s.Done:
		if !s.Send {
			if len(s.Data) > len(b) {
				return nil, errorf(ErrTruncate, "restart: %d bytes received into a buffer of %d", len(s.Data), len(b))
			}
			copy(b, s.Data)
		}
		st.engine.Completed(req.r, core.Status{Source: s.Source, Tag: s.RecvTag, Count: s.Count, Cancelled: s.Cancelled})
	case s.Send:
		if len(s.Data) != len(b) {
			return nil, errorf(ErrBuffer, "restart: a send of %d bytes saved with %d", len(b), len(s.Data))
		}
		copy(b, s.Data)
		if s.Buffered {
			if err := startBuffered(req); err != nil {
				return nil, err
			}
			st.engine.Complete(req.r)
			break
		}
		st.engine.Start(req.r)
	default:
		// Posted once the restart callback has returned, after the
		// saved messages are queued: they came first.
		r.starts = append(r.starts, req.r)
	}
	return req, nil
}

// Persistent reports whether r is a persistent request (SendInit,
// RecvInit ...); false for nil.
func (r *Request) Persistent() bool { return r != nil && r.r.Persistent }
