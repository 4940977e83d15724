// Package core is the MPI library's core: requests, the progress engine
// and the point-to-point protocol, on top of the one matching engine and
// the byte links of an rpi transport.
//
// Progress is made by the goroutines that wait: a waiter takes the
// progress lock and moves bytes on every link without blocking, spins for
// a bounded time, yields, and finally blocks in poll(2) on the links. No
// goroutine sits between the network and the receiver, and the eager send
// and receive paths allocate nothing.
package core

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/libmpi/internal/match"
	"github.com/lamgo/lam/libmpi/internal/release"
	"github.com/lamgo/lam/libmpi/rpi"
)

// Wildcards.
const (
	AnySource = match.AnySource
	AnyTag    = match.AnyTag
	ProcNull  = -2
)

// Errors the core reports; the API maps them to MPI error classes.
var (
	ErrTruncate = errors.New("message truncated: the receive buffer is too small")
	ErrDeadPeer = errors.New("a process of the job is dead")
	ErrProtocol = errors.New("protocol error on a link")
)

// DeadPeerError is ErrDeadPeer naming the process: the rank (in the job,
// as mpirun numbers it) whose link broke. An MPI_Abort on it tells
// mpirun which rank died first (wireup.Process.Abort).
type DeadPeerError struct {
	Rank int
	Err  error // what broke the link; nil: the peer closed it
}

func (e *DeadPeerError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("%v: rank %d closed its link", ErrDeadPeer, e.Rank)
	}
	return fmt.Sprintf("%v: rank %d: %v", ErrDeadPeer, e.Rank, e.Err)
}

// Is makes errors.Is(err, ErrDeadPeer) hold.
func (e *DeadPeerError) Is(target error) bool { return target == ErrDeadPeer }

func (e *DeadPeerError) Unwrap() error { return e.Err }

// DeadRank is the rank whose death err reports, or -1 if it names none.
func DeadRank(err error) int {
	var d *DeadPeerError
	if errors.As(err, &d) {
		return d.Rank
	}
	return -1
}

// Status describes a completed receive (or probe).
type Status struct {
	Source    int
	Tag       int
	Count     int // bytes
	Cancelled bool
	Err       error
}

// Engine is one process's MPI engine.
type Engine struct {
	mu      sync.Mutex // the progress lock
	match   *match.Engine
	self    int
	peers   []*peer
	short   int
	nextID  uint64
	sends   map[uint64]*Request // rendezvous and synchronous sends awaiting the receiver
	recvs   map[uint64]*Request // rendezvous receives awaiting the data
	pace    rpi.Pace
	waiter  rpi.Waiter
	pollfds []unix.PollFd
	closed  bool
	// blockers counts the goroutines in block, which touch the
	// transport's Waiter: Close waits for them before the transport goes.
	blockers   sync.WaitGroup
	activity   uint64     // link reads and writes that moved bytes
	pass       uint64     // progress passes
	mixed      bool       // links polled by loads from memory and costly ones (descriptors, rpi.CostlyPoller) both
	free       *Request   // a request for RecvNow
	hold       bool       // a checkpoint holds new frames (cr.go)
	drainStats DrainStats // the last Drain's counts (cr.go)
	pulled     uint64     // bytes the drain under way asked to pull (cr.go)
	// lockedPolls is how many times a waiter polls the links under one
	// acquisition of the progress lock; holding says a waiter may sleep
	// keeping its Go processor (rpi.Pace.AtOnce), and holder is whether
	// one does (one at a time).
	lockedPolls int
	holding     bool
	holder      atomic.Bool
	// taken are the messages matched probes took and no Mrecv has
	// received yet, oldest first: a checkpoint saves them (cr.go).
	taken []*unexpected
	// spare are unexpected eager messages received and done with, kept
	// with their bodies for the next ones (newUnexpected).
	spare     []*unexpected
	spareSize int // the bytes of their bodies
	// acked are the restored synchronous sends acknowledged before the
	// restarted process got their requests back (cr.go's AwaitAck).
	acked map[uint64]bool
	// quiesced is set while a checkpoint holds the progress lock: a
	// waiter then sleeps on the lock instead of polling (cr.go).
	quiesced atomic.Bool
	// bell wakes waiters asleep in poll(2) on descriptors when something
	// other than a link completes what they wait for (wake.go); -1 in a
	// process whose waiters sleep on its Waiter.
	bell     int
	sleepers atomic.Int32 // waiters in poll(2) (counted under mu)
	rung     bool         // bell written and not read yet (under mu)
	// nap is how long a waiter sleeps at most before it looks again.
	nap time.Duration
	// missed counts the tests in a row that found nothing (Tested).
	missed atomic.Uint32
}

