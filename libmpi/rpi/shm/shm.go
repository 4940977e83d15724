// Package shm is the shared-memory transport behind the usysv and sysv
// rpi modules: the processes of a job on one node share one segment, with
// a byte ring for every ordered pair of them; peers on other nodes are
// reached through another transport in the same job (tcp, or the one a
// module that carries its node's peers through shared memory gives
// OpenOver: ofi), under the MPI core's one matching engine. Messages up to rpi_*_short go eagerly; longer ones
// wait for the receiver (rendezvous) and then stream through the ring,
// both processes copying at once, up to rpi_*_single_copy (the ring's
// size, rpi_*_maxalloc, at most); longer still, they are copied straight
// from the sender's buffer into the receiver's where the kernel permits
// it, in two halves at once (the receiver reads one with
// process_vm_readv while the sender writes the other with
// process_vm_writev), and through the ring otherwise.
//
// usysv waiters spin on the rings (LAM's spin locks); sysv waiters spin
// briefly and then sleep on a futex in the segment, which a peer rings
// when it moves bytes for them (LAM's semaphores, without their cost).
package shm

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/libmpi/internal/futex"
	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/libmpi/rpi/tcp"
	"github.com/lamgo/lam/shared/buildinfo"
	"github.com/lamgo/lam/shared/ssi"
)

// Module is a shared-memory rpi module.
type Module struct {
	name     string
	priority int
	spinning bool // usysv: spin; sysv: sleep soon
}

// New makes a shared-memory module: spinning (usysv) or not (sysv).
func New(name string, priority int, spinning bool) Module {
	return Module{name: name, priority: priority, spinning: spinning}
}

// SSI describes the module, with LAM's parameters.
func (m Module) SSI() ssi.Info {
	params := []ssi.Param{
		{Name: "short", Default: "8192", Type: ssi.Size, Help: "Largest message sent eagerly through shared memory; larger ones wait for the receiver, which copies them in one go where the kernel permits"},
		{Name: "poolsize", Default: "16777216", Type: ssi.Size, Help: "Bytes of shared memory per node for the rings between the node's processes"},
		{Name: "maxalloc", Default: "1048576", Type: ssi.Size, Help: "Largest ring between two processes, in bytes; longer messages are copied between the processes' buffers directly where the kernel permits"},
		{Name: "single_copy", Default: "65536", Type: ssi.Size, Help: "Messages longer than this (and than the ring, rpi_*_maxalloc at most) are copied straight from the sender's buffer into the receiver's where the kernel permits (process_vm_readv and process_vm_writev); shorter ones stream through the ring, both processes copying at once"},
		{Name: "pollyield", Default: "1", Type: ssi.Bool, Help: "Yield the processor between polls once spinning is over"},
	}
	if m.spinning {
		params = append(params,
			ssi.Param{Name: "readlockpoll", Default: "10000", Type: ssi.Int, Help: "Polls of the rings a waiting process makes before it yields"},
			ssi.Param{Name: "writelockpoll", Default: "10", Type: ssi.Int, Help: "Polls a sender makes for room in a full ring before it yields"})
	}
	return ssi.Info{Framework: ssi.RPI, Name: m.name, API: ssi.APIVersion[ssi.RPI], Version: buildinfo.ModuleVersion,
		Priority: m.priority, Params: params}
}

// Query: the module needs a shared-memory file system.
func (m Module) Query(context.Context, *ssi.Settings) (int, error) {
	if fi, err := os.Stat(shmDir()); err != nil || !fi.IsDir() {
		return -1, fmt.Errorf("no shared-memory file system at %s", shmDir())
	}
	return m.SSI().Priority, nil
}

func shmDir() string { return "/dev/shm" }

type settings struct {
	short, poolsize, maxalloc int
	singleCopy                int
	pollyield                 bool
	readPolls, writePolls     int
}

