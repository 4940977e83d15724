package kernel

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/shared/localsock"
	"github.com/lamgo/lam/shared/wire"
)

// Streams carry the lamd rpi's messages with one hop per lamd. A process
// attaches a connection of its own (wire.Attach); from then on the relay
// (relay.go), one thread that sleeps in epoll_wait(2) on every attached
// connection, reads the process's posts and writes each message to the
// stream of its receiver at once, with no queue and no goroutine in
// between, when the receiver's socket has room. Only when it has none do
// the frames wait in the stream's backlog, which the relay writes, many
// frames per write, as the process reads. A message for a stream that
// came over a link or from another client is written the same way by the
// goroutine that read it.
//
// Flow control: a sender whose message leaves a stream's backlog over
// streamLimit is held (the relay stops reading an attached sender, so the
// sending process finds its socket full; another local client waits), and
// a message that came over a link keeps its bytes of the link's window
// (linkWindow) until the backlog is back under the limit. A process that
// never reads thus holds up its senders, never the lamd or the links'
// other traffic.
const (
	// streamLimit is how many bytes a stream's backlog holds before its
	// senders are held back.
	streamLimit = 4 << 20
	// linkWindow is how many bytes of Posts a lamd has in flight on a
	// link before its senders wait for credits.
	linkWindow = 16 << 20
	// creditEvery is how many bytes a lamd owes a link before it returns
	// them in a Credit.
	creditEvery = linkWindow / 4
)

// stream is a process's attached connection.
type stream struct {
	k     *Kernel
	c     *client
	event int32
	typ   int32
	// fd is the connection's descriptor (a duplicate, non-blocking, out
	// of Go's network poller), which the relay closes when it drops the
	// stream; slot is the stream's place in the relay.
	fd   int
	slot int32

	// Read side, the relay's alone: in holds what was received and not
	// yet served; post is the frame being served; paused: the relay does
	// not read (a receiver's backlog is over the limit, or a post is on
	// its way to another node); unwatched: the descriptor left the epoll
	// set while paused, after the process hung up; begun: when the
	// partial frame in in began (zero: none).
	in        wire.FrameBuffer
	post      wire.Post
	paused    bool
	unwatched bool
	begun     time.Time
	// waiters are the streams the relay paused because this one's backlog
	// went over the limit; they go on once it is back under (the relay's).
	waiters []*stream

	mu     sync.Mutex
	out    []byte // out[opos:] the process has not taken yet (backlog)
	opos   int
	held   []heldCredit  // link credits kept while the backlog is over the limit
	room   chan struct{} // closed when the backlog falls under the limit
	closed bool
	ended  chan struct{} // closed when the relay dropped the stream
}

type heldCredit struct {
	l *link
	n int
}

var errAttached = errors.New("already attached")

// streamTakes says whether a stream of type typ takes a message of type
// t: they share a bit. Unlike LAM's rule for receives, type 0 does not
// match, so that a stream never takes what a receive of the process
// waits for.
func streamTakes(typ, t int32) bool { return typ&t != 0 }

// attach serves an Attach: c's connection becomes the stream of its
// event, served by the relay from now on. The OK goes out before any
// message; messages queued for the event follow it, in order.
func (k *Kernel) attach(c *client, id uint64, m *wire.Attach) {
	fail := func(code int32, format string, args ...any) {
		c.reply(id, wire.FlagReply, &wire.Error{Code: code, Msg: fmt.Sprintf(format, args...)})
	}
	if c.role != wire.RoleStream || c.stream.Load() != nil {
		fail(wire.CodeFailed, "only a stream client attaches, once")
		return
	}
	if m.Type == 0 {
		fail(wire.CodeFailed, "a stream takes messages of a type other than 0")
		return
	}
	if c.c.Buffered() > 0 {
		fail(wire.CodeFailed, "a stream waits for the answer to its attach before it posts")
		return
	}
	r, err := k.relay()
	if err != nil {
		fail(wire.CodeFailed, "attach: %v", err)
		return
	}
	fd, err := localsock.Detach(c.uc) // the relay reads the connection from now on
	if err != nil {
		fail(wire.CodeFailed, "attach: %v", err)
		return
	}
	s := &stream{k: k, c: c, fd: fd, event: m.Event, typ: m.Type, ended: make(chan struct{})}
	k.streamsMu.Lock()
	if k.streams[m.Event] != nil {
		k.streamsMu.Unlock()
		unix.Close(fd)
		fail(wire.CodeFailed, "event %d: %v", m.Event, errAttached)
		return
	}
	s.out = wire.AppendFrame(nil, id, wire.FlagReply, &wire.OK{})
	for _, msg := range k.oob.takeAll(m.Event, m.Type, streamTakes) {
		s.out = wire.AppendFrame(s.out, 0, 0, msg)
	}
	if err := r.add(s); err != nil {
		k.streamsMu.Unlock()
		unix.Close(fd)
		fail(wire.CodeFailed, "attach: %v", err)
		return
	}
	k.streams[m.Event] = s
	k.streamsMu.Unlock()
	c.stream.Store(s)
}

