package mpi

import (
	"context"
	"sync"

	"github.com/lamgo/lam/libmpi/internal/core"
)

// Message is a message a matched probe (Mprobe, Improbe) took from the
// matching queue (MPI_Message): no receive but the Mrecv or Imrecv given
// it can have it, so probe-then-receive is safe when several goroutines
// receive at once. A Message is received once; after that it is what MPI
// calls MPI_MESSAGE_NULL, and receiving it again fails with ErrRequest.
type Message struct {
	m      *core.Message // nil for MessageNoProc
	comm   *Comm
	noProc bool
	mu     sync.Mutex
	used   bool
}

// MessageNoProc is the message a matched probe of ProcNull returns
// (MPI_MESSAGE_NO_PROC): receiving it completes at once with source
// ProcNull, tag AnyTag and no data.
var MessageNoProc = &Message{noProc: true}

// probeArgs checks a probe's arguments.
func probeArgs(c *Comm, source, tag int) (*core.Engine, error) {
	return recvArgs(c, source, tag)
}

// Mprobe waits for a message from source (or AnySource) with tag (or
// AnyTag) on c, takes it from the matching queue and describes it.
func Mprobe(c *Comm, source, tag int) (*Message, Status, error) {
	return MprobeContext(context.Background(), c, source, tag)
}

// MprobeContext is Mprobe, giving up when ctx ends with an error of class
// ErrOther (no message is taken then).
func MprobeContext(ctx context.Context, c *Comm, source, tag int) (*Message, Status, error) {
	e, err := probeArgs(c, source, tag)
	if err != nil {
		return nil, Status{}, err
	}
	if source == ProcNull {
		return MessageNoProc, Status{Source: ProcNull, Tag: AnyTag}, nil
	}
	m, err := e.Mprobe(ctx, c.context, source, tag)
	if err != nil {
		if ctx.Err() != nil {
			return nil, Status{}, gaveUp(ErrOther, "matched probe", err)
		}
		return nil, Status{}, c.fail(fromCore(err))
	}
	return &Message{m: m, comm: c}, statusOf(m.Status()), nil
}

// Improbe takes a matching message if one has arrived, and describes it;
// it reports false (and a nil Message) if none has.
func Improbe(c *Comm, source, tag int) (*Message, Status, bool, error) {
	e, err := probeArgs(c, source, tag)
	if err != nil {
		return nil, Status{}, false, err
	}
	if source == ProcNull {
		return MessageNoProc, Status{Source: ProcNull, Tag: AnyTag}, true, nil
	}
	m, ok := e.Improbe(c.context, source, tag)
	if !ok {
		return nil, Status{}, false, nil
	}
	return &Message{m: m, comm: c}, statusOf(m.Status()), true, nil
}

// take marks the message received, or fails if it was.
func (m *Message) take() error {
	if m == nil {
		return errorf(ErrRequest, "receive of a null message")
	}
	if m.noProc {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.used {
		return errorf(ErrRequest, "the message was received already")
	}
	m.used = true
	return nil
}

// Mrecv receives a message a matched probe took into buf.
func Mrecv[T Elem](buf []T, m *Message) (Status, error) {
	r, err := Imrecv(buf, m)
	if err != nil {
		return Status{}, err
	}
	return r.Wait()
}

// Imrecv starts receiving a message a matched probe took into buf.
func Imrecv[T Elem](buf []T, m *Message) (*Request, error) {
	e, err := engine()
	if err != nil {
		return nil, err
	}
	if err := m.take(); err != nil {
		return nil, World.fail(err)
	}
	if m.noProc {
		r := e.NewRecv(nil, ProcNull, AnyTag, 0)
		e.Start(r) // completes at once
		return &Request{r: r, comm: World}, nil
	}
	r := e.Imrecv(bytesOf(buf), m.m)
	if r == nil {
		return nil, m.comm.fail(errorf(ErrRequest, "the message was received already"))
	}
	return &Request{r: r, comm: m.comm}, nil
}
