//go:build ofi && cgo

package ofi

import (
	"errors"
	"fmt"
	"io"
	"net"
)

var (
	// errPeerGone is wrapped by the error of a link whose peer died or
	// whose fabric failed.
	errPeerGone = errors.New("the process at the other end of the ofi link is gone")
	// errProtocol is wrapped by the error of a link whose peer broke the
	// protocol (more messages than credits, a bad header).
	errProtocol = errors.New("ofi protocol error")
	// errPeerClosed is what a write to a link its peer closed returns.
	errPeerClosed = errors.New("the peer closed the ofi link")
)

// link is the byte stream to one peer. The transport's lock guards it.
type link struct {
	t        *transport
	rank     int
	pid      int
	dest     uint64 // the peer's fabric address
	peerAddr string // what the peer published

	credits int    // messages this process may still send to the peer
	owed    int    // receive buffers emptied since the peer was told
	sendSeq uint32 // the next data message's number
	free    []int  // this link's send slots not in flight

	in      []inMsg // data messages that arrived, by seq modulo len(in)
	queued  int     // how many
	recvSeq uint32  // the next data message to read
	off     int     // bytes of it already read

	hello   bool   // the peer proved it holds the job's secret
	greeted bool   // this process's hello to the peer went out
	due     bool   // a credit message waits for the provider (in t.due)
	eof     bool   // the peer closed its link
	eofSeq  uint32 // after this many data messages
	dead    error  // the peer died or broke the protocol
	closed  bool

	scratch  []byte // an injected message is built here
	scratch2 []byte // a long message into a layout is read here (layout.go)
	received uint64 // data messages from the peer (Traffic)
	seen     uint64 // the transport's progress passes at the last Read

	// Remote reads (rma.go).
	keys    [keyTable]keyMsg       // the peer's buffers this process may read, a ring
	nkeys   int                    // key messages so far
	exposed map[uintptr][]exposure // this process's buffers the peer may read, by address
	tsends  int                    // tagged sends in flight to the peer
}

// exposure is a buffer of n bytes the peer may read or pull, in region r.
type exposure struct {
	n uintptr
	r *region
}

// inMsg is a data or key message waiting in receive slot slot (len
// bytes, header included); slot < 0: none.
type inMsg struct {
	slot, len int
	kind      uint8
}

func newLink(t *transport, rank int, dest uint64, peerAddr string, pid int) *link {
	l := &link{t: t, rank: rank, pid: pid, dest: dest, peerAddr: peerAddr, credits: t.c.credits,
		in: make([]inMsg, t.c.credits), scratch: make([]byte, max(t.tiny, hdrSize+helloSize))}
	for i := range l.in {
		l.in[i].slot = -1
	}
	return l
}

// queue takes data (or key) message seq, which arrived in receive slot
// slot.
func (l *link) queue(seq uint32, slot, n int, kind uint8) error {
	ahead := seq - l.recvSeq
	m := &l.in[seq%uint32(len(l.in))]
	if ahead >= uint32(len(l.in)) || m.slot >= 0 {
		return fmt.Errorf("%w: rank %d sent more messages than its credits", errProtocol, l.rank)
	}
	m.slot, m.len, m.kind = slot, n, kind
	l.queued++
	return nil
}

// die makes the link fail with err once what arrived before is read.
func (l *link) die(err error) {
	if l.dead == nil {
		l.dead = err
	}
}

// owe counts n receive buffers emptied and posted again for the peer,
// and tells the peer once they are half its credits.
func (l *link) owe(n int) {
	l.owed += n
	l.returnCredits(max(l.t.c.credits/2, 2))
}

// returnCredits sends a credit message if the peer is owed at least
// least credits; if the provider is busy, the transport's progress
// tries again.
func (l *link) returnCredits(least int) {
	if l.owed < least || l.credits < 1 || l.dead != nil || l.closed {
		return
	}
	sent, err := l.control(kindCredit, nil)
	if sent {
		l.t.creditMsgs++
	}
	if err == nil && !sent && !l.due {
		l.due = true
		l.t.due = append(l.t.due, l)
	}
}

// control sends a message of kind with payload p (which fits in one
// message); it may use the last credit, which data never does. It
// reports false if the message cannot go now.
func (l *link) control(kind uint8, p []byte) (bool, error) {
	if l.credits < 1 {
		return false, nil
	}
	// A close carries the number of data messages before it: the
	// provider may complete a long message after a short one sent later.
	h := header{kind: kind, credits: uint16(min(l.owed, maxCredits16)), from: uint32(l.t.job.Rank), seq: l.sendSeq}
	// A close goes from a send slot, never injected: its completion then
	// says that everything sent before it has left (see drain).
	sent, err := l.send(h, p, nil, kind != kindClose)
	if err != nil {
		l.die(err)
	}
	return sent, err
}