// Config sets up an engine.
type Config struct {
	Rank  int
	Links []rpi.Link // by world rank; nil for this process
	Short int
	// Pace is how a waiter polls the links, yields, and sleeps.
	Pace rpi.Pace
	// Waiter, if set, is how a waiter sleeps on links without
	// descriptors (shared memory).
	Waiter rpi.Waiter
}

// DefaultPace suits transports whose links are descriptors: poll for
// 20 µs, then poll on while yielding to other goroutines now and then for
// 2 ms (longer than a 4 MiB message takes over loopback: sleeping in the
// middle of one cost a wake-up per socket buffer), then sleep in poll(2).
// The time counts from when bytes last moved.
var DefaultPace = rpi.Pace{SpinPolls: 16, Spin: 20 * time.Microsecond, Yield: 2 * time.Millisecond}

// New starts an engine over the given links.
func New(c Config) *Engine {
	e := &Engine{
		match:  match.New(),
		self:   c.Rank,
		short:  c.Short,
		sends:  map[uint64]*Request{},
		recvs:  map[uint64]*Request{},
		pace:   c.Pace,
		waiter: c.Waiter,
		bell:   -1,
		nap:    10 * time.Millisecond,
	}
	if e.pace == (rpi.Pace{}) {
		e.pace = DefaultPace
	}
	e.lockedPolls = lockedPolls
	if e.pace.AtOnce {
		e.lockedPolls = max(e.pace.SpinPolls, 1)
		// With one processor, a sleeper that keeps it would hold up
		// the program's other goroutines.
		e.holding = runtime.GOMAXPROCS(0) > 1
	}
	if e.short <= 0 {
		e.short = 64 << 10
	}
	e.peers = make([]*peer, len(c.Links))
	for i, l := range c.Links {
		if i == c.Rank || l == nil {
			continue
		}
		p := &peer{rank: i, link: l, short: e.short}
		if s, ok := l.(rpi.Shorter); ok {
			p.short = s.Short()
		}
		p.direct, _ = l.(rpi.RemoteReader)
		p.vw, _ = l.(rpi.VectorWriter)
		p.peek, _ = l.(rpi.Peeker)
		p.rw, _ = l.(rpi.RemoteWriter)
		p.ex, _ = l.(rpi.Exposer)
		p.gw, _ = l.(rpi.GatherWriter)
		p.sr, _ = l.(rpi.ScatterReader)
		p.rl, _ = l.(rpi.RemoteLayout)
		if m, ok := l.(rpi.MinPiecer); ok {
			p.minPiece = m.MinPiece()
		}
		p.fd = l.Fd() >= 0
		p.costly = p.fd
		if c, ok := l.(rpi.CostlyPoller); ok && c.CostlyPoll() {
			p.costly = true
		}
		e.peers[i] = p
	}
	calls, costly, cheap := false, false, false
	for _, p := range e.peers {
		if p != nil {
			calls = calls || !p.fd
			costly, cheap = costly || p.costly, cheap || !p.costly
		}
	}
	e.mixed = costly && cheap
	if !calls {
		e.waiter = nil // nothing to sleep on but descriptors
	}
	if e.waiter == nil {
		e.bell = newBell()
	}
	return e
}

// Size is the number of processes in the job.
func (e *Engine) Size() int { return len(e.peers) }

// Rank is this process's world rank.
func (e *Engine) Rank() int { return e.self }

type reqKind uint8

const (
	kindSend reqKind = iota + 1
	kindRecv
)

// SendMode is how a send completes.
type SendMode uint8