func (m Module) settings(s *ssi.Settings) (settings, error) {
	var c settings
	for _, p := range []struct {
		name string
		to   *int
	}{{"short", &c.short}, {"poolsize", &c.poolsize}, {"maxalloc", &c.maxalloc}, {"single_copy", &c.singleCopy}} {
		v, err := s.Size(ssi.FullName(ssi.RPI, m.name, p.name))
		if err != nil {
			return c, err
		}
		*p.to = int(min(v, 1<<40))
	}
	var err error
	if c.pollyield, err = s.Bool(ssi.FullName(ssi.RPI, m.name, "pollyield")); err != nil {
		return c, err
	}
	c.readPolls, c.writePolls = 16, 10
	if m.spinning {
		if c.readPolls, err = s.Int(ssi.FullName(ssi.RPI, m.name, "readlockpoll")); err != nil {
			return c, err
		}
		if c.writePolls, err = s.Int(ssi.FullName(ssi.RPI, m.name, "writelockpoll")); err != nil {
			return c, err
		}
	}
	switch {
	case c.short < 0 || c.short > 1<<30:
		return c, fmt.Errorf("rpi %s: %s_short=%d is out of range", m.name, m.name, c.short)
	case c.poolsize <= 0 || c.maxalloc <= 0:
		return c, fmt.Errorf("rpi %s: poolsize and maxalloc must be positive", m.name)
	case c.singleCopy < 0:
		return c, fmt.Errorf("rpi %s: %s_single_copy=%d must not be negative", m.name, m.name, c.singleCopy)
	case c.readPolls < 0 || c.writePolls < 0:
		return c, fmt.Errorf("rpi %s: poll counts must not be negative", m.name)
	}
	return c, nil
}

// ringSize shares the pool among the n×(n−1) channels of a node, within
// maxalloc, as a power of two that holds at least two short messages.
func (c settings) ringSize(n int) int {
	size := c.maxalloc
	if n > 1 {
		size = min(size, c.poolsize/(n*(n-1)))
	}
	floor := max(16<<10, 2*(c.short+64))
	size = max(size, floor)
	return 1 << (bits.Len(uint(size)) - 1)
}

// Open starts the tcp transport for the peers on other nodes.
func (m Module) Open(ctx context.Context, job *rpi.Job) (rpi.Transport, error) {
	c, err := m.settings(job.Settings)
	if err != nil {
		return nil, err
	}
	inner, err := tcp.New("tcp", 0, false).Open(ctx, job)
	if err != nil {
		return nil, fmt.Errorf("rpi %s: %w", m.name, err)
	}
	return &transport{m: m, c: c, job: job, remote: inner, ownTCP: true}, nil
}

// OpenOver opens the module with remote, an opened transport, for the
// peers on other nodes in place of tcp: the shared-memory transport then
// serves the node's peers and hands the others to remote, which it owns
// from here on (it closes it, also when OpenOver fails). remote's links
// may have no descriptor if remote is an rpi.Waiter: a sleeping process
// then wakes for either (see Sleep). The ofi module opens usysv over its
// own transport this way.
func (m Module) OpenOver(job *rpi.Job, remote rpi.Transport) (rpi.Transport, error) {
	c, err := m.settings(job.Settings)
	if err != nil {
		remote.Close()
		return nil, err
	}
	t := &transport{m: m, c: c, job: job, remote: remote}
	t.rw, _ = remote.(rpi.Waiter)
	return t, nil
}

type transport struct {
	m      Module
	c      settings
	job    *rpi.Job
	remote rpi.Transport // the peers on other nodes
	ownTCP bool          // remote is the tcp transport Open started
	// rw is remote's Waiter, where its links have no descriptor (ofi);
	// rtok is the token of its last Arm.
	rw   rpi.Waiter
	rtok atomic.Uint32
	seg  *segment
	me   int        // this process's index on the node
	bell futex.Bell // this process's doorbell
	pids []int      // local index → pid

	mu        sync.Mutex
	links     []*link // local index → link
	pidfds    []int   // local index → pidfd (liveness), -1 unknown
	lastCheck time.Time
}