// send sends one message: h, then a and b (which fit together),
// injected if it is tiny and inject allows. It reports false when the
// provider or the link's send slots are busy.
func (l *link) send(h header, a, b []byte, inject bool) (bool, error) {
	t := l.t
	n := hdrSize + len(a) + len(b)
	var rc int
	if inject && n <= t.tiny {
		m := l.scratch[:n]
		h.put(m)
		copy(m[copy(m[hdrSize:], a)+hdrSize:], b)
		rc = t.fb.inject(m, l.dest)
	} else {
		if len(l.free) == 0 {
			return false, nil
		}
		s := l.free[len(l.free)-1]
		m := t.fb.slot(s)[:n]
		h.put(m)
		copy(m[copy(m[hdrSize:], a)+hdrSize:], b)
		if rc = t.fb.send(s, n, l.dest); rc == 0 {
			l.free = l.free[:len(l.free)-1]
		}
	}
	switch {
	case rc == again:
		return false, nil
	case rc != 0:
		return false, fmt.Errorf("%w: %w", errPeerGone, ferr("fi_send", rc))
	}
	l.credits--
	l.owed -= int(h.credits)
	return true, nil
}

// Read takes what the peer sent.
func (l *link) Read(p []byte) (int, error) {
	l.t.mu.Lock()
	defer l.t.mu.Unlock()
	if l.closed {
		return 0, net.ErrClosed
	}
	n := l.take(p)
	if n == 0 && l.t.passes.Load() == l.seen {
		// Nobody made progress since this link's last Read; otherwise
		// another link's Read did, in this pass of the core over its
		// links, and one poll of the completion queue serves them all.
		l.t.progress()
		n = l.take(p)
	}
	l.seen = l.t.passes.Load()
	if n > 0 || len(p) == 0 {
		return n, nil
	}
	switch {
	case l.in[l.recvSeq%uint32(len(l.in))].slot >= 0:
		return 0, nil
	case l.eof && l.recvSeq == l.eofSeq:
		return 0, io.EOF
	case l.dead != nil:
		return 0, l.dead
	}
	return 0, nil
}

// Peek shows the next data message's bytes (those not yet read) where
// they arrived, in its receive buffer, so that the core reads a frame in
// place instead of copying it out first (rpi.Peeker); nil if the next
// thing is not data (a key message, the end of the stream, a failure:
// Read takes those), with ready true when there is one. Like Read, it
// polls the provider only if nobody did since this link's last look.
func (l *link) Peek() ([]byte, bool, error) {
	l.t.mu.Lock()
	defer l.t.mu.Unlock()
	if l.closed {
		return nil, false, net.ErrClosed
	}
	p, ready := l.peek()
	if !ready && l.t.passes.Load() == l.seen {
		l.t.progress()
		p, ready = l.peek()
	}
	l.seen = l.t.passes.Load()
	return p, ready, nil
}

// peek is Peek without the poll. The caller holds the lock.
func (l *link) peek() ([]byte, bool) {
	if !l.hello {
		return nil, l.dead != nil
	}
	m := &l.in[l.recvSeq%uint32(len(l.in))]
	switch {
	case m.slot >= 0 && m.kind == kindData:
		return l.t.fb.slot(m.slot)[hdrSize+l.off : m.len], true
	case m.slot >= 0, l.eof && l.recvSeq == l.eofSeq, l.dead != nil:
		return nil, true
	}
	return nil, false
}

// Consume releases what the last Peek showed: its buffer is posted
// again and its credit goes back as Read's do.
func (l *link) Consume() {
	l.t.mu.Lock()
	defer l.t.mu.Unlock()
	m := &l.in[l.recvSeq%uint32(len(l.in))]
	if l.closed || m.slot < 0 || m.kind != kindData {
		return
	}
	l.done(m)
	l.owed++
	l.t.inPlace++
	l.returnCredits(l.dataCredits())
}

// done posts the receive buffer of m, the message at recvSeq, again and
// moves on to the next message. The caller holds the lock.
func (l *link) done(m *inMsg) {
	l.t.post(m.slot)
	m.slot = -1
	l.queued--
	l.recvSeq++
	l.off = 0
}