// The send modes.
const (
	Standard SendMode = iota
	Buffered          // the API copies into the attached buffer and sends that in standard mode
	Sync
	Ready
)

// Request is a point-to-point operation.
type Request struct {
	// Size, if set, makes a receive's buffer when a message matches it:
	// Size(n) is called (under the progress lock) with the message's
	// length and returns the buffer, which the receive then fills as it
	// would buf (a receive of a message whose size it does not know,
	// in the order receives were posted).
	Size       func(n int) []byte
	e          *Engine
	kind       reqKind
	mode       SendMode
	Persistent bool
	active     bool
	done       uint32 // 1 once complete; atomic loads, release stores
	buf        []byte
	context    uint32
	peer       int // world rank of the destination (sends), or of the matched source
	rank       int // the rank argument: destination or source in the communicator, or a wildcard
	myRank     int // this process's rank in the communicator (sends)
	tag        int
	recv       match.Recv
	id         uint64
	split      bool // a receive whose first part the sender writes
	parts      int8 // completions still to come before the last (split copies)
	status     Status
	// pinned says buf is pinned for a peer (expose); completion unpins
	// it (under the progress lock).
	pinned bool
	// pin keeps buf where it is while its address is out on the wire
	// (expose); it lives in the request so that a request used again
	// pins without allocating.
	pin runtime.Pinner
	// ex is the link that exposed buf (rpi.Exposer), told when the peer
	// is done with it.
	ex rpi.Exposer
	// vec is the data, if a layout over the user's memory (SetLayout);
	// buf is nil then.
	vec *rpi.Layout
	// pulled is the message whose body a drain's receive brings into
	// the library (cr.go).
	pulled *unexpected
	// awaitAck says a synchronous rendezvous send's body left for a
	// drain's pull, not for a match: it completes at the acknowledgement
	// of the match (cr.go).
	awaitAck bool
}

// expose pins the request's buffer: its address goes to the peer, which
// copies from or into it directly (cross-memory attach) until the request
// completes, when unexpose unpins it.
func (r *Request) expose() {
	if r.vec != nil {
		r.pin.Pin(unsafe.SliceData(r.vec.Base))
	} else {
		r.pin.Pin(unsafe.SliceData(r.buf))
	}
	r.pinned = true
}

// unexpose unpins what expose pinned: the peer no longer uses the address.
func unexpose(r *Request) {
	if r.ex != nil {
		r.ex.Unexpose(r.buf)
		r.ex = nil
	}
	r.pin.Unpin()
	r.pinned = false
}

// exposed reports whether the request's buffer is pinned for a peer.
func (r *Request) exposed() bool { return r.pinned }

// Done reports whether the request has completed.
func (r *Request) Done() bool { return atomic.LoadUint32(&r.done) != 0 }

// Status returns the status of a completed request.
func (r *Request) Status() Status { return r.status }

// Result returns a completed request's status field by field, in
// registers (see RecvNow on why that beats copying the Status).
func (r *Request) Result() (source, tag, count int, cancelled bool, err error) {
	return r.status.Source, r.status.Tag, r.status.Count, r.status.Cancelled, r.status.Err
}

// Active reports whether the request was started and has not been waited
// for.
func (r *Request) Active() bool { return r.active }

// NewSend prepares a send of buf to world rank dest (the communicator's
// rank rank), sent as myRank of the communicator with context.
func (e *Engine) NewSend(buf []byte, dest, rank, myRank, tag int, context uint32, mode SendMode) *Request {
	r := &Request{}
	e.InitSend(r, buf, dest, rank, myRank, tag, context, mode)
	return r
}

// InitSend makes r (not in use) a send, as NewSend does, so blocking
// calls can reuse requests without allocating.
func (e *Engine) InitSend(r *Request, buf []byte, dest, rank, myRank, tag int, context uint32, mode SendMode) {
	*r = Request{e: e, kind: kindSend, mode: mode, buf: buf, peer: dest, rank: rank, myRank: myRank, tag: tag, context: context}
}

// NewRecv prepares a receive into buf from the communicator's rank src
// (or AnySource) with tag (or AnyTag).
func (e *Engine) NewRecv(buf []byte, src, tag int, context uint32) *Request {
	r := &Request{}
	e.InitRecv(r, buf, src, tag, context)
	return r
}