// Addr is "pid,remote-address".
func (t *transport) Addr() string { return strconv.Itoa(os.Getpid()) + "," + t.remote.Addr() }

// Short is the eager limit between processes of a node; links to other
// nodes report their transport's (rpi.Shorter).
func (t *transport) Short() int { return t.c.short }

func parseAddr(a string) (int, string, error) {
	p, rest, ok := strings.Cut(a, ",")
	pid, err := strconv.Atoi(p)
	if !ok || err != nil || pid <= 0 {
		return 0, "", fmt.Errorf("bad shared-memory address %q", a)
	}
	return pid, rest, nil
}

// Connect attaches to the node's segment and connects the remote
// transport to the other nodes.
func (t *transport) Connect(ctx context.Context, peers []rpi.Peer, secret []byte) ([]rpi.Link, error) {
	if len(secret) < 16 {
		return nil, errors.New("rpi shm: the job's secret is missing or too short")
	}
	if t.job.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.job.Timeout)
		defer cancel()
	}
	self := t.job.Rank
	var local []int // ranks on this node, in order
	remote := make([]rpi.Peer, len(peers))
	pids := make([]int, len(peers))
	for i, p := range peers {
		pid, addr, err := parseAddr(p.Addr)
		if err != nil {
			return nil, fmt.Errorf("rpi %s: rank %d: %w", t.m.name, i, err)
		}
		pids[i] = pid
		remote[i] = rpi.Peer{Rank: i, Node: p.Node}
		if p.Node == peers[self].Node {
			local = append(local, i)
		} else {
			remote[i].Addr = addr
		}
	}
	links := make([]rpi.Link, len(peers))
	if len(local) > 1 {
		if err := t.attach(ctx, peers, local, pids, secret); err != nil {
			return nil, err
		}
		for i, r := range local {
			if r != self {
				links[r] = t.links[i]
			}
		}
	}
	if len(local) < len(peers) {
		tl, err := t.remote.Connect(ctx, remote, secret)
		if err != nil {
			t.closeLinks()
			return nil, fmt.Errorf("rpi %s: %w", t.m.name, err)
		}
		for i, l := range tl {
			if l != nil {
				links[i] = l
			}
		}
	}
	return links, nil
}

func (t *transport) attach(ctx context.Context, peers []rpi.Peer, local, pids []int, secret []byte) error {
	n := len(local)
	l := layout{n: n, ringSize: t.c.ringSize(n)}
	sum := sha256.Sum256(append([]byte("lam shared segment\x00"), secret...))
	path := fmt.Sprintf("%sn%d-%x", t.job.Shared, peers[t.job.Rank].Node, sum[:6])
	if t.job.Shared == "" {
		path = fmt.Sprintf("%s/lam-%d-single-%d-%x", shmDir(), os.Getuid(), os.Getpid(), sum[:6])
	}
	var err error
	if local[0] == t.job.Rank {
		t.seg, err = create(path, l)
	} else {
		t.seg, err = open(ctx, path, l)
	}
	if errors.Is(err, unix.ENOSPC) {
		return fmt.Errorf("rpi %s: %w (rpi_%[1]s_poolsize and rpi_%[1]s_maxalloc bound the segment's size; -ssi rpi tcp needs no shared memory)", t.m.name, err)
	}
	if err != nil {
		return fmt.Errorf("rpi %s: %w", t.m.name, err)
	}
	if err := t.seg.attached(); err != nil {
		return fmt.Errorf("rpi %s: %w", t.m.name, err)
	}
	for i, r := range local {
		if r == t.job.Rank {
			t.me = i
		}
	}
	t.bell = t.seg.bell(t.me)
	t.links = make([]*link, n)
	t.pidfds = make([]int, n)
	t.pids = make([]int, n)
	for i, r := range local {
		t.pids[i] = pids[r]
		t.pidfds[i] = -1
		if i == t.me {
			continue
		}
		if fd, err := unix.PidfdOpen(pids[r], 0); err == nil {
			unix.CloseOnExec(fd)
			t.pidfds[i] = fd
		}
		t.links[i] = &link{
			t:          t,
			out:        t.seg.ring(t.me, i, true),
			in:         t.seg.ring(i, t.me, false),
			peer:       t.seg.bell(i),
			pid:        pids[r],
			short:      t.c.short,
			singleCopy: min(t.c.singleCopy, l.ringSize),
		}
	}
	return nil
}

