//go:build ofi && cgo

package ofi

import (
	"context"
	"crypto/hmac"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/libmpi/internal/core"
	"github.com/lamgo/lam/libmpi/rpi"
)

// transport is one process's endpoint and its links. Every libfabric
// call is made under mu (the domain is opened FI_THREAD_DOMAIN).
//
// Slots (allocated at Connect, for the peers the endpoint carries): the
// first nrecv are receive buffers, posted for any peer; each link then
// owns credits slots to send from.
type transport struct {
	job    *rpi.Job
	c      config
	fb     *fabric
	addr   string
	prov   string
	tiny   int // largest injected message, header included (0: none)
	nrecv  int
	wake   int // eventfd: Wake ends a Sleep
	secret []byte
	mu     sync.Mutex
	links  []*link          // by rank
	bySrc  map[uint64]*link // by fabric address
	owner  []*link          // send slot → its link
	due    []*link          // links whose credit message waits for the provider
	open   int              // links not closed
	failed error            // the endpoint failed: every link fails
	moved  atomic.Uint32    // completions handled (the Waiter's token)
	// creditMsgs counts the credit messages sent (the other messages
	// carry credits in their headers).
	creditMsgs uint64
	// copiedOut counts the data messages whose bytes Read copied out of
	// their receive buffer; inPlace those the core read where they
	// arrived (Peek, Consume).
	copiedOut, inPlace uint64
	// layoutReads counts the long messages read into a layout.
	layoutReads uint64
	// The background progress (see background).
	sent    atomic.Bool   // data went out since background last looked
	passes  atomic.Uint64 // progress calls so far
	wakeups atomic.Uint64 // the background's (tests count them)
	// backedOff counts the background's wake-ups that chose busyTick.
	backedOff atomic.Uint64
	stop      chan struct{}
	stopped   chan struct{}
	pidfds    []int // by rank: peers on this node, watched for death; -1 none
	checked   time.Time
	// Remote reads (rma.go) and tagged pulls (tagged.go); rc is nil
	// where the provider has neither.
	rc      *regCache
	mrs     *mrTable
	reading bool // a read or tagged receive is in flight
	readErr int  // how the last one ended
	readLen int  // and the bytes it received (tagged)
	pull    bool // long messages move as tagged messages the receiver pulls
	pullSeq uint32
	tsends  []tsendOp // tagged sends, by context
	freeT   []int     // tagged send contexts not in flight
	pulls   []pullReq // pulls that wait for the provider or a context
}

func open(_ context.Context, job *rpi.Job, c config) (rpi.Transport, error) {
	// The buffers are allocated at Connect, for the peers this endpoint
	// carries (usysv may carry those on this node); the completion queue
	// is sized for every peer.
	most := 2 * max(job.Size-1, 1) * c.credits
	fb, err := openFabric(c.provider, c.rma, c.tagged, c.bufsize, tsendSlots, 2*most+tsendSlots)
	if err != nil {
		return nil, fmt.Errorf("rpi ofi: %w", err)
	}
	t := &transport{job: job, c: c, fb: fb, prov: fb.provider(), wake: -1}
	fail := func(err error) (rpi.Transport, error) {
		t.Close()
		return nil, fmt.Errorf("rpi ofi: %w", err)
	}
	name, err := fb.name()
	if err != nil {
		return fail(err)
	}
	t.addr = address{pid: os.Getpid(), provider: t.prov, name: name}.String()
	if t.tiny = min(c.tiny, fb.injectSize()); t.tiny > 0 {
		t.tiny += hdrSize
		t.tiny = min(t.tiny, fb.injectSize())
	}
	if t.wake, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK); err != nil {
		return fail(fmt.Errorf("eventfd: %w", err))
	}
	t.pull = fb.tagged()
	if fb.rma() || t.pull {
		t.mrs = newMRTable(fb)
		t.rc = newRegCache(t.mrs, cachedRegions(t.prov))
	}
	t.tsends = make([]tsendOp, tsendSlots)
	for i := range tsendSlots {
		t.freeT = append(t.freeT, i)
	}
	return t, nil
}

func (t *transport) Addr() string { return t.addr }
func (t *transport) Short() int   { return t.c.short }

// nodeOnly reports whether the provider reaches only this node (shm).
func (t *transport) nodeOnly() bool {
	core, _, _ := strings.Cut(t.prov, ";")
	return core == "shm"
}

// connected is the transport connected last (Traffic).
var connected atomic.Pointer[transport]

