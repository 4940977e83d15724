package lamclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/shared/localsock"
	"github.com/lamgo/lam/shared/wire"
)

// Stream is an MPI process's own connection to its lamd for one event's
// out-of-band messages (wire.Attach): the lamd writes each message to it
// as it arrives, and Posts leave without waiting for an answer. A Stream
// never blocks and buffers nothing it has not written: its user polls Fd
// (readable when a message came, writable when the lamd takes more) and
// calls Next, Post and Flush. It is for one goroutine at a time.
type Stream struct {
	// fd is the connection's descriptor, a duplicate kept out of Go's
	// network poller: the process polls it itself, and the runtime's
	// poller would wake a thread of its own at every message.
	fd int

	in   wire.FrameBuffer // received, not yet returned
	out  []byte           // out[opos:] is the rest of a message the socket took part of
	opos int
	msg  wire.Msg
	err  error // sticky
}

// DialStream opens a stream for event's messages of a type matching typ,
// on a new connection to the client's lamd.
func (c *Client) DialStream(ctx context.Context, event, typ int32) (*Stream, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
	}
	uc, err := localsock.Dial(ctx, c.dir.Socket())
	if err != nil {
		if localsock.IsNoDaemon(err) {
			return nil, fmt.Errorf("%w (%s)", ErrNoDaemon, c.dir.Socket())
		}
		return nil, fmt.Errorf("connect to the lamd: %w", err)
	}
	s, err := attach(ctx, uc, c.name, event, typ)
	if err != nil {
		uc.Close()
		return nil, err
	}
	return s, nil
}

func attach(ctx context.Context, uc *net.UnixConn, name string, event, typ int32) (*Stream, error) {
	if _, err := hello(ctx, uc, name, wire.RoleStream); err != nil {
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = uc.SetDeadline(dl)
	}
	if _, err := uc.Write(wire.AppendFrame(nil, 1, 0, &wire.Attach{Event: event, Type: typ})); err != nil {
		return nil, fmt.Errorf("attach to the lamd: %w", err)
	}
	f, err := wire.ReadFrame(uc) // no further: messages may follow
	if err != nil {
		return nil, fmt.Errorf("attach to the lamd: %w", err)
	}
	switch m := f.Msg.(type) {
	case *wire.OK:
	case *wire.Error:
		return nil, fmt.Errorf("attach to the lamd: %w", m)
	default:
		return nil, fmt.Errorf("attach to the lamd: %w", unexpected("ok", m))
	}
	fd, err := localsock.Detach(uc)
	if err != nil {
		return nil, fmt.Errorf("attach to the lamd: %w", err)
	}
	return &Stream{fd: fd}, nil
}

// Fd is the connection's descriptor, non-blocking.
func (s *Stream) Fd() int { return s.fd }

// Pending reports whether the socket took only part of a message: Flush
// writes the rest.
func (s *Stream) Pending() bool { return s.opos < len(s.out) }

// Post sends data, after head, to event on node with type typ, and
// reports whether the socket took all of it. When it took part, Pending
// reports true until Flush has written the rest (the message must not be
// posted again); when it took nothing, Pending stays false. While the
// rest of a message is pending Post takes nothing: Flush first. The lamd
// reports a post it cannot deliver through Next.
func (s *Stream) Post(node, event, typ int32, head, data []byte) (bool, error) {
	if s.err != nil || s.Pending() {
		return false, s.err
	}
	s.out = wire.AppendPost(s.out[:0], 0, node, event, typ, head, data)
	s.opos = 0
	n, err := s.write(s.out)
	if err != nil {
		return false, err
	}
	if n == 0 {
		s.out = s.out[:0]
		return false, nil
	}
	s.opos = n
	return s.Flush()
}

// write writes what the socket takes of b now.
func (s *Stream) write(b []byte) (int, error) {
	for {
		n, err := unix.Write(s.fd, b)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return 0, nil
		case err != nil:
			s.err = fmt.Errorf("%w: %w", ErrClosed, err)
			return 0, s.err
		}
		return n, nil
	}
}

// Flush writes what the socket takes of the rest of a message, and
// reports whether none is left.
func (s *Stream) Flush() (bool, error) {
	for s.err == nil && s.opos < len(s.out) {
		n, err := unix.Write(s.fd, s.out[s.opos:])
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return false, nil
		case err != nil:
			s.err = fmt.Errorf("%w: %w", ErrClosed, err)
		default:
			s.opos += n
		}
	}
	if s.err != nil {
		return false, s.err
	}
	if cap(s.out) > 4<<20 {
		s.out = nil
	}
	s.out, s.opos = s.out[:0], 0
	return true, nil
}

// Next returns the next message that came, without waiting: ok is false
// when none is complete yet. data stays valid until the next call. A
// post the lamd could not deliver, or the connection's end, is an error
// (and every later call returns it).
func (s *Stream) Next() (data []byte, ok bool, err error) {
	if s.err != nil {
		return nil, false, s.err
	}
	for {
		h, body, ok, err := s.in.Next()
		if err != nil {
			return nil, false, s.fail(err)
		}
		if ok {
			return s.frame(h, body)
		}
		n, err := unix.Read(s.fd, s.in.Space())
		switch {
		case err == unix.EINTR:
		case err == unix.EAGAIN:
			return nil, false, nil
		case err != nil:
			return nil, false, s.fail(err)
		case n == 0:
			return nil, false, s.fail(io.EOF)
		default:
			s.in.Filled(n)
		}
	}
}

func (s *Stream) frame(h wire.Header, body []byte) ([]byte, bool, error) {
	switch h.Kind {
	case wire.KindMsg:
		if err := s.msg.Unmarshal(body); err != nil {
			return nil, false, s.fail(err)
		}
		return s.msg.Data, true, nil
	case wire.KindError:
		m, err := wire.Decode(h.Kind, body)
		if err != nil {
			return nil, false, s.fail(err)
		}
		s.err = fmt.Errorf("the lamd could not deliver a message: %w", m.(*wire.Error))
		return nil, false, s.err
	}
	return nil, false, s.fail(fmt.Errorf("%w: a %v frame on a stream", wire.ErrMalformed, h.Kind))
}

func (s *Stream) fail(err error) error {
	if errors.Is(err, io.EOF) {
		s.err = fmt.Errorf("%w: the lamd closed the stream", ErrClosed)
	} else {
		s.err = fmt.Errorf("%w: %w", ErrClosed, err)
	}
	return s.err
}

// Close writes the posts still waiting, for at most timeout while the
// lamd takes none, then closes the connection.
func (s *Stream) Close(timeout time.Duration) error {
	var err error
	for deadline := time.Now().Add(timeout); s.err == nil && s.Pending(); {
		left := time.Until(deadline)
		if left <= 0 {
			err = fmt.Errorf("%d bytes of messages not taken by the lamd within %v", len(s.out)-s.opos, timeout)
			break
		}
		fds := []unix.PollFd{{Fd: int32(s.fd), Events: unix.POLLOUT}}
		if _, perr := unix.Poll(fds, int(min(left, 100*time.Millisecond)/time.Millisecond)+1); perr != nil && perr != unix.EINTR {
			err = perr
			break
		}
		if _, ferr := s.Flush(); ferr != nil {
			err = ferr
		}
	}
	return errors.Join(err, unix.Close(s.fd))
}