func (t *transport) closeLinks() {
	for _, l := range t.links {
		if l != nil {
			l.Close()
		}
	}
}

// Close unmaps the segment and closes the remote transport.
func (t *transport) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, fd := range t.pidfds {
		if fd >= 0 {
			unix.Close(fd)
			t.pidfds[i] = -1
		}
	}
	err := t.remote.Close()
	if t.seg != nil {
		err = errors.Join(err, t.seg.unmap())
		t.seg = nil
	}
	return err
}

// Pace: usysv spins readlockpoll polls, then yields (pollyield) for a
// while before it sleeps; sysv spins for a few microseconds, yields a
// little, and sleeps.
func (t *transport) Pace() rpi.Pace {
	if t.m.spinning {
		return rpi.Pace{SpinPolls: t.c.readPolls, Spin: 50 * time.Microsecond, Yield: 100 * time.Millisecond, YieldOS: t.c.pollyield}
	}
	return rpi.Pace{SpinPolls: 16, Spin: 10 * time.Microsecond, Yield: 50 * time.Microsecond, YieldOS: t.c.pollyield}
}

// Arm, Sleep and Disarm let the core sleep on this process's doorbell,
// and on the remote transport's Waiter where it has one.
func (t *transport) Arm() uint32 {
	if t.rw != nil {
		t.rtok.Store(t.rw.Arm())
	}
	if t.seg == nil {
		return 0
	}
	return t.bell.Arm()
}

// Sleep sleeps until a peer moves bytes, Wake, or d. With a remote
// Waiter and peers on this node both, a goroutine sleeps on the remote
// Waiter meanwhile and rings the doorbell when it wakes, as the core does
// for links with descriptors (this is the path of a waiter that has
// spun and yielded already, not of a message).
func (t *transport) Sleep(token uint32, d time.Duration) {
	switch {
	case t.seg == nil && t.rw != nil:
		t.rw.Sleep(t.rtok.Load(), d)
		return
	case t.seg == nil:
		time.Sleep(d)
		return
	case t.rw == nil:
		t.bell.Sleep(token, d)
		t.checkPeers()
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		t.rw.Sleep(t.rtok.Load(), d)
		t.bell.Ring()
	}()
	t.bell.Sleep(token, d)
	select {
	case <-done:
	default:
		t.rw.Wake()
		<-done
	}
	t.checkPeers()
}

func (t *transport) Wake() {
	if t.seg != nil {
		t.bell.Ring()
	}
	if t.rw != nil {
		t.rw.Wake()
	}
}

func (t *transport) Disarm() {
	if t.rw != nil {
		t.rw.Disarm()
	}
	if t.seg != nil {
		t.bell.Disarm()
	}
}

// checkPeers notices local peers that died (their pidfd is readable), at
// most every 50 ms: their links then fail, and the core fails what
// depended on them instead of waiting forever.
func (t *transport) checkPeers() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.seg == nil || time.Since(t.lastCheck) < 50*time.Millisecond {
		return
	}
	t.lastCheck = time.Now()
	for i, fd := range t.pidfds {
		if fd < 0 || t.links[i] == nil {
			continue
		}
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if n, err := unix.Poll(pfd, 0); err == nil && n > 0 {
			t.links[i].dead.Store(true)
		}
	}
}
