package coll

import (
	"sync"
	"sync/atomic"
	"time"
)

// Tester is implemented by requests whose completion can be seen without
// waiting. A schedule waits (blocks) for a request that is not a Tester.
type Tester interface {
	// Done reports whether the request has completed (an atomic load: it
	// is called while the transport polls).
	Done() bool
}

// Progressor is implemented by transports that can carry nonblocking
// collectives: Progress is the progress of the process they belong to
// (one for every communicator of the process).
type Progressor interface {
	Progress() *Progress
}

// Progress moves a process's nonblocking collectives on while the
// program computes: while any is under way, one goroutine advances them
// all, waiting in the transport's own wait (which polls, then sleeps
// until a message moves) for a round to complete; when none is, the
// goroutine parks, and ends once idleLinger has passed with nothing
// posted (the next collective posted starts it again). A collective
// whose schedule completes when it is posted (a root's eager sends)
// never reaches it, and a caller that waits for a schedule advances it
// itself, as the blocking collectives wait (spinning, then yielding,
// then asleep), while the goroutine leaves it alone.
//
// A schedule posted while the goroutine is parked does not wake it at
// once: most are waited for soon after (a caller then advances them),
// and a wake-up per collective would cost a small one a thread's wake
// (or, with one processor, its turn). The post arms a nudge instead,
// nudgeDelay later, unless one is armed already; the goroutine then
// looks, and advances what nobody waits for. A program that computes
// while its collectives run loses that delay once per schedule at most.
//
// Nothing on the way of a message allocates: the list of schedules under
// way keeps its array, the goroutine watches its own copy of it and
// learns of a new one by a count, and its timers (idle, nudge) are made
// once per goroutine and per process.
type Progress struct {
	// wait waits, moving messages, until cond holds, as a goroutine
	// working behind the program does (it sleeps soon); front waits as
	// a caller of Wait does, as the blocking collectives wait (it spins,
	// yields, then sleeps). cond reads atomics and tries locks only. An
	// error (the transport can no longer make progress) fails every
	// schedule under way. board waits as front does, asleep for a short
	// while at a time: a collective on a board (Quick) ends by another
	// process's store in shared memory, which wakes no sleeper of the
	// transport (Until).
	wait, front, board func(cond func() bool) error

	mu      sync.Mutex
	list    []*Schedule   // under way (under mu)
	posted  atomic.Uint64 // how many schedules were ever posted
	running bool          // the goroutine runs (under mu)
	parked  bool          // the goroutine parks, or is about to (under mu)
	nudging bool          // nudge is armed (under mu)
	wake    chan struct{} // wakes the goroutine when parked
	nudge   *time.Timer   // wakes it nudgeDelay after a post (stopped when not armed)

	// The goroutine's own.
	watch []*Schedule // list, as of seen
	seen  uint64      // posted, when watch was copied
	idle  *time.Timer // fires every idleLinger while the goroutine lives
	mark  uint64      // posted, when idle last fired
}

// NewProgress makes the progress of a process whose transport waits with
// behind on the progress goroutine (briefly polling, then asleep until a
// message moves), with front in a caller's Wait (as the blocking
// collectives wait: spinning, then yielding, then asleep), and with board
// where a caller waits for several requests among which a board's
// collective (Until): as front, but asleep for a short while at a time
// (nil: front).
func NewProgress(behind, front, board func(cond func() bool) error) *Progress {
	t := time.NewTimer(time.Hour)
	t.Stop()
	if board == nil {
		board = front
	}
	return &Progress{wait: behind, front: front, board: board, wake: make(chan struct{}, 1), nudge: t}
}

// nudgeDelay is how long a schedule posted while the progress goroutine
// is parked waits for it at most (if no caller advances it meanwhile).
const nudgeDelay = 50 * time.Microsecond

// post hands p a schedule that is under way.
func (p *Progress) post(s *Schedule) {
	p.mu.Lock()
	p.list = append(p.list, s)
	p.posted.Add(1)
	switch {
	case !p.running:
		p.running = true
		go p.run()
	case p.parked && !p.nudging:
		p.nudging = true
		p.nudge.Reset(nudgeDelay)
	}
	p.mu.Unlock()
}

