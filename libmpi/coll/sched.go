package coll

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/lamgo/lam/libmpi/internal/cached"
)

// A Schedule is a nonblocking collective as a list of rounds. A round is
// a set of sends and receives, started together when the round begins,
// and local steps (copies, reductions, other work) run in order once all
// of them have completed; the next round begins after. Nothing runs a
// schedule on a goroutine of its own: whoever advances it (the process's
// Progress goroutine, or a caller waiting for it) starts the next round
// as soon as the current one completes.
//
// A module builds a schedule with the functions it returns from
// Nonblocking, which are called on a private view of the communicator
// (see Comm.Reserve) and add their steps to the view's schedule
// (Comm.Schedule) instead of communicating. A local step may add more
// rounds (Then): they go right after the round that runs it, which lets
// a schedule depend on what it received (the argument check does).
type Schedule struct {
	mu      sync.Mutex // held by whoever advances the schedule
	rounds  []round
	cur     int  // the round under way
	started bool // its transfers are started
	open    int  // the round steps are added to
	fresh   bool // the next step opens a new round after open
	err     error
	ended   bool    // advance has reported the end (finish is someone's)
	views   []*Comm // the views whose faults count
	prog    *Progress
	done    atomic.Bool
	notify  Notifier     // told once of the outcome (named)
	kind    Kind         // the collective, and the view that launched
	owner   *Comm        // it, which name its errors
	result  error        // the outcome, once done
	waiters atomic.Int32 // callers in Wait, which advance s themselves
	readyFn func() bool  // readyOrBusy, made once
	temps   [][]byte     // its own buffers (Temp), given back when it ends without error

	// quick is the module that runs a collective of no rounds (Quick):
	// Poll and Await move it on, and its end calls Complete. guard, if
	// set, reports a mismatch the module saw among the processes' calls
	// (Guard).
	quick  Quick
	qnum   uint64 // the module's number of a quick one, and
	qroot  int    // a root it waits for alone, or -1 (SetQuick)
	guard  func() error
	after  []func() error // a quick one's steps after it (Do)
	sealed atomic.Bool    // a quick one may complete (seal)
	late   error          // an error of its start after the module took it

	// The first rounds, views, transfers and local steps are in bufs
	// (a small collective's whole schedule), which belong to the view
	// the schedule was made on and are reused with it; xferFree and
	// localFree are what is left of bufs' xfers and locals.
	bufs      *scheduleBufs
	xferFree  []xfer
	localFree []local
}

// scheduleBufs are the arrays a view lends its schedule (Schedule.bufs):
// kept with the view for reuse, so that a small nonblocking collective
// allocates only its Schedule, a few words.
type scheduleBufs struct {
	rounds [4]round
	views  [2]*Comm
	xfers  [4]xfer
	locals [8]local
}

type round struct {
	xfers []xfer
	local []local
}

// xfer is a send or receive of a round.
type xfer struct {
	t    Transport
	buf  []byte
	peer int
	tag  int
	recv bool
	any  bool   // a receive of any size (RecvAny)
	name string // the communicator, for messages
	req  Request
}

// local is a local step: a copy, a reduction, a function (of the
// schedule, for Then), or a step of the argument check on view v.
type local struct {
	dst, src []byte
	op       *Op
	fn       func() error
	then     func(*Schedule) error
	v        *Comm
	check    checkStep
}

// checkStep is a local step of the argument check that sends the call
// with the data (Comm.runCheckStep).
type checkStep uint8

const (
	judgeStep   checkStep = iota + 1 // compare the call in front of src, copy the data behind it to dst
	sentOutStep                      // fail if the module did not send the call
	digestStep                       // compare the reduced digests in src (Comm.check); rounds it adds go next
)

// A Quick is a nonblocking collective that a module runs itself,
// without rounds of messages (shmem's Ibarrier and small Iallreduce,
// Ireduce and Ibcast, through the shared area): its schedule (StartQuick) has no rounds, the
// Progress goroutine never sees it, and whoever tests or waits for it
// moves it on; its end calls Schedule.Complete.
type Quick interface {
	// Ready reports whether Poll may complete s now (or it has
	// completed). It reads atomics only: it is called while the
	// transport polls, with the transport's lock held.
	Ready(s *Schedule) bool
	// Poll moves s (and the module's other collectives of the kind) on
	// as far as it can without waiting.
	Poll(s *Schedule)
	// Await waits until s has completed, the module's own way (polling,
	// yielding, then asleep until the other processes write, checking
	// that they live).
	Await(s *Schedule)
}

