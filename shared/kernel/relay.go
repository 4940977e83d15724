package kernel

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/shared/wire"
)

// The relay serves every attached stream (stream.go) from one thread of
// its own, which sleeps in epoll_wait(2) on their descriptors: a post is
// read, and its message written to the receiver's stream, by the thread
// the arrival wakes, with nothing else woken. The descriptors are kept out
// of Go's network poller, whose thread would be woken at every message
// too, and while messages flow the thread sleeps in a raw system call that
// keeps its Go processor: the scheduler's monitor would otherwise take the
// processor from the sleeping thread each time and wake another thread to
// hold it (two context switches a message, which doubled the lamd rpi's
// latency on a 2-processor machine). After relayIdle without an event the
// relay sleeps as an ordinary system call again, so an idle lamd lets the
// scheduler sleep too.
type relay struct {
	k    *Kernel
	ep   int // the epoll set
	wake int // eventfd: the lamd stops, or a forwarded post is out
	raw  bool

	mu      sync.Mutex
	slots   []*stream // by stream.slot; nil when free
	free    []int32
	resumed []*stream // senders whose post to another node is out
	stopped bool      // the descriptors are closed
}

const (
	// wakeSlot marks the eventfd's events.
	wakeSlot = -1
	// relayIdle is how long the relay sleeps holding its processor.
	relayIdle = 10 * time.Millisecond
	// relayNap bounds an ordinary sleep (the unfinished frames' deadlines
	// are checked at least this often).
	relayNap = time.Second
	// relayReads is how many reads of one stream the relay makes in a row
	// before it serves the others.
	relayReads = 4
)

// relay returns the lamd's relay, started at the first attach.
func (k *Kernel) relay() (*relay, error) {
	k.relayOnce.Do(func() {
		ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		if err != nil {
			k.relayErr = fmt.Errorf("relay: %w", err)
			return
		}
		wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
		if err != nil {
			unix.Close(ep)
			k.relayErr = fmt.Errorf("relay: %w", err)
			return
		}
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: wakeSlot}
		if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, wake, &ev); err != nil {
			unix.Close(ep)
			unix.Close(wake)
			k.relayErr = fmt.Errorf("relay: %w", err)
			return
		}
		// With one processor, a thread that keeps it while it sleeps
		// would hold up every other goroutine of the lamd.
		r := &relay{k: k, ep: ep, wake: wake, raw: runtime.GOMAXPROCS(0) > 1}
		k.relayer = r
		k.wg.Add(2)
		go func() { defer k.wg.Done(); r.run() }()
		go func() {
			defer k.wg.Done()
			<-k.ctx.Done()
			r.kick()
		}()
	})
	return k.relayer, k.relayErr
}

// kick wakes the relay.
func (r *relay) kick() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.stopped {
		one := [8]byte{7: 1}
		unix.Write(r.wake, one[:])
	}
}

// add gives s to the relay, which reads it (and writes its backlog) from
// now on.
func (r *relay) add(s *stream) error {
	r.mu.Lock()
	if r.stopped {
		r.mu.Unlock()
		return errHalting
	}
	if n := len(r.free); n > 0 {
		s.slot = r.free[n-1]
		r.free = r.free[:n-1]
	} else {
		s.slot = int32(len(r.slots))
		r.slots = append(r.slots, nil)
	}
	r.slots[s.slot] = s
	r.mu.Unlock()
	s.mu.Lock() // the relay may serve s as soon as it is in the set
	ev := unix.EpollEvent{Events: s.events(), Fd: s.slot}
	err := unix.EpollCtl(r.ep, unix.EPOLL_CTL_ADD, s.fd, &ev)
	s.mu.Unlock()
	if err != nil {
		r.release(s)
		return fmt.Errorf("relay: %w", err)
	}
	return nil
}

// release frees s's slot.
func (r *relay) release(s *stream) {
	r.mu.Lock()
	r.slots[s.slot] = nil
	r.free = append(r.free, s.slot)
	r.mu.Unlock()
}

// events is what the relay watches s's descriptor for: reading unless s
// is paused, writing while it has a backlog. The caller holds s.mu.
func (s *stream) events() uint32 {
	var ev uint32
	if !s.paused {
		ev |= unix.EPOLLIN | unix.EPOLLRDHUP
	}
	if s.opos < len(s.out) {
		ev |= unix.EPOLLOUT
	}
	return ev
}

