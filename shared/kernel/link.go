package kernel

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lamgo/lam/shared/boot"
	"github.com/lamgo/lam/shared/wire"
)

// Bounds on link operations.
const (
	linkHandshakeTimeout = 10 * time.Second
	linkWriteTimeout     = 30 * time.Second
	linkDialAttempts     = 10
)

// link is an authenticated connection to another node's lamd.
type link struct {
	k        *Kernel
	node     int32
	c        *wire.Conn
	src      source // requests the peer sent us
	lastSeen atomic.Int64
	once     sync.Once
	gone     chan struct{} // closed with the link

	// The window of Posts sent to the peer (stream.go).
	wmu      sync.Mutex
	inflight int
	room     chan struct{}
	// Window bytes the peer's Posts used here, not yet returned.
	owed       atomic.Int64
	creditKick chan struct{}
}

func (l *link) reply(id uint64, flags uint16, m wire.Message) error {
	return l.write(id, flags, m)
}

func (l *link) write(id uint64, flags uint16, m wire.Message) error {
	err := l.c.Write(id, flags, m, linkWriteTimeout)
	if err != nil {
		l.close(fmt.Errorf("write to n%d: %w", l.node, err))
	}
	return err
}

func (l *link) close(err error) {
	l.once.Do(func() {
		close(l.gone)
		l.c.Close()
		l.k.linkDown(l, err)
	})
}

// readLoop reads frames from the peer until the link fails.
func (l *link) readLoop() {
	for {
		f, err := l.c.ReadWithin(l.k.cfg.FrameTimeout)
		if err != nil {
			l.close(fmt.Errorf("link to n%d: %w", l.node, err))
			return
		}
		l.lastSeen.Store(time.Now().UnixNano())
		if f.Flags&wire.FlagReply != 0 {
			l.k.routeReply(l, f)
			continue
		}
		l.k.dispatch(&l.src, l, f, l)
	}
}

// addLink registers an established link and starts reading from it.
func (k *Kernel) addLink(node int32, c *wire.Conn) error {
	l := &link{k: k, node: node, c: c, gone: make(chan struct{}), creditKick: make(chan struct{}, 1)}
	l.src.init()
	l.lastSeen.Store(time.Now().UnixNano())
	k.mu.Lock()
	if k.halting {
		k.mu.Unlock()
		c.Close()
		return errHalting
	}
	if old := k.links[node]; old != nil {
		k.mu.Unlock()
		c.Close()
		return fmt.Errorf("already linked to n%d", node)
	}
	k.links[node] = l
	if n := k.nodes[node]; n != nil {
		n.Flags &^= wire.NodeDead
	}
	k.mu.Unlock()
	k.log.Debug("link up", "node", node)
	k.wg.Add(2)
	go func() { defer k.wg.Done(); l.readLoop() }()
	go func() { defer k.wg.Done(); l.creditLoop() }()
	return nil
}

// linkDown forgets a failed link: the node is marked dead, every request
// forwarded to it fails, and every request it sent us ends.
func (k *Kernel) linkDown(l *link, err error) {
	k.mu.Lock()
	if k.links[l.node] == l {
		delete(k.links, l.node)
		if n := k.nodes[l.node]; n != nil && !k.halting {
			n.Flags |= wire.NodeDead
		}
	}
	var failed []*call
	for id, c := range k.calls {
		if c.node == l.node {
			failed = append(failed, c)
			delete(k.calls, id)
		}
	}
	halting := k.halting
	k.mu.Unlock()
	if !halting {
		k.log.Warn("link down", "node", l.node, "err", err)
	}
	for _, c := range failed {
		c.fail(wire.CodeDeadNode, fmt.Sprintf("node n%d is dead: its lamd stopped answering", l.node))
	}
	for _, a := range l.src.closeAll() {
		if a.fwd != nil {
			k.cancelCall(a.fwd)
		}
	}
}

// acceptLinks accepts links from other lamds. At most
// Config.MaxLinkAttempts connections may be authenticating at once; one
// more is closed at once.
func (k *Kernel) acceptLinks() {
	cfg, err := k.cfg.Secret.TLS(true)
	if err != nil {
		k.Stop(err)
		return
	}
	full := burstLog{log: k.log}
	var attempts atomic.Int64 // incremented here, decremented by each attempt
	k.acceptLoop("link", func() error {
		nc, err := k.cfg.Links.Accept()
		if err != nil {
			return err
		}
		if attempts.Load() >= int64(k.cfg.MaxLinkAttempts) {
			full.fail("refusing link attempts (logged once per burst)", "max", k.cfg.MaxLinkAttempts, "from", nc.RemoteAddr())
			nc.Close()
			return nil
		}
		full.ok("accepting link attempts again", "max", k.cfg.MaxLinkAttempts)
		attempts.Add(1)
		k.wg.Add(1)
		go func() {
			defer k.wg.Done()
			stop := context.AfterFunc(k.ctx, func() { nc.Close() })
			err := k.serveLink(tls.Server(nc, cfg))
			stop()
			attempts.Add(-1) // before the peer can see the close
			if err == nil {
				return
			}
			nc.Close()
			switch {
			case k.ctx.Err() != nil:
			case errors.Is(err, io.EOF) || errors.Is(err, os.ErrDeadlineExceeded):
				k.log.Debug("a link attempt gave up or stayed silent", "from", nc.RemoteAddr(), "err", err)
			default:
				k.log.Warn("refused a link", "from", nc.RemoteAddr(), "err", err)
			}
		}()
		return nil
	})
}