// initQuick makes s, a zero Schedule, the schedule of a nonblocking
// collective of kind that the module runs itself (Quick) on owner;
// notify is as Start's; prog is the process's progress (for Until). The
// module calls SetQuick before the collective can complete.
func (s *Schedule) initQuick(owner *Comm, kind Kind, notify Notifier, prog *Progress) {
	s.kind, s.owner, s.notify, s.ended, s.prog = kind, owner, notify, true, prog
}

// SetQuick makes q what moves the schedule (StartQuick's) on; n and
// root are the module's to keep with it (QuickNumber).
func (s *Schedule) SetQuick(q Quick, n uint64, root int) { s.quick, s.qnum, s.qroot = q, n, root }

// QuickNumber is what SetQuick kept.
func (s *Schedule) QuickNumber() (uint64, int) { return s.qnum, s.qroot }

// seal lets a schedule that StartQuick made complete: its start added
// every step it has (Do), and late is an error of the start after the
// module took the collective.
func (s *Schedule) seal(late error) {
	s.late = late
	s.sealed.Store(true)
}

// Sealed reports whether a schedule that StartQuick made may complete:
// the module completes it only then.
func (s *Schedule) Sealed() bool { return s.sealed.Load() }

// Complete ends a schedule that StartQuick made, with err as its outcome
// (after the steps its start added, if err is nil). The module calls it
// once, after Sealed.
func (s *Schedule) Complete(err error) {
	if err == nil {
		err = s.late
	}
	for _, f := range s.after {
		if err != nil {
			break
		}
		err = f()
	}
	s.after = nil
	s.err = err
	s.finish()
}

// Guard makes f part of the schedule's progress: once f reports an error
// (a mismatch the module saw among the processes' calls), the schedule
// ends with it, even while its messages are not done (a process that
// called another collective never sends them). f reads atomics only, as
// Quick.Ready does.
func (s *Schedule) Guard(f func() error) { s.guard = f }

// newSchedule makes a schedule of prog on the arrays bufs (new ones if
// nil), which are empty.
func newSchedule(prog *Progress, bufs *scheduleBufs) *Schedule {
	if bufs == nil {
		bufs = new(scheduleBufs)
	}
	s := &Schedule{open: -1, fresh: true, prog: prog, bufs: bufs}
	s.rounds, s.views = bufs.rounds[:0], bufs.views[:0]
	s.xferFree, s.localFree = bufs.xfers[:], bufs.locals[:]
	s.readyFn = s.readyOrBusy
	return s
}

// addXfer adds x to r. A round's first transfer makes room for as many
// as a linear algorithm's root has (one per other process, at least a
// send and a receive, up to 8), so that the round does not grow one
// append at a time: in the schedule's bufs while they have room.
func (s *Schedule) addXfer(r *round, x xfer) {
	if r.xfers == nil {
		r.xfers = carve(&s.xferFree, min(max(x.t.Size()-1, 2), 8))
	}
	r.xfers = append(r.xfers, x)
}

// addLocal adds l to r, making room for four local steps at the first
// (a reduction, a copy and the argument check's steps that look at them;
// in the schedule's bufs while they have room).
func (s *Schedule) addLocal(r *round, l local) {
	if r.local == nil {
		r.local = carve(&s.localFree, 4)
	}
	r.local = append(r.local, l)
}

// carve returns an empty slice of capacity n from the front of *free,
// or a new one of capacity max(n, 4) if *free has fewer than n.
func carve[T any](free *[]T, n int) []T {
	if len(*free) < n {
		return make([]T, 0, max(n, 4))
	}
	b := (*free)[:0:n]
	*free = (*free)[n:]
	return b
}

// Next ends the round steps are added to: what is added next goes into a
// new round, which begins once this one is complete.
func (s *Schedule) Next() {
	if s.quick == nil {
		s.fresh = true
	}
}

// openRound returns the round steps go to, opening one if need be (a
// transfer never joins a round that has local steps: they run after its
// transfers).
func (s *Schedule) openRound(transfer bool) *round {
	if !s.fresh && transfer && len(s.rounds[s.open].local) > 0 {
		s.fresh = true
	}
	if s.fresh {
		s.open++
		s.rounds = slices.Insert(s.rounds, s.open, round{})
		s.fresh = false
	}
	return &s.rounds[s.open]
}