// Traffic returns, by world rank, how many data messages this process's
// ofi endpoint (the one connected last) has received from each peer; nil
// if none was connected. Tests tell from it which peers the module
// carries (usysv carries the others).
func Traffic() []uint64 {
	t := connected.Load()
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]uint64, len(t.links))
	for i, l := range t.links {
		if l != nil {
			out[i] = l.received
		}
	}
	return out
}

// drainTimeout bounds how long Close waits for sends in flight.
const drainTimeout = 10 * time.Second

// Close closes the endpoint (its links first), once what was sent has
// left: a provider may still be reading from this process's buffers (shm
// copies long messages from the sender's memory), and its queues empty
// only while someone calls it.
func (t *transport) Close() error {
	if t.stop != nil {
		close(t.stop)
		<-t.stopped
		t.stop = nil
	}
	t.drain()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.fb == nil {
		return nil
	}
	for _, l := range t.links {
		if l != nil {
			l.closed = true
		}
	}
	t.closeRMA()
	t.fb.close()
	t.fb = nil
	if t.wake >= 0 {
		unix.Close(t.wake)
		t.wake = -1
	}
	for i, fd := range t.pidfds {
		if fd >= 0 {
			unix.Close(fd)
			t.pidfds[i] = -1
		}
	}
	return nil
}

// drain waits, within drainTimeout, until no send is in flight: the
// last one on every link is its close (or, if the peer left no credit
// for it, its last data), whose completion follows those before it.
func (t *transport) drain() {
	deadline := time.Now().Add(drainTimeout)
	for {
		t.mu.Lock()
		busy := t.busy()
		if busy {
			t.progress()
			busy = t.busy()
		}
		t.mu.Unlock()
		if !busy || time.Now().After(deadline) {
			return
		}
		t.Sleep(t.Arm(), time.Millisecond)
	}
}

// busy reports whether sends are in flight to peers that may still take
// them: not dead, not closed, and in another process (the peers of a
// test's in-process job close their endpoints one after the other, and
// a closed one never completes anything). The caller holds mu.
func (t *transport) busy() bool {
	if t.failed != nil || t.fb == nil {
		return false
	}
	for _, l := range t.links {
		if l != nil && l.inFlight() && !l.eof && l.pid != os.Getpid() {
			return true
		}
	}
	return false
}

// Connect adds every peer to the address vector, sends each a hello
// (the proof that this process holds the job's secret) and waits for
// theirs.
func (t *transport) Connect(ctx context.Context, peers []rpi.Peer, secret []byte) ([]rpi.Link, error) {
	if len(secret) < 16 {
		return nil, errors.New("rpi ofi: the job's secret is missing or too short")
	}
	if t.job.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.job.Timeout)
		defer cancel()
	}
	self := t.job.Rank
	if self < 0 || self >= len(peers) {
		return nil, fmt.Errorf("rpi ofi: rank %d outside a job of %d", self, len(peers))
	}
	if err := t.connect(peers, secret); err != nil {
		return nil, err
	}
	if err := t.waitHellos(ctx); err != nil {
		return nil, err
	}
	if t.open > 0 {
		t.stop, t.stopped = make(chan struct{}), make(chan struct{})
		go t.background()
	}
	connected.Store(t)
	links := make([]rpi.Link, len(peers))
	for i, l := range t.links {
		if l != nil {
			links[i] = l
		}
	}
	return links, nil
}