// InitRecv makes r (not in use) a receive, as NewRecv does.
func (e *Engine) InitRecv(r *Request, buf []byte, src, tag int, context uint32) {
	*r = Request{e: e, kind: kindRecv, buf: buf, rank: src, tag: tag, context: context, peer: -1}
}

// Reset makes a completed request startable again (persistent requests).
func (r *Request) reset() {
	if r.Done() {
		release.Store32(&r.done, 0)
	}
	r.status = Status{}
	r.split, r.parts = false, 0
	r.awaitAck = false
	r.active = true
}

// Start starts a request.
func (e *Engine) Start(r *Request) {
	e.mu.Lock()
	e.start(r)
	e.mu.Unlock()
}

// SendNow sends buf eagerly, as a standard-mode send to world rank dest
// (as myRank of the communicator with context), if it can leave at once:
// a message of at most the link's eager limit to another process, with
// nothing queued before it on the link. It reports whether it did; if
// not, it did nothing, and the caller sends through a request. The
// blocking eager send needs no request this way.
func (e *Engine) SendNow(buf []byte, dest, myRank, tag int, context uint32) bool {
	if dest < 0 || dest >= len(e.peers) {
		return false
	}
	e.mu.Lock()
	sent := false
	if p := e.peers[dest]; p != nil && p.dead == nil && len(buf) <= p.short && !p.pending() {
		h := header{typ: frameEager, context: context, source: int32(myRank), tag: int32(tag), length: uint64(len(buf))}
		sent = e.sendCopy(p, &h, buf)
	}
	e.mu.Unlock()
	return sent
}

// RecvNow receives into buf from the communicator's rank src (or
// AnySource) with tag (or AnyTag) and waits for it: the blocking receive.
// It returns the message's source, tag and the bytes received, and the
// receive's error (as Status.Err) or the wait's. It polls the links first
// under the lock it posted the receive under, with a request of the
// engine's own (none to allocate or to pool), and returns the status in
// registers: copying a Status just written field by field stalls the
// processor (its wide loads cannot be served from the narrow stores
// still in flight).
//
// blocking, if not nil, is told when the receive has to wait (true) and
// when the wait ends (false): a receive that finds its message at once
// costs its caller nothing more (mpitask's record of a blocked call).
func (e *Engine) RecvNow(ctx context.Context, buf []byte, src, tag int, context uint32, blocking func(begin bool)) (source, rtag, count int, err error) {
	e.mu.Lock()
	r := e.free
	if r != nil {
		e.free = nil
	} else {
		r = &Request{e: e, kind: kindRecv}
	}
	// Only what a receive sets differs from the last use.
	r.buf, r.rank, r.tag, r.context, r.peer = buf, src, tag, context, -1
	e.start(r)
	for k := 0; k < e.lockedPolls && !r.Done(); k++ {
		e.progress()
	}
	if !r.Done() {
		e.mu.Unlock()
		if blocking != nil {
			blocking(true)
		}
		err := e.Wait(ctx, r)
		if blocking != nil {
			blocking(false)
		}
		if err != nil {
			return 0, 0, 0, err // r stays posted: not reused
		}
		e.mu.Lock()
	}
	source, rtag, count, err = r.status.Source, r.status.Tag, r.status.Count, r.status.Err
	e.release(r)
	e.mu.Unlock()
	return source, rtag, count, err
}

// release keeps a finished request of the engine's for the next RecvNow.
func (e *Engine) release(r *Request) {
	r.buf = nil
	e.free = r
}

// start starts r under the progress lock.
func (e *Engine) start(r *Request) {
	r.reset()
	if r.rank == ProcNull {
		r.status = Status{Source: ProcNull, Tag: AnyTag}
		r.complete()
		return
	}
	switch r.kind {
	case kindSend:
		e.startSend(r)
	case kindRecv:
		e.startRecv(r)
	}
}

func (r *Request) complete() {
	if r.parts > 0 {
		r.parts-- // a split copy: the other part is still to come
		return
	}
	if r.pinned {
		unexpose(r)
	}
	release.Store32(&r.done, 1) // the status is written before
}

