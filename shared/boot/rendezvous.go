package boot

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/lamgo/lam/shared/linkauth"
	"github.com/lamgo/lam/shared/linknet"
	"github.com/lamgo/lam/shared/wire"
)

// The rendezvous: lamboot (or lamgrow) listens; each new lamd dials it
// over TLS keyed by the universe secret, says where it can be reached
// (BootHello), and waits; once every node has called back, lamboot sends
// each the Universe, and each answers OK once it serves its session (or an
// Error saying why it cannot).

// Server is the booting tool's end of the rendezvous.
type Server struct {
	l   *multiListener
	tls *tls.Config
}

// Listen opens the rendezvous listener on addr: host:port for TCP (port 0
// picks one), or vsock:CID for AF_VSOCK (a port is picked).
func Listen(addr string, secret linkauth.Secret) (*Server, error) {
	cfg, err := secret.TLS(true)
	if err != nil {
		return nil, err
	}
	s := &Server{l: newMultiListener(), tls: cfg}
	if linknet.IsVsock(addr) {
		_, err = s.Also(addr)
	} else {
		var l net.Listener
		if l, err = net.Listen("tcp", addr); err == nil {
			s.l.add(l)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("rendezvous listener: %w", err)
	}
	return s, nil
}

// Also listens on host too (an IP address or vsock:CID, port picked),
// for new lamds that reach this host another way (guests over vsock), and
// returns that listener's address.
func (s *Server) Also(host string) (net.Addr, error) {
	l, err := linknet.Listen(host)
	if err != nil {
		return nil, fmt.Errorf("rendezvous listener on %s: %w", host, err)
	}
	s.l.add(l)
	return l.Addr(), nil
}

// Addr returns the first listener's address.
func (s *Server) Addr() net.Addr { return s.l.first().Addr() }

// Close stops listening. Pending callbacks stay open.
func (s *Server) Close() error { return s.l.Close() }

// Callback is one lamd that called back.
type Callback struct {
	Hello  wire.BootHello
	Remote net.Addr
	c      *wire.Conn
}

// Accept waits for the next authenticated callback. Connections that fail
// the handshake are dropped and waiting goes on; ctx bounds the wait.
func (s *Server) Accept(ctx context.Context) (*Callback, error) {
	type result struct {
		cb  *Callback
		err error
	}
	for {
		ch := make(chan result, 1)
		go func() {
			nc, err := s.l.Accept()
			if err != nil {
				ch <- result{err: err}
				return
			}
			cb, err := s.handshake(nc)
			ch <- result{cb, err}
		}()
		select {
		case <-ctx.Done():
			s.l.Close() // unblocks the Accept
			r := <-ch
			if r.cb != nil {
				r.cb.c.Close()
			}
			return nil, context.Cause(ctx)
		case r := <-ch:
			if r.err != nil && errors.Is(r.err, net.ErrClosed) {
				return nil, r.err
			}
			if r.err != nil {
				continue // a stray or unauthenticated caller
			}
			return r.cb, nil
		}
	}
}

func (s *Server) handshake(nc net.Conn) (*Callback, error) {
	tc := tls.Server(nc, s.tls)
	_ = tc.SetDeadline(time.Now().Add(10 * time.Second))
	if err := tc.Handshake(); err != nil {
		nc.Close()
		return nil, fmt.Errorf("handshake: %w", err)
	}
	c := wire.NewConn(tc)
	f, err := c.Read()
	if err != nil {
		c.Close()
		return nil, err
	}
	h, ok := f.Msg.(*wire.BootHello)
	if !ok || h.Version != wire.Version {
		c.Close()
		return nil, fmt.Errorf("bad boot hello (%v)", f.Kind)
	}
	_ = tc.SetDeadline(time.Time{})
	return &Callback{Hello: *h, Remote: nc.RemoteAddr(), c: c}, nil
}

// Send sends the universe and waits (bounded by ctx) for the lamd's answer.
func (cb *Callback) Send(ctx context.Context, u *wire.Universe) error {
	if dl, ok := ctx.Deadline(); ok {
		_ = cb.c.NetConn().SetDeadline(dl)
	}
	defer cb.c.Close()
	// Closing the connection ends a wait that ctx cancels.
	stop := context.AfterFunc(ctx, func() { cb.c.Close() })
	defer stop()
	if err := cb.c.Write(0, 0, u, 0); err != nil {
		return fmt.Errorf("send the node table: %w", err)
	}
	f, err := cb.c.Read()
	if err != nil {
		return fmt.Errorf("no answer to the node table: %w", err)
	}
	switch m := f.Msg.(type) {
	case *wire.OK:
		return nil
	case *wire.Error:
		return errors.New(m.Msg)
	}
	return fmt.Errorf("answered the node table with %v", f.Kind)
}

// Abort tells the lamd the boot failed; it exits.
func (cb *Callback) Abort(reason string) {
	_ = cb.c.Write(0, 0, &wire.Error{Code: wire.CodeFailed, Msg: reason}, time.Second)
	cb.c.Close()
}

// Caller is the new lamd's end of the rendezvous.
type Caller struct {
	c  *wire.Conn
	tc *tls.Conn
}

// Dial calls back the booting tool at addr.
func Dial(ctx context.Context, addr string, secret linkauth.Secret) (*Caller, error) {
	cfg, err := secret.TLS(false)
	if err != nil {
		return nil, err
	}
	tc, err := DialTLS(ctx, addr, cfg, 10*time.Second)
	if err != nil {
		return nil, fmt.Errorf("call back %s: %w", addr, err)
	}
	return &Caller{c: wire.NewConn(tc), tc: tc}, nil
}

// DialTLS connects to addr (host:port or vsock:CID:port) and completes a
// TLS handshake, within timeout and ctx.
func DialTLS(ctx context.Context, addr string, cfg *tls.Config, timeout time.Duration) (*tls.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	nc, err := linknet.Dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	tc := tls.Client(nc, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		nc.Close()
		return nil, err
	}
	return tc, nil
}

// LocalHost is the host this lamd used to reach the booting tool (an IP
// address, or vsock:CID): the one its peers can reach it on.
func (c *Caller) LocalHost() string { return linknet.Host(c.tc.LocalAddr()) }

// Hello reports this lamd and waits (bounded by ctx) for the universe.
func (c *Caller) Hello(ctx context.Context, h *wire.BootHello) (*wire.Universe, error) {
	if dl, ok := ctx.Deadline(); ok {
		_ = c.tc.SetDeadline(dl)
	}
	h.Version = wire.Version
	if err := c.c.Write(0, 0, h, 0); err != nil {
		return nil, fmt.Errorf("boot hello: %w", err)
	}
	f, err := c.c.Read()
	if err != nil {
		return nil, fmt.Errorf("waiting for the node table: %w", err)
	}
	switch m := f.Msg.(type) {
	case *wire.Universe:
		return m, nil
	case *wire.Error:
		return nil, fmt.Errorf("the boot was abandoned: %s", m.Msg)
	}
	return nil, fmt.Errorf("expected the node table, got %v", f.Kind)
}

// Ack answers the universe: nil means this lamd now serves its session.
func (c *Caller) Ack(err error) error {
	defer c.c.Close()
	var m wire.Message = &wire.OK{}
	if err != nil {
		m = &wire.Error{Code: wire.CodeFailed, Msg: err.Error()}
	}
	return c.c.Write(0, 0, m, 10*time.Second)
}

// multiListener accepts from several listeners (TCP and vsock) as one.
type multiListener struct {
	mu     sync.Mutex
	ls     []net.Listener
	conns  chan net.Conn
	done   chan struct{}
	closed bool
}

func newMultiListener() *multiListener {
	return &multiListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (m *multiListener) add(l net.Listener) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		l.Close()
		return
	}
	m.ls = append(m.ls, l)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				if errors.Is(err, net.ErrClosed) {
					return
				}
				time.Sleep(10 * time.Millisecond) // e.g. out of descriptors: try again
				continue
			}
			select {
			case m.conns <- c:
			case <-m.done:
				c.Close()
				return
			}
		}
	}()
}

func (m *multiListener) first() net.Listener {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ls[0]
}

func (m *multiListener) Accept() (net.Conn, error) {
	select {
	case c := <-m.conns:
		return c, nil
	case <-m.done:
		return nil, net.ErrClosed
	}
}

func (m *multiListener) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	close(m.done)
	for _, l := range m.ls {
		l.Close()
	}
	return nil
}