// connect makes the links and sends the hellos.
func (t *transport) connect(peers []rpi.Peer, secret []byte) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.links != nil {
		return errors.New("rpi ofi: connected twice")
	}
	self := t.job.Rank
	t.secret = secret
	// Buffers for the peers this endpoint carries only: credits receive
	// buffers each, in one pool, posted before the hellos go, and
	// credits send buffers each.
	carried := 0
	for i, p := range peers {
		if i != self && p.Addr != "" {
			carried++
		}
	}
	t.nrecv = carried * t.c.credits
	if err := t.fb.alloc(2 * t.nrecv); err != nil {
		return fmt.Errorf("rpi ofi: %w", err)
	}
	for i := range t.nrecv {
		if rc := t.fb.post(i); rc != 0 {
			return fmt.Errorf("rpi ofi: %w", ferr("fi_recv", rc))
		}
	}
	t.links = make([]*link, len(peers))
	t.bySrc = make(map[uint64]*link, len(peers))
	t.owner = make([]*link, t.fb.slots())
	t.pidfds = make([]int, len(peers))
	next := t.nrecv
	for i, p := range peers {
		t.pidfds[i] = -1
		if i == self || p.Addr == "" {
			continue
		}
		a, err := parseAddress(p.Addr)
		if err != nil {
			return fmt.Errorf("rpi ofi: rank %d: %w", i, err)
		}
		if a.provider != t.prov {
			return fmt.Errorf("rpi ofi: rank %d uses libfabric provider %q, this process %q (set rpi_ofi_provider for the whole job)", i, a.provider, t.prov)
		}
		if next+t.c.credits > t.fb.slots() {
			return fmt.Errorf("rpi ofi: more peers than the job's size %d", t.job.Size)
		}
		dest, err := t.fb.insert(a.name)
		if err != nil {
			return fmt.Errorf("rpi ofi: rank %d: %w", i, err)
		}
		l := newLink(t, i, dest, p.Addr, a.pid)
		for s := next; s < next+t.c.credits; s++ {
			l.free = append(l.free, s)
			t.owner[s] = l
		}
		next += t.c.credits
		t.links[i], t.bySrc[dest] = l, l
		t.open++
		if p.Node == peers[self].Node && a.pid != os.Getpid() {
			if fd, err := unix.PidfdOpen(a.pid, 0); err == nil {
				unix.CloseOnExec(fd)
				t.pidfds[i] = fd
			}
		}
	}
	return nil
}

// greet sends the hellos that have not gone out yet. The caller holds mu.
func (t *transport) greet() error {
	for _, l := range t.links {
		if l == nil || l.greeted {
			continue
		}
		mac := helloMAC(t.secret, t.job.Rank, l.rank, t.addr, l.peerAddr)
		sent, err := l.control(kindHello, mac)
		if err != nil {
			return fmt.Errorf("rpi ofi: hello to rank %d: %w", l.rank, err)
		}
		l.greeted = sent
	}
	return nil
}

// waitHellos waits until every peer proved it holds the job's secret.
func (t *transport) waitHellos(ctx context.Context) error {
	for {
		t.mu.Lock()
		err := t.greet()
		t.progress()
		missing := -1
		for _, l := range t.links {
			switch {
			case err != nil:
			case l == nil || (l.hello && l.greeted):
			case l.dead != nil:
				err = fmt.Errorf("rpi ofi: rank %d: %w", l.rank, l.dead)
			case missing < 0:
				missing = l.rank
			}
		}
		t.mu.Unlock()
		if err != nil {
			return err
		}
		if missing < 0 {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("rpi ofi: no hello from rank %d: %w", missing, context.Cause(ctx))
		}
		t.Sleep(t.Arm(), time.Millisecond)
	}
}

// progress handles the completions the endpoint has. The caller holds mu.
func (t *transport) progress() {
	if t.fb == nil || t.failed != nil {
		return
	}
	t.passes.Add(1)
	for len(t.due) > 0 {
		l := t.due[len(t.due)-1]
		l.due = false
		t.due = t.due[:len(t.due)-1]
		l.returnCredits(1)
		if l.due {
			break
		}
	}
	for len(t.pulls) > 0 {
		p := t.pulls[0]
		if !p.l.serve(p.tag, p.addr, p.n) {
			break
		}
		t.pulls = t.pulls[1:]
	}
	for range 8 {
		n, err := t.fb.poll()
		if err == nil {
			if rc := t.fb.postErr(); rc != 0 {
				err = ferr("fi_recv", rc)
			}
		}
		if err != nil {
			t.fail(err)
			return
		}
		for i := range n {
			t.handle(t.fb.event(i))
		}
		if n > 0 {
			t.moved.Add(1)
		}
		if n < pollBatch {
			return
		}
	}
}

// handle takes one completion.
func (t *transport) handle(ev event) {
	switch {
	case ev.slot < 0:
		if ev.err != 0 {
			t.fail(fmt.Errorf("completion error: %s", errText(ev.err)))
		}
	case ev.slot == t.fb.rmaSlot(): // a remote read or tagged receive finished
		t.reading, t.readErr, t.readLen = false, ev.err, ev.n
	case ev.slot > t.fb.rmaSlot(): // a tagged send finished
		t.sent1(ev.slot-t.fb.rmaSlot()-1, ev.err)
	case ev.slot >= t.nrecv: // a send finished
		l := t.owner[ev.slot]
		if l == nil {
			return
		}
		l.free = append(l.free, ev.slot)
		if ev.err != 0 && ev.err != codeCanceled {
			// The provider could not deliver: the peer is gone.
			l.die(fmt.Errorf("%w: the fabric could not deliver to rank %d: %s", errPeerGone, l.rank, errText(ev.err)))
		}
	case ev.err != 0:
		switch ev.err {
		case codeCanceled:
		case codeAddrNotAvail, codeTrunc: // a stranger, or a message too long
			t.post(ev.slot)
		default:
			t.fail(fmt.Errorf("receive failed: %s", errText(ev.err)))
		}
	default:
		t.received(ev)
	}
}

