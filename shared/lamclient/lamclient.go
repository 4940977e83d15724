// Package lamclient is the client side of the lamd's local API, used by
// the tools and by MPI processes. A Client is one connection to the local
// lamd of a session; it is safe for concurrent use.
package lamclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lamgo/lam/shared/localsock"
	"github.com/lamgo/lam/shared/session"
	"github.com/lamgo/lam/shared/wire"
)

// ErrNoDaemon means no lamd answers on the session's socket.
var ErrNoDaemon = errors.New("no LAM daemon is running for this session")

// ErrClosed means the connection to the lamd is gone.
var ErrClosed = errors.New("connection to the lamd closed")

// Client is a connection to the local lamd.
type Client struct {
	dir      session.Dir
	name     string
	conn     *wire.Conn
	welcome  wire.Welcome
	nextID   atomic.Uint64
	mu       sync.Mutex
	pending  map[uint64]chan wire.Frame
	closed   bool
	readErr  error
	readDone chan struct{}
}

// Dial connects to the lamd of session dir. name and role tell the lamd
// who is calling (for its logs).
func Dial(ctx context.Context, dir session.Dir, name string, role uint8) (*Client, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
	}
	uc, err := localsock.Dial(ctx, dir.Socket())
	if err != nil {
		if localsock.IsNoDaemon(err) {
			return nil, fmt.Errorf("%w (%s)", ErrNoDaemon, dir.Socket())
		}
		return nil, fmt.Errorf("connect to the lamd: %w", err)
	}
	c := &Client{dir: dir, name: name, conn: wire.NewConn(uc), pending: map[uint64]chan wire.Frame{}, readDone: make(chan struct{})}
	if c.welcome, err = hello(ctx, uc, name, role); err != nil {
		uc.Close()
		return nil, err
	}
	go c.readLoop()
	return c, nil
}

// hello says hello on a new connection and reads the lamd's welcome,
// within ctx's deadline. It reads no byte past the welcome.
func hello(ctx context.Context, uc *net.UnixConn, name string, role uint8) (wire.Welcome, error) {
	if dl, ok := ctx.Deadline(); ok {
		_ = uc.SetDeadline(dl)
	}
	defer uc.SetDeadline(time.Time{})
	frame := wire.AppendFrame(nil, 0, 0, &wire.Hello{Version: wire.Version, Role: role, PID: int32(os.Getpid()), Name: filepath.Base(name)})
	if _, err := uc.Write(frame); err != nil {
		return wire.Welcome{}, fmt.Errorf("hello to the lamd: %w", err)
	}
	f, err := wire.ReadFrame(uc)
	if err != nil {
		return wire.Welcome{}, fmt.Errorf("hello from the lamd: %w", err)
	}
	switch m := f.Msg.(type) {
	case *wire.Welcome:
		return *m, nil
	case *wire.Error:
		return wire.Welcome{}, m
	}
	return wire.Welcome{}, fmt.Errorf("the lamd answered hello with %v", f.Kind)
}

// Node returns the local node's id.
func (c *Client) Node() int32 { return c.welcome.Node }

// LamdPID returns the local lamd's pid.
func (c *Client) LamdPID() int32 { return c.welcome.LamdPID }

// Universe returns the universe's id.
func (c *Client) Universe() string { return c.welcome.Universe }

// Close closes the connection; calls in progress fail with ErrClosed.
func (c *Client) Close() error {
	err := c.conn.Close()
	<-c.readDone
	return err
}

// Done is closed when the connection is gone (the lamd stopped).
func (c *Client) Done() <-chan struct{} { return c.readDone }

// Err says why the connection is gone, wrapping ErrClosed, once Done is
// closed; before, it returns nil.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case !c.closed:
		return nil
	case c.readErr == nil:
		return ErrClosed
	}
	return fmt.Errorf("%w: %w", ErrClosed, c.readErr)
}

func (c *Client) readLoop() {
	defer close(c.readDone)
	var err error
	for {
		var f wire.Frame
		f, err = c.conn.Read()
		if err != nil {
			break
		}
		c.mu.Lock()
		ch := c.pending[f.ID]
		if f.Flags&wire.FlagMore == 0 {
			delete(c.pending, f.ID)
		}
		c.mu.Unlock()
		if ch != nil {
			ch <- f
		}
	}
	c.mu.Lock()
	c.closed, c.readErr = true, err
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	c.mu.Unlock()
}

