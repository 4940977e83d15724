package kernel

import (
	"errors"
	"fmt"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/shared/wire"
)

// Streams carry the lamd rpi's messages with one hop per lamd. A process
// attaches a connection of its own (wire.Attach); from then on each
// message for its event is written to that connection by the goroutine
// that read it (from the sender's stream, or from a link), at once, with
// no queue and no goroutine in between when the process's socket has
// room. Only when it has none do the frames wait in the stream's backlog,
// which its writer goroutine writes, many frames per write, as the
// process reads.
//
// Flow control: a local sender whose message leaves a stream's backlog
// over streamLimit waits (its connection is not read meanwhile, so the
// sending process finds its socket full); a message that came over a link
// keeps its bytes of the link's window (linkWindow) until the backlog is
// back under the limit. A process that never reads thus holds up its
// senders, never the lamd or the links' other traffic.
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
	rc    syscall.RawConn
	event int32
	typ   int32

	mu      sync.Mutex
	out     []byte // frames the process has not taken yet (backlog)
	spare   []byte
	writing bool          // frames are being written outside out: do not overtake them
	held    []heldCredit  // link credits kept while the backlog is over the limit
	room    chan struct{} // closed when the backlog falls under the limit
	closed  bool
	kick    chan struct{} // wakes the writer
	done    chan struct{} // closed with the stream
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
// event. The OK goes out before any message; messages queued for the
// event follow it, in order.
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
	rc, err := c.uc.SyscallConn()
	if err != nil {
		fail(wire.CodeFailed, "attach: %v", err)
		return
	}
	s := &stream{k: k, c: c, rc: rc, event: m.Event, typ: m.Type, writing: true,
		kick: make(chan struct{}, 1), done: make(chan struct{})}
	k.streamsMu.Lock()
	if k.streams[m.Event] != nil {
		k.streamsMu.Unlock()
		fail(wire.CodeFailed, "event %d: %v", m.Event, errAttached)
		return
	}
	k.streams[m.Event] = s
	for _, msg := range k.oob.takeAll(m.Event, m.Type, streamTakes) {
		s.out = wire.AppendFrame(s.out, 0, 0, msg)
	}
	k.streamsMu.Unlock()
	// Messages arriving now wait in the backlog (writing is set) until
	// the OK is out.
	if err := c.reply(id, wire.FlagReply, &wire.OK{}); err != nil {
		k.detach(s)
		return
	}
	c.stream.Store(s)
	k.wg.Add(1)
	go func() { defer k.wg.Done(); s.writeLoop() }()
	s.mu.Lock()
	s.writing = false
	s.mu.Unlock()
	s.wake()
}

// detach ends a stream whose process left: what it had not taken is
// dropped, and the credits it held go back to their links.
func (k *Kernel) detach(s *stream) {
	k.streamsMu.Lock()
	if k.streams[s.event] == s {
		delete(k.streams, s.event)
	}
	k.streamsMu.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	held := s.held
	s.out, s.spare, s.held = nil, nil, nil
	if s.room != nil {
		close(s.room)
		s.room = nil
	}
	close(s.done)
	s.mu.Unlock()
	for _, h := range held {
		h.l.owe(h.n)
	}
}

func (s *stream) wake() {
	select {
	case s.kick <- struct{}{}:
	default:
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
	if !s.writing && len(s.out) == 0 {
		frame = frame[s.tryWrite(frame):]
	}
	if len(frame) > 0 {
		s.out = append(s.out, frame...)
		s.wake()
	}
	over = len(s.out) > streamLimit
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

// tryWrite writes what the socket takes of b now, without waiting.
func (s *stream) tryWrite(b []byte) int {
	n := 0
	_ = s.rc.Write(func(fd uintptr) bool {
		for n < len(b) {
			w, err := unix.Write(int(fd), b[n:])
			if err == unix.EINTR {
				continue
			}
			if err != nil || w <= 0 {
				break // full, or failed: the writer meets the failure
			}
			n += w
		}
		return true
	})
	return n
}

// waitRoom waits until the backlog is under the limit, the stream ends or
// the lamd stops.
func (s *stream) waitRoom() {
	for {
		s.mu.Lock()
		if s.closed || len(s.out) <= streamLimit {
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
		case <-s.done:
			return
		case <-s.k.ctx.Done():
			return
		}
	}
}

// writeLoop writes the backlog as the process reads it, everything that
// waits in one write. A failed write ends the process's connection (its
// reader then detaches the stream).
func (s *stream) writeLoop() {
	for {
		select {
		case <-s.kick:
		case <-s.done:
			return
		}
		for {
			s.mu.Lock()
			if s.closed || len(s.out) == 0 {
				s.writing = false
				s.mu.Unlock()
				break
			}
			buf := s.out
			s.out, s.spare = s.spare[:0], nil
			s.writing = true
			s.mu.Unlock()
			_, err := s.c.uc.Write(buf) // waits for the process to read
			s.mu.Lock()
			if cap(buf) <= 2*streamLimit {
				s.spare = buf[:0]
			}
			var held []heldCredit
			if len(s.out) <= streamLimit {
				held, s.held = s.held, nil
				if s.room != nil {
					close(s.room)
					s.room = nil
				}
			}
			s.mu.Unlock()
			for _, h := range held {
				h.l.owe(h.n)
			}
			if err != nil {
				s.c.uc.Close()
				return
			}
		}
	}
}

// post serves a Post: the message goes to its node's lamd, or to the
// process here (its stream, else the out-of-band queue). A Post is not
// answered unless it fails. from is the link it came over, nil when a
// local client sent it.
func (k *Kernel) post(to replier, from *link, id uint64, m *wire.Post) {
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
		return
	}
	msg := &wire.Msg{From: src, Event: m.Event, Type: m.Type, Data: m.Data}
	n := len(m.Data)
	k.streamsMu.RLock()
	if s := k.streams[m.Event]; s != nil && streamTakes(s.typ, m.Type) {
		over := s.pushMsg(msg, from, n)
		k.streamsMu.RUnlock()
		if over && from == nil {
			s.waitRoom()
		}
		return
	}
	ok := k.oob.put(msg)
	k.streamsMu.RUnlock()
	if from != nil {
		from.owe(n)
	}
	if !ok {
		fail(wire.CodeFull, "n%d cannot hold more undelivered messages (limit %d bytes)", k.cfg.Self, k.oob.limit)
	}
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
	s.pushMsg(msg, nil, 0)
	return true
}

// frames holds the buffers messages are framed in on their way to a
// stream: push copies what the socket does not take at once, so a
// buffer is free again when push returns.
var frames = sync.Pool{New: func() any { return new([]byte) }}

// pushMsg frames msg and pushes it (see push).
func (s *stream) pushMsg(msg *wire.Msg, from *link, n int) bool {
	bp := frames.Get().(*[]byte)
	frame := wire.AppendFrame((*bp)[:0], 0, 0, msg)
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