// serveLink authenticates a link (TLS with the universe's secret), reads
// its hello, and only then gives it a buffered connection. All of it is
// bounded by Config.HelloTimeout.
func (k *Kernel) serveLink(tc *tls.Conn) error {
	_ = tc.SetDeadline(time.Now().Add(k.cfg.HelloTimeout))
	if err := tc.Handshake(); err != nil {
		return err
	}
	f, err := readFirst(tc, wire.KindLinkHello)
	if err != nil {
		return err
	}
	h := f.Msg.(*wire.LinkHello)
	if err := k.checkHello(h); err != nil {
		writeFrame(tc, 0, wire.FlagReply, &wire.Error{Code: wire.CodeFailed, Msg: err.Error()}, time.Second)
		return err
	}
	c := wire.NewConn(tc)
	if err := c.Write(0, wire.FlagReply, &wire.LinkHello{Version: wire.Version, Universe: k.cfg.Universe.ID, Node: k.cfg.Self}, k.cfg.HelloTimeout); err != nil {
		return err
	}
	_ = tc.SetDeadline(time.Time{})
	return k.addLink(h.Node, c)
}

func (k *Kernel) checkHello(h *wire.LinkHello) error {
	if h.Version != wire.Version {
		return fmt.Errorf("protocol version %d, this lamd speaks %d", h.Version, wire.Version)
	}
	if h.Universe != k.cfg.Universe.ID {
		return fmt.Errorf("universe %q is not this one (%q)", h.Universe, k.cfg.Universe.ID)
	}
	k.mu.Lock()
	_, known := k.nodes[h.Node]
	k.mu.Unlock()
	if !known || h.Node == k.cfg.Self {
		return fmt.Errorf("node n%d is not another node of this universe", h.Node)
	}
	return nil
}

// dialLinks connects to the nodes this lamd is responsible for dialling:
// the lower ids, or every node when it joins a running universe.
func (k *Kernel) dialLinks() {
	for _, n := range k.nodeTable() {
		if n.ID == k.cfg.Self || (!k.cfg.Joining && n.ID > k.cfg.Self) {
			continue
		}
		k.wg.Add(1)
		go func() {
			defer k.wg.Done()
			if err := k.dialLink(n); err != nil && k.ctx.Err() == nil {
				k.log.Warn("cannot link", "node", n.ID, "err", err)
				k.mu.Lock()
				if m := k.nodes[n.ID]; m != nil && k.links[n.ID] == nil {
					m.Flags |= wire.NodeDead
				}
				k.mu.Unlock()
			}
		}()
	}
}

func (k *Kernel) dialLink(n wire.Node) error {
	cfg, err := k.cfg.Secret.TLS(false)
	if err != nil {
		return err
	}
	var last error
	for attempt := 0; attempt < linkDialAttempts; attempt++ {
		if attempt > 0 {
			select {
			case <-k.ctx.Done():
				return k.ctx.Err()
			case <-time.After(time.Duration(attempt) * 100 * time.Millisecond):
			}
		}
		tc, err := boot.DialTLS(k.ctx, n.Link, cfg, linkHandshakeTimeout)
		if err != nil {
			last = err
			continue
		}
		_ = tc.SetDeadline(time.Now().Add(linkHandshakeTimeout))
		c := wire.NewConn(tc)
		if err := c.Write(0, 0, &wire.LinkHello{Version: wire.Version, Universe: k.cfg.Universe.ID, Node: k.cfg.Self}, linkHandshakeTimeout); err != nil {
			c.Close()
			last = err
			continue
		}
		f, err := c.Read()
		if err != nil {
			c.Close()
			last = err
			continue
		}
		switch m := f.Msg.(type) {
		case *wire.LinkHello:
			if m.Node != n.ID || m.Universe != k.cfg.Universe.ID {
				c.Close()
				return fmt.Errorf("%s answered as n%d of universe %q", n.Link, m.Node, m.Universe)
			}
		case *wire.Error:
			c.Close()
			return fmt.Errorf("n%d refused the link: %s", n.ID, m.Msg)
		default:
			c.Close()
			return fmt.Errorf("n%d answered a link hello with %v", n.ID, f.Kind)
		}
		_ = tc.SetDeadline(time.Time{})
		return k.addLink(n.ID, c)
	}
	return last
}