// Send adds a send of buf to rank peer of c (a view: the message carries
// its tag as it is now).
func (s *Schedule) Send(c *Comm, buf []byte, peer int) { s.xfer(c, buf, peer, false) }

// Recv adds a receive of exactly len(buf) bytes from rank peer of c.
func (s *Schedule) Recv(c *Comm, buf []byte, peer int) { s.xfer(c, buf, peer, true) }

// RecvAny adds a receive of up to len(buf) bytes from rank peer of c
// whose size is not checked: what the collective received tells (a call
// sent with the data, JudgeCall).
func (s *Schedule) RecvAny(c *Comm, buf []byte, peer int) {
	r := s.openRound(true)
	s.addXfer(r, xfer{t: c.T, buf: buf, peer: peer, tag: int(c.tag), recv: true, any: true, name: c.T.Name()})
}

// SendTagged and RecvTagged are Send and Recv with a tag of the
// caller's on c's transport (a neighbour collective tags each edge; the
// tags must be ones no other collective of c uses at the same time).
func (s *Schedule) SendTagged(c *Comm, buf []byte, peer, tag int) { s.add(c, buf, peer, tag, false) }

// RecvTagged: see SendTagged.
func (s *Schedule) RecvTagged(c *Comm, buf []byte, peer, tag int) { s.add(c, buf, peer, tag, true) }

func (s *Schedule) xfer(c *Comm, buf []byte, peer int, recv bool) {
	s.add(c, buf, peer, int(c.tag), recv)
}

func (s *Schedule) add(c *Comm, buf []byte, peer, tag int, recv bool) {
	r := s.openRound(true)
	s.addXfer(r, xfer{t: c.T, buf: buf, peer: peer, tag: tag, recv: recv, name: c.T.Name()})
}

// Copy adds a local step that copies src to dst.
func (s *Schedule) Copy(dst, src []byte) {
	r := s.openRound(false)
	s.addLocal(r, local{dst: dst, src: src})
}

// Reduce adds a local step that sets inout to in ∘ inout.
func (s *Schedule) Reduce(op *Op, in, inout []byte) {
	r := s.openRound(false)
	s.addLocal(r, local{dst: inout, src: in, op: op})
}

// Do adds a local step that runs f; an error ends the schedule with it.
func (s *Schedule) Do(f func() error) {
	if s.quick != nil {
		s.after = append(s.after, f)
		return
	}
	r := s.openRound(false)
	s.addLocal(r, local{fn: f})
}

// Then adds a local step that runs f, which may add rounds to s: they run
// next, before what is added after this step (which goes into a new
// round).
func (s *Schedule) Then(f func(s *Schedule) error) {
	r := s.openRound(false)
	s.addLocal(r, local{then: f})
	s.Next()
}

// Fail ends the schedule with err when it reaches this point.
func (s *Schedule) Fail(err error) { s.Do(func() error { return err }) }

// Done reports whether the schedule has completed.
func (s *Schedule) Done() bool { return s.done.Load() }

// advance moves the schedule on as far as it can without waiting and
// reports whether it has just finished (the caller then calls finish).
// s.mu is held.
func (s *Schedule) advance() bool {
	if s.ended {
		return false // finished, or being finished by whoever saw the end
	}
	for s.err == nil && s.cur < len(s.rounds) {
		if s.guard != nil {
			if s.err = s.guard(); s.err != nil {
				break
			}
		}
		if !s.started {
			s.started = true
			if err := s.start(&s.rounds[s.cur]); err != nil {
				s.err = err
				break
			}
		}
		if !s.complete(&s.rounds[s.cur]) {
			return false
		}
		s.runLocal()
		s.cur++
		s.started = false
	}
	s.ended = true
	s.drop()
	return true
}

// drop forgets the rounds of a schedule that ended: the buffers are the
// caller's again, and bufs are left empty for the view's next schedule.
func (s *Schedule) drop() {
	b := s.bufs
	clear(b.rounds[:min(len(s.rounds), len(b.rounds))])
	// Only what was carved (from the front) holds anything.
	clear(b.xfers[:len(b.xfers)-len(s.xferFree)])
	clear(b.locals[:len(b.locals)-len(s.localFree)])
	s.rounds, s.xferFree, s.localFree = nil, nil, nil
}

