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
// goroutine parks, and ends after idleLinger without work (the next
// collective posted starts it again). A collective
// whose schedule completes when it is posted (a root's eager sends)
// never reaches it, and a caller that waits for a schedule advances it
// itself.
type Progress struct {
	// wait waits, moving messages, until cond holds, as a goroutine
	// working behind the program does (it sleeps soon); front waits as
	// a caller of Wait does, as the blocking collectives wait (it spins,
	// yields, then sleeps). cond reads atomics and tries locks only. An
	// error (the transport can no longer make progress) fails every
	// schedule under way.
	wait, front func(cond func() bool) error

	mu      sync.Mutex
	list    []*Schedule                 // under way (under mu)
	snap    atomic.Pointer[[]*Schedule] // list, for cond
	running bool                        // the goroutine runs (under mu)
	wake    chan struct{}               // wakes the goroutine parked while callers wait for every schedule
}

// NewProgress makes the progress of a process whose transport waits with
// behind on the progress goroutine (briefly polling, then asleep until a
// message moves) and with front in a caller's Wait (as the blocking
// collectives wait: spinning, then yielding, then asleep).
func NewProgress(behind, front func(cond func() bool) error) *Progress {
	p := &Progress{wait: behind, front: front, wake: make(chan struct{}, 1)}
	p.snap.Store(new([]*Schedule))
	return p
}

// post hands p a schedule that is under way.
func (p *Progress) post(s *Schedule) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.list = append(p.list[:len(p.list):len(p.list)], s) // a new array: the old one is cond's
	p.publish()
	if !p.running {
		p.running = true
		go p.run()
	}
	p.kick()
}

// kick wakes the goroutine if it is parked (a schedule was posted, or a
// caller stopped waiting for one).
func (p *Progress) kick() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// publish makes the list what cond sees. p.mu is held; the list's array
// is never written again.
func (p *Progress) publish() {
	l := p.list
	p.snap.Store(&l)
}

// run is the progress goroutine. It leaves alone the schedules a caller
// is waiting for (the caller advances them), and parks while every
// schedule under way has one.
func (p *Progress) run() {
	for {
		for _, s := range *p.snap.Load() {
			if s.waiters.Load() == 0 {
				s.step(false)
			}
		}
		p.mu.Lock()
		var live []*Schedule
		watched := 0
		for _, s := range p.list {
			if !s.Done() {
				live = append(live, s)
				if s.waiters.Load() == 0 {
					watched++
				}
			}
		}
		p.list = live
		p.publish()
		if len(live) == 0 {
			p.mu.Unlock()
			if !p.linger() {
				return
			}
			continue
		}
		p.mu.Unlock()
		if watched == 0 {
			<-p.wake // a caller waits for each: until one stops, or one is posted
			continue
		}
		if err := p.wait(p.ready); err != nil {
			for _, s := range live {
				s.abort(err)
			}
		}
	}
}

// idleLinger is how long the goroutine stays parked with nothing under
// way before it ends, so that a program starting collective after
// collective does not start a goroutine for each.
const idleLinger = time.Second

// linger parks the goroutine while nothing is under way, for up to
// idleLinger; it reports whether to go on (false: it ended).
func (p *Progress) linger() bool {
	t := time.NewTimer(idleLinger)
	defer t.Stop()
	select {
	case <-p.wake:
		return true
	case <-t.C:
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.list) > 0 {
		return true
	}
	p.running = false
	return false
}

// ready reports whether a schedule under way that no caller waits for
// can move on, or whether the goroutine should look again (every
// schedule now has a waiter).
func (p *Progress) ready() bool {
	watched := 0
	for _, s := range *p.snap.Load() {
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