// received takes a message that arrived in receive slot ev.slot.
func (t *transport) received(ev event) {
	l := t.bySrc[ev.src]
	msg := t.fb.slot(ev.slot)[:min(ev.n, t.c.bufsize)]
	h, err := parseHeader(msg)
	if l == nil || err != nil || l.dead != nil || l.closed {
		t.post(ev.slot) // from a stranger, or for a link that is over
		return
	}
	if int(h.from) != l.rank {
		l.die(fmt.Errorf("%w: rank %d's message claims to come from rank %d", errProtocol, l.rank, h.from))
		t.post(ev.slot)
		return
	}
	if l.credits+int(h.credits) > t.c.credits {
		l.die(fmt.Errorf("%w: rank %d returned more credits than it had", errProtocol, l.rank))
		t.post(ev.slot)
		return
	}
	l.credits += int(h.credits)
	if h.kind == kindData {
		l.received++
	}
	if h.kind == kindData || h.kind == kindKey {
		if err := l.queue(h.seq, ev.slot, len(msg), h.kind); err != nil {
			l.die(err)
			t.post(ev.slot)
		}
		return
	}
	switch h.kind {
	case kindCredit:
	case kindHello:
		want := helloMAC(t.secret, l.rank, t.job.Rank, l.peerAddr, t.addr)
		if len(msg) != hdrSize+helloSize || !hmac.Equal(msg[hdrSize:], want) {
			l.die(fmt.Errorf("rank %d does not hold the job's secret", l.rank))
		} else {
			l.hello = true
		}
	case kindClose:
		l.eof, l.eofSeq = true, h.seq
	case kindPull:
		// The answer (the tagged message) returns the pull's credit:
		// it is not owed, and its buffer is posted before the answer
		// leaves (lamofi_tsend), once pulled has parsed it.
		t.post(ev.slot)
		l.pulled(msg[hdrSize:])
		return
	default:
		l.die(fmt.Errorf("%w: message of kind %d from rank %d", errProtocol, h.kind, l.rank))
	}
	t.post(ev.slot)
	l.owe(1)
}

// post posts receive slot i again: the next call into the provider that
// sends or polls does, first (fabric.queuePost).
func (t *transport) post(i int) {
	if t.fb != nil {
		t.fb.queuePost(i)
	}
}

// fail fails the endpoint: every link reports err, as if every peer had
// died.
func (t *transport) fail(err error) {
	if t.failed != nil {
		return
	}
	t.failed = fmt.Errorf("%w: the fabric endpoint failed: %w", errPeerGone, err)
	for _, l := range t.links {
		if l != nil {
			l.die(t.failed)
		}
	}
}

// The Waiter: a process sleeps on the completion queue's descriptor
// (where the provider has one) and on an eventfd that Wake writes.

// Arm returns the number of batches of completions handled so far.
func (t *transport) Arm() uint32 { return t.moved.Load() }

// Disarm: nothing to undo.
func (t *transport) Disarm() {}

// Wake ends a Sleep.
func (t *transport) Wake() {
	one := [8]byte{1}
	t.mu.Lock()
	if t.wake >= 0 {
		unix.Write(t.wake, one[:])
	}
	t.mu.Unlock()
}

// Pace: over a provider whose completion queue has a wait descriptor
// (tcp) a waiter paces itself as over sockets (core.DefaultPace); over
// one without (shm), a sleeper could only wake by the clock, so it spins
// and then yields the processor to other processes for a long while
// first, as usysv does.
func (t *transport) Pace() rpi.Pace {
	if t.fb != nil && t.fb.waitFd() >= 0 {
		return core.DefaultPace
	}
	return rpi.Pace{SpinPolls: 16, Spin: 50 * time.Microsecond, Yield: 100 * time.Millisecond, YieldOS: true}
}

// pollFallback bounds a sleep on a provider without a wait descriptor.
const pollFallback = time.Millisecond