// detach ends a stream whose process left (the relay dropped it): what it
// had not taken is dropped, and the credits it held go back to their
// links.
func (k *Kernel) detach(s *stream) {
	k.streamsMu.Lock()
	if k.streams[s.event] == s {
		delete(k.streams, s.event)
	}
	k.streamsMu.Unlock()
	s.mu.Lock()
	held := s.held
	s.out, s.held = nil, nil
	if s.room != nil {
		close(s.room)
		s.room = nil
	}
	s.mu.Unlock()
	for _, h := range held {
		h.l.owe(h.n)
	}
}

// push writes a frame to the process, or adds it to the backlog when the
// process's socket is full or frames are waiting. A frame that came over
// from (nil for a local sender) holds n bytes of that link's window: they
// go back at once, or when the backlog falls under the limit. It reports
// whether the backlog is over the limit.
func (s *stream) push(frame []byte, from *link, n int) (over bool) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		if from != nil {
			from.owe(n)
		}
		return false
	}
	if s.opos == len(s.out) { // nothing waits: write now
		w, _ := writeSome(s.fd, frame) // a failure is the relay's to meet
		if frame = frame[w:]; len(frame) > 0 {
			s.out, s.opos = append(s.out[:0], frame...), 0
			s.k.relayer.watch(s) // for writing now
		}
	} else {
		s.out = append(s.out, frame...)
	}
	over = len(s.out)-s.opos > streamLimit
	if over && from != nil {
		s.held = append(s.held, heldCredit{from, n})
		from = nil
	}
	s.mu.Unlock()
	if from != nil {
		from.owe(n)
	}
	return over
}

// writeSome writes what the socket takes of b now, without waiting; a
// full socket is not an error.
func writeSome(fd int, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		w, err := unix.Write(fd, b[n:])
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return n, nil
		case err != nil:
			return n, err
		}
		n += w
	}
	return n, nil
}

// drain writes the backlog as far as the socket takes it (the relay, when
// the socket has room). When the backlog falls under the limit, the
// credits held go back, a waiting local client goes on, and the paused
// senders are returned for the relay to resume. A failed write is
// reported: the relay drops the stream.
func (s *stream) drain() (resume []*stream, err error) {
	s.mu.Lock()
	n, err := writeSome(s.fd, s.out[s.opos:])
	s.opos += n
	if s.opos == len(s.out) {
		if cap(s.out) > 2*streamLimit {
			s.out = nil
		}
		s.out, s.opos = s.out[:0], 0
		s.k.relayer.watch(s) // no longer for writing
	}
	var held []heldCredit
	if len(s.out)-s.opos <= streamLimit {
		held, s.held = s.held, nil
		if s.room != nil {
			close(s.room)
			s.room = nil
		}
		resume, s.waiters = s.waiters, nil
	}
	s.mu.Unlock()
	for _, h := range held {
		h.l.owe(h.n)
	}
	return resume, err
}

// waitRoom waits until the backlog is under the limit, the stream ends or
// the lamd stops (a local client's post that is not a stream's).
func (s *stream) waitRoom() {
	for {
		s.mu.Lock()
		if s.closed || len(s.out)-s.opos <= streamLimit {
			s.mu.Unlock()
			return
		}
		if s.room == nil {
			s.room = make(chan struct{})
		}
		room := s.room
		s.mu.Unlock()
		select {
		case <-room:
		case <-s.ended:
			return
		case <-s.k.ctx.Done():
			return
		}
	}
}

// post serves a Post: the message goes to its node's lamd, or to the
// process here (its stream, else the out-of-band queue). A Post is not
// answered unless it fails. from is the link it came over, nil when a
// local client sent it. It returns the stream whose backlog the message
// left over the limit when a local client sent it: the caller holds that
// sender back until there is room (stream.waitRoom, or the relay's
// pause). m.Data may be reused once post returns.
func (k *Kernel) post(to replier, from *link, id uint64, m *wire.Post) (full *stream) {
	fail := func(code int32, format string, args ...any) {
		if from == nil {
			to.reply(id, wire.FlagReply, &wire.Error{Code: code, Msg: fmt.Sprintf(format, args...)})
			return
		}
		k.log.Warn("dropped a message from another node", "from", from.node, "event", m.Event, "err", fmt.Sprintf(format, args...))
	}
	src := k.cfg.Self
	if from != nil {
		src = from.node
	} else if node := k.target(m.Node); node != k.cfg.Self {
		if code, err := k.forwardPost(node, m); err != nil {
			fail(code, "%v", err)
		}
		return nil
	}
	n := len(m.Data)
	k.streamsMu.RLock()
	if s := k.streams[m.Event]; s != nil && streamTakes(s.typ, m.Type) {
		over := s.pushMsg(src, m.Event, m.Type, m.Data, from, n)
		k.streamsMu.RUnlock()
		if over && from == nil {
			return s
		}
		return nil
	}
	// Kept: the caller may reuse m.Data.
	ok := k.oob.put(&wire.Msg{From: src, Event: m.Event, Type: m.Type, Data: bytes.Clone(m.Data)})
	k.streamsMu.RUnlock()
	if from != nil {
		from.owe(n)
	}
	if !ok {
		fail(wire.CodeFull, "n%d cannot hold more undelivered messages (limit %d bytes)", k.cfg.Self, k.oob.limit)
	}
	return nil
}