// park parks the goroutine until it is kicked or nudged, or idle (if
// not nil) fires; it reports whether idle fired. p.mu is held, and is
// released while parked; it is held again on return.
func (p *Progress) park(idle <-chan time.Time) (idled bool) {
	p.parked = true
	p.mu.Unlock()
	select {
	case <-p.wake:
	case <-p.nudge.C:
	case <-idle:
		idled = true
	}
	p.mu.Lock()
	p.parked = false
	if p.nudging {
		p.nudge.Stop() // fired, or is not needed now
		p.nudging = false
	}
	return idled
}

// kick wakes the goroutine if it is parked (a schedule was posted, or a
// caller stopped waiting for one).
func (p *Progress) kick() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// sync drops the schedules that are done from the list and copies it to
// the goroutine's watch; it reports how many are under way and how many
// of those no caller waits for. p.mu is held.
func (p *Progress) sync() (live, watched int) {
	l := p.list[:0]
	for _, s := range p.list {
		if !s.Done() {
			l = append(l, s)
			if s.waiters.Load() == 0 {
				watched++
			}
		}
	}
	clear(p.list[len(l):]) // the done ones are the callers' again
	p.list = l
	clear(p.watch)
	p.watch = append(p.watch[:0], l...)
	p.seen = p.posted.Load()
	return len(l), watched
}

// run is the progress goroutine. It leaves alone the schedules a caller
// is waiting for (the caller advances them), and parks while every
// schedule under way has one.
func (p *Progress) run() {
	p.resync()
	for {
		for _, s := range p.watch {
			if s.waiters.Load() == 0 {
				s.step(false)
			}
		}
		p.mu.Lock()
		live, watched := p.sync()
		if live == 0 {
			if !p.linger() {
				p.mu.Unlock()
				return
			}
			p.sync()
			p.mu.Unlock()
			continue
		}
		if watched == 0 {
			// A caller waits for each: until one stops, or one is
			// posted (nudge).
			p.park(nil)
			p.sync()
			p.mu.Unlock()
			continue
		}
		p.mu.Unlock()
		if err := p.wait(p.ready); err != nil {
			for _, s := range p.watch {
				s.abort(err)
			}
		}
		p.resync()
	}
}

// resync copies the list to the goroutine's watch again.
func (p *Progress) resync() {
	p.mu.Lock()
	p.sync()
	p.mu.Unlock()
}

// idleLinger is how long the goroutine stays parked with nothing under
// way before it ends, so that a program starting collective after
// collective does not start a goroutine for each.
const idleLinger = time.Second

// linger parks the goroutine while nothing is under way; it reports
// whether to go on (false: it ended, idleLinger to twice that having
// passed with nothing posted). Its timer is made once and runs on its
// own: a collective posted costs no timer. p.mu is held (released while
// parked).
func (p *Progress) linger() bool {
	if p.idle == nil {
		p.idle, p.mark = time.NewTimer(idleLinger), p.posted.Load()
	}
	if !p.park(p.idle.C) {
		return true
	}
	p.idle.Reset(idleLinger)
	if n := p.posted.Load(); n != p.mark {
		p.mark = n
		return true // posted meanwhile: look, then park again
	}
	if len(p.list) > 0 {
		return true
	}
	p.idle.Stop()
	p.idle = nil
	p.running = false
	return false
}

// ready reports whether a schedule under way that no caller waits for
// can move on, or whether the goroutine should look again (one was
// posted, or every schedule now has a waiter). The goroutine calls it,
// from its wait.
func (p *Progress) ready() bool {
	if p.posted.Load() != p.seen {
		return true
	}
	watched := 0
	for _, s := range p.watch {
		if s.waiters.Load() > 0 {
			continue
		}
		watched++
		if s.ready(false) {
			return true
		}
	}
	return watched == 0
}