// Sleep sleeps until the endpoint has completions, Wake, or d.
func (t *transport) Sleep(token uint32, d time.Duration) {
	defer t.checkPeers()
	if t.moved.Load() != token {
		return
	}
	t.mu.Lock()
	if t.fb == nil || t.wake < 0 {
		t.mu.Unlock()
		time.Sleep(min(d, pollFallback))
		return
	}
	fds := [2]unix.PollFd{{Fd: int32(t.wake), Events: unix.POLLIN}, {Fd: -1}}
	if fd := t.fb.waitFd(); fd >= 0 {
		if !t.fb.tryWait() {
			t.mu.Unlock()
			return
		}
		fds[1] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
	} else {
		d = min(d, pollFallback)
	}
	t.mu.Unlock()
	ms := int(d / time.Millisecond)
	if ms == 0 && d > 0 {
		ms = 1
	}
	if n, _ := unix.Poll(fds[:], ms); n > 0 && fds[0].Revents != 0 {
		var b [8]byte
		t.mu.Lock()
		if t.wake >= 0 {
			unix.Read(t.wake, b[:])
		}
		t.mu.Unlock()
	}
}

// checkPeers fails the links to peers on this node that died (their
// pidfd is readable), at most every 50 ms. Peers on other nodes are
// reported by the provider, when a send to them fails, and by the
// run-time environment.
func (t *transport) checkPeers() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.fb == nil || time.Since(t.checked) < 50*time.Millisecond {
		return
	}
	t.checked = time.Now()
	for i, fd := range t.pidfds {
		if fd < 0 || t.links[i] == nil {
			continue
		}
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if n, err := unix.Poll(pfd, 0); err == nil && n > 0 {
			t.links[i].die(fmt.Errorf("%w: rank %d (pid %d) exited", errPeerGone, i, t.links[i].pid))
		}
	}
}

// Providers with manual progress (tcp, shm) move bytes only within
// their calls: a message a process sent and then stopped calling the
// library for (computing, or waiting on something else) would never
// leave. background makes progress for such a process: while it has
// sent in the last idleAfter, every tick, if nobody made progress
// since the last tick. It never contends with a process that makes
// progress itself (TryLock), and sleeps long when nothing was sent.
// While the process keeps making progress itself (a ping-pong, a
// collective), each of its wake-ups is a hand-off for nothing (the Go
// scheduler's timer, a thread woken on the other processor): the tick
// doubles, up to busyTick, at every tick that finds the process made
// progress since the one before, and is tick again once one finds it
// did not (so a message sent just before the process stops calling the
// library leaves within busyTick, within tick once it has been away
// from the library for busyTick).
const (
	tick      = time.Millisecond
	busyTick  = 4 * time.Millisecond
	idleAfter = 100 * time.Millisecond
	idleTick  = 20 * time.Millisecond
)

// backoff is background's choice of its next wake-up: every is the
// tick while something was sent in the last idleAfter, idle whether
// nobody made progress since the last wake-up, sinceSend the time since
// the last send. It returns the new every and the wait before the next
// wake-up.
func backoff(every time.Duration, idle bool, sinceSend time.Duration) (time.Duration, time.Duration) {
	if idle {
		every = tick
	} else {
		every = min(2*every, busyTick)
	}
	if sinceSend > idleAfter {
		return every, idleTick
	}
	return every, every
}

func (t *transport) background() {
	defer close(t.stopped)
	timer := time.NewTimer(tick)
	defer timer.Stop()
	lastSend := time.Now()
	var seen uint64 // passes at the last tick
	every := tick   // while something was sent in the last idleAfter
	for {
		select {
		case <-t.stop:
			return
		case <-timer.C:
		}
		now := time.Now()
		if t.sent.Swap(false) {
			lastSend = now
		}
		idle := t.passes.Load() == seen // nobody made progress since the last tick
		var next time.Duration
		every, next = backoff(every, idle, now.Sub(lastSend))
		t.wakeups.Add(1)
		if next == busyTick {
			t.backedOff.Add(1)
		}
		if idle && t.mu.TryLock() {
			before := t.moved.Load()
			if t.open > 0 {
				// Once every link is closed, only Close drains.
				t.progress()
			}
			t.mu.Unlock()
			if t.moved.Load() != before {
				// What arrived no longer shows on the completion queue's
				// descriptor: wake a process asleep on it.
				t.Wake()
			}
		}
		seen = t.passes.Load()
		timer.Reset(next)
	}
}