// deliverToStream hands msg to the stream of its event, if one is
// attached and takes it, and reports whether it did (a Send's path to an
// attached process). Sends are answered, and may come over a link whose
// reader must not wait: they take no window and never wait for room.
func (k *Kernel) deliverToStream(msg *wire.Msg) bool {
	k.streamsMu.RLock()
	defer k.streamsMu.RUnlock()
	s := k.streams[msg.Event]
	if s == nil || !streamTakes(s.typ, msg.Type) {
		return false
	}
	s.pushMsg(msg.From, msg.Event, msg.Type, msg.Data, nil, 0)
	return true
}

// frames holds the buffers messages are framed in on their way to a
// stream: push copies what the socket does not take at once, so a
// buffer is free again when push returns.
var frames = sync.Pool{New: func() any { return new([]byte) }}

// pushMsg frames a message from node src and pushes it (see push).
func (s *stream) pushMsg(src, event, typ int32, data []byte, from *link, n int) bool {
	bp := frames.Get().(*[]byte)
	frame := wire.AppendMsg((*bp)[:0], src, event, typ, data)
	over := s.push(frame, from, n)
	if cap(frame) <= 1<<20 { // keep small buffers only
		*bp = frame[:0]
		frames.Put(bp)
	}
	return over
}

// forwardPost sends a Post on to its node's lamd once the link's window
// has room.
func (k *Kernel) forwardPost(node int32, m *wire.Post) (int32, error) {
	k.mu.Lock()
	_, known := k.nodes[node]
	l := k.links[node]
	k.mu.Unlock()
	if !known {
		return wire.CodeBadNode, fmt.Errorf("n%d: no such node in the universe", node)
	}
	if l == nil {
		return wire.CodeDeadNode, fmt.Errorf("n%d: node is dead (its lamd does not answer)", node)
	}
	if err := l.acquire(len(m.Data)); err != nil {
		return wire.CodeDeadNode, err
	}
	fwd := *m
	fwd.Node = node
	if err := l.write(0, 0, &fwd); err != nil {
		return wire.CodeDeadNode, err
	}
	return 0, nil
}

// acquire takes n bytes of the link's window, waiting while it is
// exhausted, until the link goes down or the lamd stops. A message larger
// than the window goes alone.
func (l *link) acquire(n int) error {
	for {
		l.wmu.Lock()
		if l.inflight == 0 || l.inflight+n <= linkWindow {
			l.inflight += n
			l.wmu.Unlock()
			return nil
		}
		if l.room == nil {
			l.room = make(chan struct{})
		}
		room := l.room
		l.wmu.Unlock()
		select {
		case <-room:
		case <-l.gone:
			return fmt.Errorf("n%d: node is dead (its lamd does not answer)", l.node)
		case <-l.k.ctx.Done():
			return errHalting
		}
	}
}

// credited returns window bytes the peer has delivered.
func (l *link) credited(n uint32) {
	l.wmu.Lock()
	l.inflight = max(l.inflight-int(n), 0)
	if l.room != nil {
		close(l.room)
		l.room = nil
	}
	l.wmu.Unlock()
}

// owe records n bytes of the peer's window delivered here; the credit
// loop returns them once enough are owed.
func (l *link) owe(n int) {
	if l.owed.Add(int64(n)) >= creditEvery {
		select {
		case l.creditKick <- struct{}{}:
		default:
		}
	}
}

// creditLoop returns owed window bytes to the peer. It runs apart from
// the link's reader, so that two lamds flooding each other never both
// wait to write credits while neither reads.
func (l *link) creditLoop() {
	for {
		select {
		case <-l.creditKick:
		case <-l.gone:
			return
		}
		for owed := l.owed.Swap(0); owed > 0; {
			n := min(owed, wire.MaxWindow)
			if l.write(0, 0, &wire.Credit{Bytes: uint32(n)}) != nil {
				return
			}
			owed -= n
		}
	}
}