func (e *Engine) newID() uint64 {
	e.nextID++
	return e.nextID
}

func (e *Engine) startSend(r *Request) {
	if r.peer == e.self {
		e.sendSelf(r)
		return
	}
	p := e.peers[r.peer]
	if p == nil || p.dead != nil {
		r.status.Err = ErrDeadPeer
		if p != nil {
			r.status.Err = p.dead
		}
		r.complete()
		return
	}
	size := r.size()
	h := header{context: r.context, source: int32(r.myRank), tag: int32(r.tag), length: uint64(size)}
	if size <= p.short {
		h.typ = frameEager
		done := r // done once written
		if r.mode == Sync {
			h.flags |= flagSync
			r.id = e.newID()
			h.sendID = r.id
			e.sends[r.id] = r
			done = nil // done once acknowledged
		}
		if r.vec != nil {
			e.sendLayout(p, &h, r.vec, size, done)
			return
		}
		e.send(p, &h, r.buf, done)
		return
	}
	h.typ = frameRTS
	r.id = e.newID()
	h.sendID = r.id
	if r.mode == Sync {
		h.flags |= flagSync // for a drain's pull (cr.go); the match is the cts otherwise
	}
	switch {
	case r.vec != nil:
		if p.direct != nil && p.rw != nil && size > p.direct.SingleCopy() {
			// The receiver cannot read a spread body in one copy, but
			// may ask for it to be written into its buffer.
			h.flags |= flagPush
		}
	case p.direct != nil && size > p.direct.SingleCopy() && (p.ex == nil || p.ex.Expose(r.buf)):
		// The receiver may copy the body straight from r.buf, which
		// stays pinned (and exposed by the link, if it must) until it
		// says so (a sack) or the send ends otherwise.
		h.flags |= flagDirect
		if e.sendingTo(-1) {
			h.flags |= flagWhole
		}
		h.recvID = uint64(uintptr(unsafe.Pointer(unsafe.SliceData(r.buf))))
		r.expose()
		r.ex = p.ex
	}
	e.sends[r.id] = r
	e.send(p, &h, nil, nil)
}

// size is the length of the request's data.
func (r *Request) size() int {
	if r.vec != nil {
		return r.vec.Len()
	}
	return len(r.buf)
}

// selfMsg is a message a process sent to itself, waiting for its receive.
type selfMsg struct {
	unexpected
	sender *Request
}

func (e *Engine) sendSelf(r *Request) {
	k := match.Key{Context: r.context, Source: int32(r.myRank), Tag: int32(r.tag)}
	size := r.size()
	if rr := e.arrive(k, uint64(size)); rr != nil {
		rr.finishRecv(r.myRank, r.tag, size, copyData(rr, r))
		r.complete()
		return
	}
	u := &unexpected{from: e.self, hdr: header{typ: frameEager, context: r.context, source: int32(r.myRank), tag: int32(r.tag), length: uint64(size)}}
	u.Key = k
	if r.mode == Sync {
		u.self = r       // completes when matched
		r.id = e.newID() // a checkpoint's RequestOp.Ack
		u.body = r.buf
		if r.vec != nil {
			u.body = r.packed()
		}
	} else {
		u.body = r.packed()
		r.complete()
	}
	u.Owner = u
	e.match.Enqueue(&u.Message)
}

// unexpected is a message that arrived before its receive.
type unexpected struct {
	match.Message
	from int // world rank
	hdr  header
	body []byte   // eager: the payload
	self *Request // a synchronous send to self, completed on match
	// pull is the receive of a rendezvous message's body that a drain
	// asked for (cr.go), until it is in; waiter is the receive that
	// matched the message meanwhile, given it then.
	pull, waiter *Request
	// spare: newUnexpected made it, so reuse may keep it once received.
	spare bool
}

func (e *Engine) startRecv(r *Request) {
	r.recv.Key = match.Key{Context: r.context, Source: int32(r.rank), Tag: int32(r.tag)}
	r.recv.Owner = r
	m := e.match.Post(&r.recv)
	if m == nil {
		return
	}
	u := m.Owner.(*unexpected)
	r.sized(u.hdr.length)
	e.matchUnexpected(r, u)
	e.reuse(u)
}