// watch updates what the relay watches s for; the caller holds s.mu.
func (r *relay) watch(s *stream) {
	if s.closed || s.unwatched {
		return
	}
	ev := unix.EpollEvent{Events: s.events(), Fd: s.slot}
	unix.EpollCtl(r.ep, unix.EPOLL_CTL_MOD, s.fd, &ev)
}

// run is the relay's thread.
func (r *relay) run() {
	runtime.LockOSThread() // never unlocked: the thread ends with the relay
	evs := make([]unix.EpollEvent, 64)
	held := r.raw
	lastCheck := time.Now()
	for {
		var n int
		var err error
		if held {
			n, err = epollWaitHeld(r.ep, evs, relayIdle)
		} else {
			n, err = unix.EpollWait(r.ep, evs, int(relayNap/time.Millisecond))
		}
		if r.k.ctx.Err() != nil {
			r.stop()
			return
		}
		if err != nil && err != unix.EINTR {
			r.k.log.Error("relay: epoll_wait", "err", err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		held = r.raw && n > 0
		for _, ev := range evs[:max(n, 0)] {
			if ev.Fd == wakeSlot {
				var b [8]byte
				unix.Read(r.wake, b[:])
				r.resumeForwarded()
				continue
			}
			r.mu.Lock()
			var s *stream
			if int(ev.Fd) < len(r.slots) {
				s = r.slots[ev.Fd]
			}
			r.mu.Unlock()
			if s != nil {
				r.handle(s, ev.Events)
			}
		}
		if now := time.Now(); now.Sub(lastCheck) >= relayNap {
			lastCheck = now
			r.dropSlow(now)
		}
	}
}

// epollWaitHeld is epoll_wait(2) as a raw system call: the Go scheduler
// does not see it, so the thread keeps its processor while it sleeps.
func epollWaitHeld(ep int, evs []unix.EpollEvent, timeout time.Duration) (int, error) {
	n, _, e := unix.RawSyscall6(unix.SYS_EPOLL_WAIT, uintptr(ep), uintptr(unsafe.Pointer(&evs[0])),
		uintptr(len(evs)), uintptr(timeout/time.Millisecond), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// handle serves what the epoll set reported for s.
func (r *relay) handle(s *stream, events uint32) {
	if events&unix.EPOLLOUT != 0 {
		resume, err := s.drain()
		for _, w := range resume {
			r.resume(w)
		}
		if err != nil {
			r.drop(s)
			return
		}
	}
	if events&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) == 0 {
		return
	}
	if s.paused {
		// The process hung up while its posts are held: stop watching
		// (a hang-up is always reported) until they go on.
		if events&(unix.EPOLLHUP|unix.EPOLLERR) != 0 {
			s.mu.Lock()
			unix.EpollCtl(r.ep, unix.EPOLL_CTL_DEL, s.fd, nil)
			s.unwatched = true
			s.mu.Unlock()
		}
		return
	}
	r.serve(s)
}

// serve serves the posts s received, reading more as long as it sent
// more (relayReads reads at most while the epoll set watches s) and no
// receiver holds it back.
func (r *relay) serve(s *stream) {
	for reads := 0; ; reads++ {
		for !s.paused {
			h, body, ok, err := s.in.Next()
			if err != nil {
				r.k.log.Warn("closed a local client that sent a bad frame", "name", s.c.name, "pid", s.c.cred.PID, "err", err)
				r.drop(s)
				return
			}
			if !ok {
				break
			}
			if !r.frame(s, h, body) {
				return
			}
		}
		if s.paused {
			return
		}
		if !s.in.Partial() {
			s.begun = time.Time{}
		} else if s.begun.IsZero() {
			s.begun = time.Now()
		}
		if reads >= relayReads && !s.unwatched {
			return // the epoll set reports the rest
		}
		space := s.in.Space()
		n, err := unix.Read(s.fd, space)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return
		case err != nil || n == 0:
			r.drop(s) // the process is gone
			return
		}
		s.in.Filled(n)
		if n < len(space) {
			// A short read emptied the socket: serve what came, and
			// leave the next read to the epoll set (a process that hung
			// up is read to its end: it is out of the set).
			reads = relayReads - 1
		}
	}
}

// frame serves one frame from s and reports whether s is still served.
// A stream sends posts only (lamclient.Stream).
func (r *relay) frame(s *stream, h wire.Header, body []byte) bool {
	if h.Flags&wire.FlagReply != 0 {
		return true // clients do not answer
	}
	err := errNotPost
	if h.Kind == wire.KindPost {
		err = s.post.Unmarshal(body)
	}
	if err != nil {
		r.k.log.Warn("closed a local client that sent a bad frame", "name", s.c.name, "pid", s.c.cred.PID, "kind", h.Kind, "err", err)
		r.drop(s)
		return false
	}
	k := r.k
	if node := k.target(s.post.Node); node != k.cfg.Self {
		// To another node: the link may make it wait for its window, so
		// a goroutine sends it while s waits (its data stays in s.in,
		// which is not read meanwhile), and the order of s's posts
		// holds.
		r.pause(s)
		m := s.post
		go func() {
			k.post(s.c, nil, h.ID, &m)
			r.mu.Lock()
			r.resumed = append(r.resumed, s)
			r.mu.Unlock()
			r.kick()
		}()
		return true
	}
	if full := k.post(s.c, nil, h.ID, &s.post); full != nil {
		full.mu.Lock()
		if !full.closed && len(full.out)-full.opos > streamLimit {
			full.waiters = append(full.waiters, s)
			full.mu.Unlock()
			r.pause(s)
			return true
		}
		full.mu.Unlock()
	}
	return true
}

var errNotPost = errors.New("a stream sends only posts")

// pause stops reading s.
func (r *relay) pause(s *stream) {
	s.mu.Lock()
	s.paused = true
	r.watch(s)
	s.mu.Unlock()
}

// resume reads s again, after serving what it had received.
func (r *relay) resume(s *stream) {
	s.mu.Lock()
	if s.closed || !s.paused {
		s.mu.Unlock()
		return
	}
	s.paused = false
	r.watch(s)
	s.mu.Unlock()
	s.begun = time.Time{}
	r.serve(s)
}

// resumeForwarded resumes the senders whose post to another node is out.
func (r *relay) resumeForwarded() {
	r.mu.Lock()
	resumed := r.resumed
	r.resumed = nil
	r.mu.Unlock()
	for _, s := range resumed {
		r.resume(s)
	}
}

// drop ends s: its process is gone (or misbehaved, or the lamd stops).
// The client's goroutine, waiting for s.ended, then cleans up after it.
func (r *relay) drop(s *stream) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	if !s.unwatched {
		unix.EpollCtl(r.ep, unix.EPOLL_CTL_DEL, s.fd, nil)
	}
	s.closed = true
	unix.Close(s.fd)
	waiters := s.waiters
	s.waiters = nil
	s.mu.Unlock()
	r.release(s)
	r.k.detach(s)
	close(s.ended)
	for _, w := range waiters {
		r.resume(w)
	}
}

// dropSlow drops the streams that left a frame unfinished for longer than
// Config.FrameTimeout.
func (r *relay) dropSlow(now time.Time) {
	limit := r.k.cfg.FrameTimeout
	if limit <= 0 {
		return
	}
	r.mu.Lock()
	var slow []*stream
	for _, s := range r.slots {
		if s != nil && !s.paused && !s.begun.IsZero() && now.Sub(s.begun) > limit {
			slow = append(slow, s)
		}
	}
	r.mu.Unlock()
	for _, s := range slow {
		r.k.log.Warn("closed a local client that left a frame unfinished", "name", s.c.name, "pid", s.c.cred.PID, "limit", limit)
		r.drop(s)
	}
}

// stop drops every stream and closes the relay's descriptors: the lamd
// stops.
func (r *relay) stop() {
	r.mu.Lock()
	r.stopped = true // no stream is added from now on
	all := make([]*stream, 0, len(r.slots))
	for _, s := range r.slots {
		if s != nil {
			all = append(all, s)
		}
	}
	r.mu.Unlock()
	for _, s := range all {
		r.drop(s)
	}
	r.mu.Lock()
	unix.Close(r.ep)
	unix.Close(r.wake)
	r.mu.Unlock()
}