// start starts a round's transfers.
func (s *Schedule) start(r *round) error {
	for i := range r.xfers {
		x := &r.xfers[i]
		var err error
		if x.recv {
			x.req, err = x.t.Irecv(x.buf, x.peer, x.tag)
		} else {
			x.req, err = x.t.Isend(x.buf, x.peer, x.tag)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// complete reports whether every transfer of r has completed, collecting
// those that have. A transfer whose request cannot be tested is waited
// for.
func (s *Schedule) complete(r *round) bool {
	for i := range r.xfers {
		x := &r.xfers[i]
		if x.req == nil {
			continue
		}
		if t, ok := x.req.(Tester); ok && !t.Done() {
			return false
		}
		st, err := x.req.Wait()
		x.req = nil
		if err != nil && !errors.Is(err, ErrTruncated) {
			if s.err == nil {
				s.err = err
			}
			continue
		}
		if x.recv && !x.any {
			s.received(x, st, err)
		}
	}
	return true
}

// received records a receive of the wrong size as a fault of the
// schedule (its messages are received by their exact tag, so they are
// always the collective's own).
func (s *Schedule) received(x *xfer, st Status, err error) {
	switch {
	case err != nil:
		s.fault(Errorf(ErrCount, "%s: rank %d sent more than the %d bytes this process expects", x.name, x.peer, len(x.buf)))
	case st.Count != len(x.buf):
		s.fault(Errorf(ErrCount, "%s: rank %d sent %d bytes where this process expects %d", x.name, x.peer, st.Count, len(x.buf)))
	}
}

// fault records a mismatch on the schedule's main view (the first one
// counts); the schedule goes on, as a blocking collective does.
func (s *Schedule) fault(e *Error) {
	if len(s.views) > 0 {
		s.views[0].Fault(e)
	}
}

// runLocal runs the local steps of the current round. Rounds a step adds
// go right after it.
func (s *Schedule) runLocal() {
	for j := 0; s.err == nil && j < len(s.rounds[s.cur].local); j++ {
		l := s.rounds[s.cur].local[j]
		switch {
		case l.fn != nil:
			s.open, s.fresh = s.cur, true
			s.err = l.fn()
		case l.then != nil:
			s.open, s.fresh = s.cur, true
			s.err = l.then(s)
		case l.v != nil:
			s.open, s.fresh = s.cur, true
			s.err = l.v.runCheckStep(l)
		case l.op != nil:
			l.op.Apply(l.src, l.dst)
		default:
			cached.Copy(l.dst, l.src)
		}
	}
}

// outcome is the schedule's error: the one that stopped it, or the first
// fault a view recorded.
func (s *Schedule) outcome() error {
	if s.err != nil {
		return s.err
	}
	for _, v := range s.views {
		if v.fault != nil {
			return v.fault
		}
	}
	return nil
}

// finish marks s done and tells its owner. It is called once, by the
// goroutine whose advance finished s, without s.mu.
func (s *Schedule) finish() {
	err := s.outcome()
	s.result = err
	if s.notify != nil {
		s.notify.Notify(s.named(err))
	}
	// The views go back to their communicators for reuse if every
	// transfer completed (a schedule stopped by an error may leave
	// receives posted into a view's scratch buffers). The list of them
	// is in a view's bufs: emptied first, since a view given back may be
	// taken at once.
	var keep [2]*Comm
	views, clean := append(keep[:0], s.views...), s.err == nil
	clear(s.views)
	temps := s.temps
	s.views, s.owner, s.notify, s.bufs, s.temps = nil, nil, nil, nil, nil
	if clean {
		for _, v := range views {
			v.recycle()
		}
	}
	if err == nil {
		// Every transfer completed: nothing writes into them now.
		for _, b := range temps {
			giveBack(b)
		}
	}
	s.done.Store(true)
}

// named is err as the collective's owner learns it: an *Error, which
// names the collective and the communicator if err was not one.
func (s *Schedule) named(err error) error {
	if err == nil {
		return nil
	}
	if ce := (*Error)(nil); errors.As(err, &ce) {
		return err
	}
	name := ""
	if s.owner != nil {
		name = s.owner.T.Name()
	}
	return &Error{Class: ErrOther, Msg: fmt.Sprintf("%s (nonblocking) on %s: %v", s.kind, name, err), Err: err}
}

// ready reports whether s can move on: its current round's transfers
// have all completed (or it is done). It reads only atomics and tries
// s.mu, so Progress calls it while polling; busy is what it reports
// while another goroutine holds s.mu (advancing s).
func (s *Schedule) ready(busy bool) bool {
	if s.done.Load() {
		return true
	}
	if s.quick != nil {
		return s.quick.Ready(s)
	}
	if s.guard != nil && s.guard() != nil {
		return true
	}
	if !s.mu.TryLock() {
		return busy
	}
	defer s.mu.Unlock()
	if s.ended || !s.started || s.cur >= len(s.rounds) {
		return true
	}
	for i := range s.rounds[s.cur].xfers {
		if q := s.rounds[s.cur].xfers[i].req; q != nil {
			if t, ok := q.(Tester); ok && !t.Done() {
				return false
			}
		}
	}
	return true
}

// step advances s once (if nobody else is, unless wait), and finishes it
// if it is done.
func (s *Schedule) step(wait bool) {
	if s.quick != nil {
		s.quick.Poll(s)
		return
	}
	if wait {
		s.mu.Lock()
	} else if !s.mu.TryLock() {
		return
	}
	if s.locked() {
		s.finish()
	}
}

// locked advances s with s.mu held, and releases it (even if a step
// panics: a user's op, say); it reports whether s has just finished.
func (s *Schedule) locked() bool {
	defer s.mu.Unlock()
	return s.advance()
}

// abort ends s with err (its transport's progress failed).
func (s *Schedule) abort(err error) {
	if s.quick != nil {
		return // it does not move through the transport
	}
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.err = err
	s.cur = 0
	s.drop()
	s.ended = true
	s.mu.Unlock()
	s.finish()
}

// Wait advances s until it completes and returns its outcome. While a
// caller waits, it advances s itself and the Progress goroutine leaves s
// alone, so the rounds follow each other on the caller's thread.
func (s *Schedule) Wait() error {
	if s.done.Load() {
		return s.result
	}
	if s.quick != nil {
		for !s.done.Load() {
			s.quick.Await(s)
		}
		return s.result
	}
	// The progress goroutine leaves s alone from now on (it sees the
	// waiter when it next looks); s is done when this returns, so the
	// goroutine has nothing to learn from the end either.
	s.waiters.Add(1)
	defer s.waiters.Add(-1)
	for !s.done.Load() {
		s.step(true)
		if s.done.Load() {
			break
		}
		// Another goroutine holding s.mu (Progress, which took s before
		// this caller came, or a Test) is advancing it: look again at
		// once, and wait for it on s.mu, whose release wakes us (its
		// steps may complete s without a message arriving).
		if err := s.prog.front(s.readyFn); err != nil {
			s.abort(err)
		}
	}
	return s.result
}

// Until advances the schedules ss on the caller's goroutine, as Wait
// does for one, until cond holds (cond reads atomics only: the requests
// of a Waitany, say, which the schedules' ends complete); the Progress
// goroutine leaves them alone meanwhile. The schedules belong to one
// process (one Progress). It waits in the transport's wait, which
// another process's post on a board does not wake: with a board's
// collective among ss, in the Progress's board wait, which sleeps only
// a short while at a time.
func Until(ss []*Schedule, cond func() bool) {
	if len(ss) == 0 {
		return
	}
	p := ss[0].prog
	wait := p.front
	for _, s := range ss {
		s.waiters.Add(1)
		if s.quick != nil {
			wait = p.board
		}
	}
	defer func() {
		undone := false
		for _, s := range ss {
			s.waiters.Add(-1)
			undone = undone || !s.done.Load()
		}
		if undone {
			p.kick() // the goroutine advances them again
		}
	}()
	moved := func() bool {
		if cond() {
			return true
		}
		for _, s := range ss {
			if !s.done.Load() && s.ready(true) {
				return true
			}
		}
		return false
	}
	for {
		for _, s := range ss {
			if !s.done.Load() {
				s.step(true)
			}
		}
		if cond() {
			return
		}
		if err := wait(moved); err != nil {
			for _, s := range ss {
				s.abort(err)
			}
		}
	}
}

// readyOrBusy is ready for a caller in Wait.
func (s *Schedule) readyOrBusy() bool { return s.ready(true) }

// Test advances s as far as it can without waiting, if nobody else is
// advancing it, and reports whether it has completed.
func (s *Schedule) Test() bool {
	if !s.done.Load() {
		s.step(false)
	}
	return s.done.Load()
}