// take copies what has arrived into p; emptied receive buffers are
// posted again and their credits go back.
func (l *link) take(p []byte) int {
	if !l.hello {
		return 0 // the provider may complete data before the hello
	}
	n, freed := 0, 0
	for n < len(p) {
		m := &l.in[l.recvSeq%uint32(len(l.in))]
		if m.slot < 0 {
			break
		}
		if m.kind == kindKey {
			// Not the stream's bytes: what it says is known before
			// the bytes after it are read.
			l.learn(l.t.fb.slot(m.slot)[hdrSize:m.len])
			l.done(m)
			freed++
			continue
		}
		body := l.t.fb.slot(m.slot)[hdrSize+l.off : m.len]
		k := copy(p[n:], body)
		n += k
		l.off += k
		if k == len(body) {
			l.done(m)
			freed++
			l.t.copiedOut++
		}
	}
	if freed > 0 {
		l.owed += freed
		l.returnCredits(l.dataCredits())
	}
	return n
}

// dataCredits is how many credits must be owed, once data was read,
// to send them in a message of their own; otherwise they go back in the
// header of the next message to the peer (a reply, an acknowledgement,
// which a ping-pong always has). One when the peer may be out of room
// (what it sent and has not been told of, read or not, leaves it at most
// its last credit, which data does not take), so that a writer waiting
// for room wakes; else a quarter of the window, at least three (the
// credit of a credit message is owed too: with one message read, it must
// not make the next credit message due, or they would answer each other
// for ever) and at most the window less one. Control messages return
// their credits in halves (owe).
func (l *link) dataCredits() int {
	c := l.t.c.credits
	if l.queued+l.owed >= c-1 {
		return 1
	}
	return min(max(c/4, 3), c-1)
}

// Write sends what the credits allow.
func (l *link) Write(p []byte) (int, error) { return l.Write2(p, nil) }

// Write2 sends a and then b, together in one message where they fit.
func (l *link) Write2(a, b []byte) (int, error) {
	t := l.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if l.closed {
		return 0, net.ErrClosed
	}
	if l.dead != nil {
		return 0, l.dead
	}
	if l.eof {
		return 0, errPeerClosed
	}
	t.sent.Store(true)
	max := t.c.bufsize - hdrSize
	n, polled := 0, false
	for len(a)+len(b) > 0 {
		// Data keeps the last credit for a message that returns credits,
		// so that two processes that both wait for credits cannot both
		// be left without any.
		if l.credits < 2 || (len(l.free) == 0 && hdrSize+min(len(a)+len(b), max) > t.tiny) {
			if polled {
				break
			}
			t.progress()
			polled = true
			if l.dead != nil {
				return n, l.dead
			}
			continue
		}
		ca := min(len(a), max)
		cb := min(len(b), max-ca)
		h := header{kind: kindData, credits: uint16(min(l.owed, maxCredits16)), from: uint32(t.job.Rank), seq: l.sendSeq}
		ok, err := l.send(h, a[:ca], b[:cb], true)
		if err != nil {
			l.die(err)
			return n, err
		}
		if !ok {
			if polled {
				break
			}
			t.progress()
			polled = true
			continue
		}
		l.sendSeq++
		a, b = a[ca:], b[cb:]
		n += ca + cb
	}
	return n, nil
}

// Short is the eager limit (rpi.Shorter): usysv's transport reports its
// own for the peers on this node.
func (l *link) Short() int { return l.t.c.short }

// CostlyPoll: a poll is a crossing into C and the provider's progress
// (tcp's: a system call), so in a job whose other links are usysv's the
// core reads these only every few passes while they are idle
// (rpi.CostlyPoller).
func (l *link) CostlyPoll() bool { return true }

// Fd: the links have no descriptor of their own; the transport is the
// Waiter.
func (l *link) Fd() int { return -1 }

// Close ends the stream; the peer reads the end once it has read what
// came before (if a credit is left to tell it). What is still in flight
// is delivered before the transport closes (see drain).
func (l *link) Close() error {
	l.t.mu.Lock()
	defer l.t.mu.Unlock()
	if l.closed {
		return nil
	}
	if l.dead == nil && !l.eof && l.t.fb != nil {
		for range 1000 {
			if sent, err := l.control(kindClose, nil); sent || err != nil || l.credits < 1 {
				break
			}
			l.t.progress() // the provider was busy
		}
	}
	l.closed = true
	l.t.open--
	return nil
}

// inFlight reports whether sends from the link's slots have not
// completed.
func (l *link) inFlight() bool {
	return l.dead == nil && (len(l.free) < l.t.c.credits || l.tsends > 0)
}