// stream sends a request and returns the channel its replies arrive on;
// the channel is closed if the connection fails.
func (c *Client) stream(m wire.Message, depth int) (uint64, chan wire.Frame, error) {
	id := c.nextID.Add(1)
	ch := make(chan wire.Frame, depth)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return 0, nil, ErrClosed
	}
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.conn.Write(id, 0, m, 30*time.Second); err != nil {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return 0, nil, fmt.Errorf("%w: %v", ErrClosed, err)
	}
	return id, ch, nil
}

// cancel abandons request id.
func (c *Client) cancel(id uint64) {
	c.mu.Lock()
	_, live := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if live {
		_ = c.conn.Write(id, 0, &wire.Cancel{}, time.Second)
	}
}

// next waits for the next frame of request id.
func (c *Client) next(ctx context.Context, id uint64, ch chan wire.Frame) (wire.Frame, error) {
	select {
	case f, ok := <-ch:
		if !ok {
			return wire.Frame{}, ErrClosed
		}
		if e, isErr := f.Msg.(*wire.Error); isErr {
			return f, e
		}
		return f, nil
	case <-ctx.Done():
		c.cancel(id)
		return wire.Frame{}, context.Cause(ctx)
	}
}

// call sends a request and waits for its single reply.
func (c *Client) call(ctx context.Context, m wire.Message) (wire.Message, error) {
	id, ch, err := c.stream(m, 1)
	if err != nil {
		return nil, err
	}
	f, err := c.next(ctx, id, ch)
	if err != nil {
		return nil, err
	}
	return f.Msg, nil
}

// ask sends a request and returns its single reply, which must be a T
// (want says what that is).
func ask[T wire.Message](ctx context.Context, c *Client, req wire.Message, want string) (T, error) {
	var zero T
	m, err := c.call(ctx, req)
	if err != nil {
		return zero, err
	}
	r, ok := m.(T)
	if !ok {
		return zero, unexpected(want, m)
	}
	return r, nil
}

// collect sends a request whose replies are Ts up to an OK (want says
// what they are), calling each for each; an error from each stops the
// stream.
func collect[T wire.Message](ctx context.Context, c *Client, req wire.Message, want string, each func(T) error) error {
	id, ch, err := c.stream(req, 64)
	if err != nil {
		return err
	}
	for {
		f, err := c.next(ctx, id, ch)
		if err != nil {
			return err
		}
		switch m := f.Msg.(type) {
		case T:
			if err := each(m); err != nil {
				c.cancel(id)
				return err
			}
		case *wire.OK:
			return nil
		default:
			return unexpected(want, m)
		}
	}
}

func unexpected(want string, m wire.Message) error {
	return fmt.Errorf("the lamd answered with %v, not %s", m.Kind(), want)
}

// Nodes returns the node table.
func (c *Client) Nodes(ctx context.Context) (*wire.Nodes, error) {
	return ask[*wire.Nodes](ctx, c, &wire.NodesReq{}, "a node table")
}

// Echo sends data to node's lamd and returns what came back.
func (c *Client) Echo(ctx context.Context, node int32, data []byte) ([]byte, error) {
	r, err := ask[*wire.EchoReply](ctx, c, &wire.Echo{Node: node, Data: data}, "an echo")
	if err != nil {
		return nil, err
	}
	return r.Data, nil
}

// Halt halts the universe, calling progress for each node's answer.
func (c *Client) Halt(ctx context.Context, timeout time.Duration, progress func(*wire.HaltProgress)) error {
	return collect(ctx, c, &wire.Halt{TimeoutMS: int32(timeout / time.Millisecond)}, "halt progress", func(m *wire.HaltProgress) error {
		if progress != nil {
			progress(m)
		}
		return nil
	})
}

// Signal signals processes a node's lamd started: one pid, a job's, or
// (pid 0, job "") all.
func (c *Client) Signal(ctx context.Context, node int32, job string, pid int32, sig int32) error {
	_, err := c.call(ctx, &wire.Signal{Node: node, Job: job, PID: pid, Signal: sig})
	return err
}

// Clean runs one lamclean phase on a node.
func (c *Client) Clean(ctx context.Context, node int32, phase uint8) error {
	_, err := c.call(ctx, &wire.Clean{Node: node, Phase: phase})
	return err
}