// Unexpected eager messages from peers are kept for reuse, up to
// spareMax of them with bodies of up to spareBody bytes each and
// spareBytes in all: a receiver that posts its receives late (a Gather's
// root whose senders run ahead, many collectives ahead when its
// receives are slow) would otherwise allocate a record and a body per
// message. Senders that run ahead fill the queue in bursts as deep as
// the links' buffers, so the pool is as deep.
const (
	spareMax   = 1024
	spareBody  = 16 << 10
	spareBytes = 512 << 10
)

// newUnexpected returns a record for an eager message with header h from
// world rank from, with a body of h.length bytes, queued under key k
// once its body is in. e.mu is held.
func (e *Engine) newUnexpected(from int, h *header, k match.Key) *unexpected {
	var u *unexpected
	var body []byte
	if n := len(e.spare); n > 0 {
		u, e.spare[n-1] = e.spare[n-1], nil
		e.spare = e.spare[:n-1]
		body = u.body
		e.spareSize -= cap(body)
		*u = unexpected{}
	} else {
		u = new(unexpected)
	}
	if uint64(cap(body)) < h.length {
		body = make([]byte, h.length)
	}
	u.from, u.hdr, u.body, u.spare = from, *h, body[:h.length], true
	u.Key, u.Owner = k, u
	return u
}

// reuse keeps u, which a receive has just taken, for newUnexpected if it
// came from there and nothing else refers to it. e.mu is held.
func (e *Engine) reuse(u *unexpected) {
	if !u.spare || u.hdr.typ != frameEager || u.self != nil || u.pull != nil || u.waiter != nil {
		return
	}
	if len(e.spare) >= spareMax || cap(u.body) > spareBody || e.spareSize+cap(u.body) > spareBytes {
		return
	}
	u.Owner = nil // nothing to find through it
	e.spare = append(e.spare, u)
	e.spareSize += cap(u.body)
}

func (e *Engine) matchUnexpected(r *Request, u *unexpected) {
	switch u.hdr.typ {
	case frameEager:
		n := r.copyIn(u.body)
		r.finishRecv(int(u.hdr.source), int(u.hdr.tag), int(u.hdr.length), n)
		if u.self != nil {
			u.self.complete()
		} else if u.hdr.flags&flagSync != 0 {
			e.ack(u.from, u.hdr.sendID)
		}
	case frameRTS:
		p := e.peers[u.from]
		r.peer = u.from
		if p.dead != nil {
			// Its sender died after the rts came (a matched probe's
			// message received late): the body will not come.
			r.status.Source, r.status.Tag = int(u.hdr.source), int(u.hdr.tag)
			r.fail(p.dead)
			return
		}
		if u.pull != nil {
			u.waiter = r // a drain asked for the body (cr.go): r gets it then
			return
		}
		if u.hdr.flags&flagPush != 0 && e.askPush(p, r, &u.hdr) {
			return
		}
		if u.hdr.flags&flagDirect != 0 && p.direct != nil && e.readDirect(p, r, &u.hdr) {
			return
		}
		r.id = e.newID()
		r.status.Source, r.status.Tag = int(u.hdr.source), int(u.hdr.tag)
		e.recvs[r.id] = r
		h := header{typ: frameCTS, sendID: u.hdr.sendID, recvID: r.id}
		e.send(p, &h, nil, nil)
	}
}

// splitMin is the shortest direct message whose copy the receiver shares
// with the sender.
const splitMin = 64 << 10

