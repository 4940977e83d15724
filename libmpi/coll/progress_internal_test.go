package coll

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// pendingRecv is a receive that completes when its test says so.
type pendingRecv struct {
	done atomic.Bool
	n    int
}

func (r *pendingRecv) Done() bool { return r.done.Load() }

func (r *pendingRecv) Wait() (Status, error) {
	if !r.done.Load() {
		return Status{}, errors.New("waited for before completion")
	}
	return Status{Count: r.n}, nil
}

// oneRecv is a transport whose receives are the test's pendingRecv.
type oneRecv struct {
	Transport
	r *pendingRecv
}

func (t oneRecv) Irecv(buf []byte, _, _ int) (Request, error) { t.r.n = len(buf); return t.r, nil }
func (oneRecv) Size() int                                     { return 2 }
func (oneRecv) Name() string                                  { return "fake" }

// waitCounter is a transport's wait that counts its calls: it polls
// cond until it holds (or a second passes).
type waitCounter struct{ calls atomic.Int32 }

func (w *waitCounter) wait(cond func() bool) error {
	w.calls.Add(1)
	for end := time.Now().Add(time.Second); !cond(); {
		if time.Now().After(end) {
			return errors.New("hung")
		}
		time.Sleep(50 * time.Microsecond)
	}
	return nil
}

// launchRecv starts, on p, a schedule of one receive that completes when
// r does.
func launchRecv(p *Progress, r *pendingRecv, notify Notifier) *Schedule {
	s := newSchedule(p, nil)
	v := &Comm{T: oneRecv{r: r}, nbcState: nbcState{sched: s}}
	s.Recv(v, make([]byte, 8), 0)
	v.Launch(Barrier, notify)
	return s
}

// A caller's Wait waits with the front wait (as the blocking collectives
// do); a schedule nobody waits for is finished by the progress
// goroutine, with the wait behind the program.
func TestProgressWaits(t *testing.T) {
	for _, tt := range []struct {
		name  string
		wait  bool // a caller waits for it
		front bool // the front wait is used
	}{
		{"caller waits", true, true},
		{"nobody waits", false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var behind, front waitCounter
			p := NewProgress(behind.wait, front.wait, nil)
			r := &pendingRecv{}
			ended := make(chan error, 1)
			s := launchRecv(p, r, NotifyFunc(func(err error) { ended <- err }))
			go func() {
				time.Sleep(5 * time.Millisecond)
				r.done.Store(true)
			}()
			if tt.wait {
				if err := s.Wait(); err != nil {
					t.Fatal(err)
				}
			}
			select {
			case err := <-ended:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the schedule never ended")
			}
			if got := front.calls.Load() > 0; got != tt.front {
				t.Errorf("front wait used: %v, want %v", got, tt.front)
			}
		})
	}
}

// The goroutine ends once idleLinger to twice that has passed with
// nothing posted, and a later post starts it again. The test gives it
// ten times idleLinger: it checks that the goroutine ends, not how soon
// (it takes 1-2 s here; under the race detector beside the other
// packages' tests on 2 processors it once took over 3).
func TestProgressLinger(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the goroutine's idle time")
	}
	var w waitCounter
	p := NewProgress(w.wait, w.wait, nil)
	running := func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.running
	}
	for round := range 2 {
		r := &pendingRecv{}
		s := launchRecv(p, r, nil)
		if !running() {
			t.Fatalf("round %d: no goroutine after a post", round)
		}
		r.done.Store(true)
		if err := s.Wait(); err != nil {
			t.Fatal(err)
		}
		end := time.Now().Add(10 * idleLinger)
		for running() {
			if time.Now().After(end) {
				t.Fatalf("round %d: the goroutine still runs after %v idle", round, 10*idleLinger)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// A schedule posted while the goroutine is parked (lingering after an
// earlier one, or waiting while a caller waits for every schedule) is
// advanced by it once the nudge fires: nobody kicks it, and nobody waits.
func TestProgressNudged(t *testing.T) {
	for _, tt := range []struct {
		name   string
		waited bool // a caller waits for another schedule meanwhile
	}{
		{"lingering", false},
		{"beside a waited one", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var w waitCounter
			p := NewProgress(w.wait, w.wait, nil)
			first := &pendingRecv{}
			s := launchRecv(p, first, nil)
			if tt.waited {
				go func() {
					time.Sleep(20 * time.Millisecond)
					first.done.Store(true)
				}()
				go s.Wait()
			} else {
				first.done.Store(true)
				if err := s.Wait(); err != nil {
					t.Fatal(err)
				}
			}
			parked := func() bool {
				p.mu.Lock()
				defer p.mu.Unlock()
				return p.parked
			}
			for end := time.Now().Add(5 * time.Second); !parked(); time.Sleep(time.Millisecond) {
				if time.Now().After(end) {
					t.Fatal("the goroutine never parked")
				}
			}
			r := &pendingRecv{}
			ended := make(chan error, 1)
			launchRecv(p, r, NotifyFunc(func(err error) { ended <- err }))
			p.mu.Lock()
			nudging := p.nudging
			p.mu.Unlock()
			if !nudging && parked() {
				t.Error("a post to the parked goroutine armed no nudge")
			}
			r.done.Store(true)
			select {
			case err := <-ended:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the schedule nobody waits for never ended")
			}
		})
	}
}

// flagQuick is a board (Quick) whose collective completes once the test
// raises its flag: another process's store, which no transport wait
// sees.
type flagQuick struct{ raised atomic.Bool }

func (q *flagQuick) Ready(*Schedule) bool { return q.raised.Load() }
func (q *flagQuick) Poll(s *Schedule) {
	if q.raised.Load() && !s.Done() {
		s.Complete(nil)
	}
}
func (q *flagQuick) Await(s *Schedule) {
	for !s.Done() {
		q.Poll(s)
		time.Sleep(50 * time.Microsecond)
	}
}

// Until (a Waitany's, a Waitsome's) over a board's collective waits in
// the Progress's board wait, which sleeps only briefly (another
// process's post wakes no transport sleeper); over schedules of messages
// alone, in the front wait.
func TestUntilBoardWait(t *testing.T) {
	for _, tt := range []struct {
		name  string
		quick bool
	}{
		{"a board's collective among them", true},
		{"messages only", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var behind, front, board waitCounter
			p := NewProgress(behind.wait, front.wait, board.wait)
			r := &pendingRecv{}
			ss := []*Schedule{launchRecv(p, r, NotifyFunc(func(error) {}))}
			q := &flagQuick{}
			if tt.quick {
				s := new(Schedule)
				s.initQuick(&Comm{T: oneRecv{r: r}}, Barrier, NotifyFunc(func(error) {}), p)
				s.SetQuick(q, 1, -1)
				s.seal(nil)
				ss = append(ss, s)
			}
			go func() {
				time.Sleep(5 * time.Millisecond)
				q.raised.Store(true)
				r.done.Store(true)
			}()
			Until(ss, func() bool {
				for _, s := range ss {
					if !s.Done() {
						return false
					}
				}
				return true
			})
			if got := board.calls.Load() > 0; got != tt.quick {
				t.Errorf("board wait used: %v, want %v", got, tt.quick)
			}
			if got := front.calls.Load() > 0; got == tt.quick {
				t.Errorf("front wait used: %v, want %v", got, !tt.quick)
			}
		})
	}
}