// Send delivers an out-of-band message to a node.
func (c *Client) Send(ctx context.Context, node, event, typ int32, data []byte) error {
	_, err := c.call(ctx, &wire.Send{Node: node, Event: event, Type: typ, Data: data})
	return err
}

// Recv waits for an out-of-band message to this node.
func (c *Client) Recv(ctx context.Context, event, typ int32) (*wire.Msg, error) {
	return c.recv(ctx, &wire.Recv{Event: event, Type: typ})
}

// TryRecv returns a waiting message or an error with code CodeNoEntry.
func (c *Client) TryRecv(ctx context.Context, event, typ int32) (*wire.Msg, error) {
	return c.recv(ctx, &wire.Recv{Event: event, Type: typ, Try: true})
}

// recv sends a receive and waits for its message. When ctx ends first the
// receive is cancelled, but the lamd may have handed a message to it
// before it read the cancel: that message is this receive's and nobody
// else will get it, so recv waits for the lamd's last word (at most
// cancelGrace) and returns a message that came rather than drop it.
func (c *Client) recv(ctx context.Context, r *wire.Recv) (*wire.Msg, error) {
	id, ch, err := c.stream(r, 1)
	if err != nil {
		return nil, err
	}
	select {
	case f, ok := <-ch:
		return msgReply(f, ok)
	case <-ctx.Done():
	}
	if err := c.conn.Write(id, 0, &wire.Cancel{}, time.Second); err == nil {
		t := time.NewTimer(cancelGrace)
		defer t.Stop()
		select {
		case f, ok := <-ch:
			if m, err := msgReply(f, ok); err == nil {
				return m, nil
			}
		case <-t.C:
		}
	}
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
	return nil, context.Cause(ctx)
}

// cancelGrace bounds the wait for the lamd's answer to a cancelled
// receive.
const cancelGrace = 2 * time.Second

// msgReply is the message of a receive's reply frame (ok false: the
// connection closed).
func msgReply(f wire.Frame, ok bool) (*wire.Msg, error) {
	if !ok {
		return nil, ErrClosed
	}
	switch m := f.Msg.(type) {
	case *wire.Msg:
		return m, nil
	case *wire.Error:
		return nil, m
	default:
		return nil, unexpected("a message", m)
	}
}

// AddNode adds a node to the universe (lamgrow).
func (c *Client) AddNode(ctx context.Context, n wire.Node) error {
	_, err := c.call(ctx, &wire.AddNode{Node: n})
	return err
}

// RemoveNode removes a node (lamshrink), warning its processes wait
// beforehand.
func (c *Client) RemoveNode(ctx context.Context, id int32, wait time.Duration) error {
	_, err := c.call(ctx, &wire.RemoveNode{ID: id, WaitMS: int32(wait / time.Millisecond)})
	return err
}

// Code returns the wire error code in err, or 0.
func Code(err error) int32 {
	var e *wire.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// Secret returns the universe's secret (for lamgrow).
func (c *Client) Secret(ctx context.Context) (string, error) {
	s, err := ask[*wire.Secret](ctx, c, &wire.SecretReq{}, "the secret")
	if err != nil {
		return "", err
	}
	return s.Key, nil
}

// GetFile reads a program from a node (mpirun -s), calling chunk for each
// piece.
func (c *Client) GetFile(ctx context.Context, node int32, path string, chunk func([]byte) error) error {
	return collect(ctx, c, &wire.FileGet{Node: node, Path: path}, "a file", func(m *wire.FileChunk) error { return chunk(m.Data) })
}

// PutFile stores data as a program on a node, in pieces, and returns its
// path there.
func (c *Client) PutFile(ctx context.Context, node int32, name string, data []byte) (string, error) {
	path := ""
	for off := 0; off == 0 || off < len(data); {
		end := min(off+(1<<20), len(data))
		m, err := c.call(ctx, &wire.FilePut{Node: node, Name: name, Append: off > 0, Data: data[off:end]})
		if err != nil {
			return "", err
		}
		p, ok := m.(*wire.FilePath)
		if !ok {
			return "", unexpected("a file path", m)
		}
		path = p.Path
		off = end
		if len(data) == 0 {
			break
		}
	}
	return path, nil
}