// splitCopy moves a direct rendezvous message of n bytes (to receive) in
// two halves at once, if the link can write to the peer too: the sender
// writes the first k bytes into r.buf (asked by a direct cts) while this
// process reads the rest; r completes when both are done, the sender's
// request when both are done too (its write, and the sack that says this
// read is). It reports whether it took the message.
func (e *Engine) splitCopy(p *peer, r *Request, h *header, n uint64) bool {
	if p.rw == nil || n < splitMin || h.flags&flagWhole != 0 || e.sendingTo(p.rank) {
		return false
	}
	// The same permission that the read needs: refused, the caller's
	// whole-message read fails too and falls back.
	if p.direct.ReadRemote(r.buf[n-1:n], h.recvID+n-1) != nil {
		return false
	}
	k := n / 2 &^ (4096 - 1)
	r.id = e.newID()
	r.split, r.parts = true, 1
	r.status.Source, r.status.Tag = int(h.source), int(h.tag)
	e.recvs[r.id] = r
	addr := uint64(uintptr(unsafe.Pointer(unsafe.SliceData(r.buf))))
	r.expose() // the sender writes the first part at addr
	cts := header{typ: frameCTS, flags: flagDirect, sendID: h.sendID, recvID: r.id, length: k, context: uint32(addr), source: int32(uint32(addr >> 32))}
	e.send(p, &cts, nil, nil)
	if err := p.direct.ReadRemote(r.buf[k:n], h.recvID+k); err != nil {
		e.peerDied(p, err)
		return true
	}
	r.finishRecv(int(h.source), int(h.tag), int(h.length), int(n)) // the first of two
	e.ack(p.rank, h.sendID)                                        // the sender's buffer is read
	return true
}

// sendingTo reports whether a rendezvous send to rank (anyone: -1) is
// under way. To the peer of a long message: the peer then copies a
// message of this process's meanwhile (an exchange), and a split copy
// would only make each wait for the other's half (a 2-process Allreduce
// of 4 MiB: 740-940 µs whole, 840-1190 split). To anyone: a direct rts
// then asks its receiver to copy the whole body (flagWhole); a Bcast's or
// Scatter's root sending one long message to each of n-1 processes would
// otherwise write half of each itself while they wait (8 processes,
// 4 MiB on 2 processors: 14 of the 28 MiB copied by the root, about 2x
// Open MPI's time, whose receivers copy it all); the first of them may
// still split.
func (e *Engine) sendingTo(rank int) bool {
	for _, s := range e.sends {
		if (rank < 0 || s.peer == rank) && s.size() > e.peers[s.peer].short {
			return true
		}
	}
	return false
}

// sized gives a receive with a Size function its buffer for the message
// of length bytes it matched.
func (r *Request) sized(length uint64) {
	if r.Size != nil {
		r.buf = r.Size(int(length))
	}
}

// finishRecv completes a receive that got n of length bytes.
func (r *Request) finishRecv(source, tag, length, n int) {
	r.status.Source, r.status.Tag, r.status.Count = source, tag, n
	if length > r.size() {
		r.status.Err = ErrTruncate
	}
	r.complete()
}

func (e *Engine) ack(to int, sendID uint64) {
	if to == e.self {
		// A restored synchronous send to this process (cr.go).
		if s := e.sends[sendID]; s != nil {
			delete(e.sends, sendID)
			s.complete()
		} else if sendID&restoredAck != 0 {
			e.ackEarly(sendID)
		}
		return
	}
	p := e.peers[to]
	if p == nil || p.dead != nil {
		return
	}
	h := header{typ: frameSAck, sendID: sendID}
	e.send(p, &h, nil, nil)
}

// arrive matches an incoming message's key against the posted receives;
// the receive it matched gets its buffer if it makes one for the
// message's length.
func (e *Engine) arrive(k match.Key, length uint64) *Request {
	mr := e.match.Arrive(k)
	if mr == nil {
		return nil
	}
	r := mr.Owner.(*Request)
	r.sized(length)
	return r
}

// Buffer returns the request's buffer.
func (r *Request) Buffer() []byte { return r.buf }

// CopyTo returns a new send like r that sends buf instead (buffered
// sends).
func (e *Engine) CopyTo(r *Request, buf []byte) *Request {
	return e.NewSend(buf, r.peer, r.rank, r.myRank, r.tag, r.context, Standard)
}

// DropContext forgets a freed communicator's queued receives and messages.
func (e *Engine) DropContext(ctx uint32) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.match.Drop(ctx)
}

// Complete marks a request done without communication (the API's
// buffered persistent sends, whose data left through a copy).
func (e *Engine) Complete(r *Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	r.reset()
	r.complete()
}
