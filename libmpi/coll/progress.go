package coll

import (
	"sync"
	"sync/atomic"
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
// goroutine ends, and the next one posted starts it again. A collective
// whose schedule completes when it is posted (a root's eager sends)
// never reaches it, and a caller that waits for a schedule advances it
// itself.
type Progress struct {
	// wait waits, moving messages, until cond holds; cond reads atomics
	// and tries locks only. An error (the transport can no longer make
	// progress) fails every schedule under way.
	wait func(cond func() bool) error

	mu      sync.Mutex
	list    []*Schedule                 // under way (under mu)
	snap    atomic.Pointer[[]*Schedule] // list, for cond
	running bool                        // the goroutine runs (under mu)
}

// NewProgress makes the progress of a process whose transport waits with
// wait.
func NewProgress(wait func(cond func() bool) error) *Progress {
	p := &Progress{wait: wait}
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
}

// publish makes the list what cond sees. p.mu is held; the list's array
// is never written again.
func (p *Progress) publish() {
	l := p.list
	p.snap.Store(&l)
}

// run is the progress goroutine.
func (p *Progress) run() {
	for {
		for _, s := range *p.snap.Load() {
			s.step(false)
		}
		p.mu.Lock()
		var live []*Schedule
		for _, s := range p.list {
			if !s.Done() {
				live = append(live, s)
			}
		}
		p.list = live
		p.publish()
		if len(live) == 0 {
			p.running = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		if err := p.wait(p.ready); err != nil {
			for _, s := range live {
				s.abort(err)
			}
		}
	}
}

// ready reports whether a schedule under way can move on (or a new one
// was posted, or one finished).
func (p *Progress) ready() bool {
	for _, s := range *p.snap.Load() {
		if s.ready() {
			return true
		}
	}
	return false
}