// heartbeats keeps links alive and closes the ones that fell silent: in
// fault-tolerant mode a node that stops answering is noticed within three
// periods.
func (k *Kernel) heartbeats(period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-k.ctx.Done():
			return
		case <-t.C:
		}
		k.mu.Lock()
		links := make([]*link, 0, len(k.links))
		for _, l := range k.links {
			links = append(links, l)
		}
		frozen := k.frozen
		k.mu.Unlock()
		if frozen {
			continue
		}
		now := time.Now()
		for _, l := range links {
			if silent := now.Sub(time.Unix(0, l.lastSeen.Load())); silent > 3*period {
				l.close(fmt.Errorf("n%d silent for %v", l.node, silent.Round(time.Millisecond)))
				continue
			}
			go l.write(0, 0, &wire.Heartbeat{})
		}
	}
}

// link returns the link to node, or nil.
func (k *Kernel) link(node int32) *link {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.links[node]
}

// forward sends a request on to another node and relays its replies.
func (k *Kernel) forward(r *request, a *active, node int32) {
	k.mu.Lock()
	_, known := k.nodes[node]
	l := k.links[node]
	k.mu.Unlock()
	if !known {
		r.fail(wire.CodeBadNode, "n%d: no such node in the universe", node)
		return
	}
	if l == nil {
		r.fail(wire.CodeDeadNode, "n%d: node is dead (its lamd does not answer)", node)
		return
	}
	// The call is complete before it is published: linkDown and Stop read
	// it from other goroutines.
	c := &call{id: k.nextID.Add(1), node: node, origin: r}
	k.mu.Lock()
	k.calls[c.id] = c
	k.mu.Unlock()
	r.src.mu.Lock()
	a.fwd = c
	r.src.mu.Unlock()
	if err := l.write(c.id, 0, r.msg); err != nil {
		// linkDown has failed the call already.
		return
	}
}

// routeReply relays a reply from a link to whoever asked.
func (k *Kernel) routeReply(l *link, f wire.Frame) {
	k.mu.Lock()
	c := k.calls[f.ID]
	final := f.Flags&wire.FlagMore == 0
	if c != nil && final {
		delete(k.calls, f.ID)
	}
	k.mu.Unlock()
	if c == nil || c.node != l.node {
		return // cancelled, or not ours: drop
	}
	c.deliver(f)
}

// deliver hands a reply to the call's origin.
func (c *call) deliver(f wire.Frame) {
	final := f.Flags&wire.FlagMore == 0
	switch {
	case c.ch != nil:
		select {
		case c.ch <- f:
		default: // an rpc takes one final reply; drop extra stream frames
		}
	case final:
		c.origin.finish(f.Msg)
	default:
		c.origin.send(f.Msg)
	}
}

// fail ends the call with an error.
func (c *call) fail(code int32, msg string) {
	c.deliver(wire.Frame{Header: wire.Header{Kind: wire.KindError, Flags: wire.FlagReply}, Msg: &wire.Error{Code: code, Msg: msg}})
}

// rpc sends msg to another node's lamd and waits for its final reply.
func (k *Kernel) rpc(ctx context.Context, node int32, msg wire.Message) (wire.Message, error) {
	l := k.link(node)
	if l == nil {
		return nil, &wire.Error{Code: wire.CodeDeadNode, Msg: fmt.Sprintf("n%d: node is dead (its lamd does not answer)", node)}
	}
	id := k.nextID.Add(1)
	c := &call{id: id, node: node, ch: make(chan wire.Frame, 1)}
	k.mu.Lock()
	k.calls[id] = c
	k.mu.Unlock()
	if err := l.write(id, 0, msg); err != nil {
		return nil, &wire.Error{Code: wire.CodeDeadNode, Msg: err.Error()}
	}
	select {
	case f := <-c.ch:
		if e, ok := f.Msg.(*wire.Error); ok {
			return nil, e
		}
		return f.Msg, nil
	case <-ctx.Done():
		k.cancelCall(c)
		return nil, &wire.Error{Code: wire.CodeTimeout, Msg: fmt.Sprintf("n%d did not answer: %v", node, context.Cause(ctx))}
	}
}

// cancelCall abandons a forwarded request.
func (k *Kernel) cancelCall(c *call) {
	k.mu.Lock()
	_, live := k.calls[c.id]
	delete(k.calls, c.id)
	l := k.links[c.node]
	k.mu.Unlock()
	if live && l != nil {
		go l.write(c.id, 0, &wire.Cancel{})
	}
}

// forwardFrame relays a frame that belongs to a forwarded request (stdin).
func (k *Kernel) forwardFrame(c *call, _ uint64, m wire.Message) {
	if l := k.link(c.node); l != nil {
		l.write(c.id, 0, m)
	}
}
