package coll

import (
	"encoding/binary"
	"sync"
	"sync/atomic"
)

// Nonblocking collectives (MPI_Ibarrier, MPI_Iallreduce, ...).
//
// A nonblocking collective is a Schedule (sched.go): rounds of
// nonblocking sends and receives on the communicator's collective context
// with local copies and reductions between them, built when the
// collective starts and advanced by the process's Progress (progress.go)
// and by whoever waits for it, never on a goroutine of its own. It is
// built on a private view of the communicator (its own tag, fault record
// and schedule), so several may be under way on one communicator at once.
// Each one started on a communicator gets the next sequence number, and
// its messages are tagged with it and received by that exact tag: MPI has
// every process start a communicator's nonblocking collectives in the
// same order, so the numbers agree, and two outstanding ones never take
// each other's messages. Once a communicator has started one, its
// blocking collectives also receive by their exact tag (they otherwise
// receive any tag, to name the collective a process called by mistake),
// so they never take a nonblocking one's messages.
//
// The schedules are lam_basic's (package basic), unless the module
// implements Nonblocking.

// Nonblocking is implemented by modules that build nonblocking
// collectives: NonblockingActions returns functions that, called on a
// view (see Comm.Reserve), add the collective's steps to the view's
// schedule (Comm.Schedule) instead of communicating. It is detected once,
// when the module is chosen; nil functions fall back to lam_basic's.
// Functions that use a sub-communicator the module made call Comm.View
// for a view of it on the same schedule.
type Nonblocking interface {
	NonblockingActions(c *Comm) *Actions
}

// nbcMark marks a nonblocking collective's tag: bit 30 (a blocking
// collective's) clear, bit 29 set, so it meets neither the blocking
// collectives' tags nor the communicator constructions' (0-3) nor the
// neighbour collectives' (bit 28 and below, bit 29 clear); bit 28 is set
// for the messages of its argument check (nbcCheck); the low bits are
// the sequence number.
const (
	nbcMark  = 1 << 29
	nbcCheck = 1 << 28
	nbcMask  = nbcCheck - 1
)

// exactTag reports whether receives use the collective's exact tag.
func (c *Comm) exactTag() bool { return c.exact || c.nbc.Load() }

// recvTag is the tag a receive of the running collective asks for.
func (c *Comm) recvTag() int {
	if c.exactTag() {
		return int(c.tag)
	}
	return AnyTag
}

// Reserve makes the private view of c on which the next nonblocking
// collective is built: its sequence number, and so its tag, are taken
// now, in the order this process starts its collectives on c, which MPI
// has every process keep alike.
func (c *Comm) Reserve(kind Kind) (*Comm, error) {
	p, ok := c.T.(Progressor)
	if !ok {
		return nil, Errorf(ErrIntern, "%s: %s: the transport cannot progress nonblocking collectives", c.T.Name(), kind)
	}
	c.mu.Lock()
	if err := c.setup(); err != nil {
		c.mu.Unlock()
		return nil, err
	}
	c.nbcSeq++ // under c.mu
	seq := c.nbcSeq
	c.nbc.Store(true)
	v := c.viewLocked(int32(nbcMark|int(seq)&nbcMask), nil, p.Progress())
	c.mu.Unlock()
	if c.Inter() {
		// The local group's hidden communicator, which the
		// intercommunicator algorithms use, gets a private view too, with
		// the same tag (its context is its own).
		l := c.T.Local()
		if l == nil {
			return nil, Errorf(ErrIntern, "%s: %s: no local group", c.T.Name(), kind)
		}
		lv, err := v.View(l)
		if err != nil {
			return nil, err
		}
		v.T = viewTransport{c.T, lv}
	}
	return v, nil
}

// viewLocked makes a view of c with tag on the schedule s, or, if s is
// nil, on a new schedule of prog (a collective's own view, which lends
// the schedule its arrays). c.mu is held and c is set up.
func (c *Comm) viewLocked(tag int32, s *Schedule, prog *Progress) *Comm {
	v := c.freeView()
	if v == nil {
		v = &Comm{settings: c.settings, module: c.module, act: c.nbAct, selected: c.selected,
			nbcState: nbcState{nbSent: &c.nbSentCount, base: c}}
	}
	v.reset(c, tag, s)
	if s == nil {
		if v.bufs == nil {
			v.bufs = new(scheduleBufs)
		}
		s = newSchedule(prog, v.bufs)
		v.sched = s
	}
	s.views = append(s.views, v)
	return v
}

// reset readies the view v of c for a collective with tag on schedule s:
// everything a collective may change on a view is set as a new view's;
// what a view takes from c when it is made (viewKept: the module, its
// nonblocking functions, c's count of sent calls) is c's for good and
// is not written again, nor are the view's buffers (Scratch, bufs),
// which it keeps for reuse, nor its digest of the last call (lastSig: a
// function of the call and the communicator, which its views share). Writing the whole Comm again, a kilobyte of
// function pointers under the collector's write barriers, cost a small
// nonblocking collective more than its messages.
func (v *Comm) reset(c *Comm, tag int32, s *Schedule) {
	v.T, v.Params, v.Data = c.T, c.Params, c.Data
	v.ready, v.freed, v.initErr = true, false, nil
	v.tag, v.fault, v.parent = tag, nil, nil
	v.carry, v.sent = carry{}, 0
	v.rec.on.Store(false)
	v.rec.seq.Store(0)
	v.rec.last = LastCall{}
	v.watcher = watcher{}
	v.nbcSeq, v.exact, v.sched, v.nbSig = 0, true, s, Sig{}
	v.nbc.Store(false)
	v.nbSentCount.Store(0)
	v.free, v.freeShut = nil, false
	v.quick = nil // a view's collectives are not StartQuick's
}

// maxFreeViews is how many views of a communicator whose schedules
// completed it keeps for reuse: a view is a Comm (about a kilobyte),
// the largest allocation of a small nonblocking collective, and
// allocating one per call cost a 2-process Ibarrier a fifth of its time.
const maxFreeViews = 4

// freeView returns a view of c whose schedule completed, to reuse, or
// nil.
func (c *Comm) freeView() *Comm {
	c.freeMu.Lock()
	defer c.freeMu.Unlock()
	if n := len(c.free); n > 0 {
		v := c.free[n-1]
		c.free[n-1] = nil
		c.free = c.free[:n-1]
		return v
	}
	return nil
}

// recycle gives the view v back to its communicator once its schedule
// has completed with every transfer done (nothing refers to v any more:
// its steps have run, and the schedule forgot it).
func (v *Comm) recycle() {
	b := v.base
	if b == nil {
		return
	}
	b.freeMu.Lock()
	if len(b.free) < maxFreeViews && !b.freeShut {
		b.free = append(b.free, v)
	}
	b.freeMu.Unlock()
}

// View returns a view of sub, a sub-communicator of the view v's
// communicator (one its module made, or an intercommunicator's local
// group), on v's schedule and with v's tag; nil for a nil sub. Its
// Actions are sub's nonblocking ones.
func (v *Comm) View(sub *Comm) (*Comm, error) {
	if sub == nil {
		return nil, nil
	}
	sub.mu.Lock()
	defer sub.mu.Unlock()
	if err := sub.setup(); err != nil {
		return nil, err
	}
	sub.nbc.Store(true) // its blocking collectives now receive by exact tag
	return sub.viewLocked(v.tag, v.sched, nil), nil
}

// Schedule is the schedule a view's nonblocking functions add to (nil
// for a communicator that is not a view).
func (c *Comm) Schedule() *Schedule { return c.sched }

// Seq is the sequence number of a view Reserve made (the low bits of
// its tag): what a nonblocking collective run outside the coll framework
// (a neighbour collective) tags its messages with.
func (v *Comm) Seq() int { return int(v.tag) & nbcMask }

// Notifier is told the outcome of a nonblocking collective once it ends
// (Start, StartQuick): an interface, so that a caller whose state is
// already on the heap (the mpi package's request) passes it without a
// closure to allocate per call.
type Notifier interface {
	Notify(err error)
}

// NotifyFunc is a function as a Notifier.
type NotifyFunc func(err error)

// Notify calls f.
func (f NotifyFunc) Notify(err error) { f(err) }

// Start builds the collective of sig on the view v that Reserve made and
// starts it. With coll_base_check on, the processes first compare their
// arguments, as Run does, on the view's own tags (a mismatch, or an
// argument error sig.Err of any process, is then the outcome of every
// process, and the collective does not run). Then f, called now, adds the
// collective by calling one of a's functions (and may add steps of its
// own to v.Schedule() after it); a nil f is the check alone, from a
// process whose own arguments were wrong. notify, if not nil, is told
// once of the outcome, by whichever goroutine finishes the schedule
// (maybe this one, before Start returns). f does not outlive the call (so
// a caller's closure stays on its stack).
func (v *Comm) Start(sig Sig, f func(a *Actions) error, notify Notifier) {
	s := v.sched
	if b, ok := v.Data.(Board); ok && !v.Inter() {
		// Its call on the board, which guards the schedule (board.go).
		g, err := b.BoardPost(v, &BoardCall{Sig: &sig})
		if err != nil {
			s.Fail(err)
			v.Launch(sig.Kind, notify)
			return
		}
		s.Guard(g)
	}
	sent := v.Params.Check && v.nbSendsCall(sig)
	if sent && sig.Err == nil {
		v.startSent(sig, f, v.nextSync())
		v.Launch(sig.Kind, notify)
		return
	}
	// The flow control's acknowledgement, in a round after the
	// collective's: of one that sends its call, from a process whose own
	// arguments were wrong (nobody waits for a round back from it), or of
	// one whose senders run ahead at coll_base_check=0 (runSynced).
	sync := (sent || v.sendsAhead(&sig)) && v.nextSync()
	checked := v.Params.Check && !sent
	if checked {
		v.check(sig) // an own argument error is the check's outcome
	}
	// The check of a Barrier is the barrier (as Run's): its reduction
	// completes once every process has started.
	if f != nil && sig.Err == nil && !(checked && sig.Kind == Barrier) {
		if err := f(&v.act); err != nil {
			s.Fail(err)
		}
	}
	if sync {
		v.checkTagged(func() error { v.syncSentSteps(sig, sig.Err != nil); return nil })
	}
	if sig.Err != nil && !checked {
		s.Fail(sig.Err)
	}
	v.Launch(sig.Kind, notify)
}

// nbSendsCall reports whether a nonblocking collective sends its call
// with its data at coll_base_check=1: a small Ibcast, Igather or
// Iscatter (Params.SentCall: up to coll_base_small or
// coll_base_sent_size), as the blocking one does under lam_basic
// (Actions.SendsCall), and a small Ireduce or Iallreduce (also up to
// coll_base_reduce_crossover), whose calls are merged on their way to
// the root with the data (WithCall), on an intracommunicator of two or
// more.
func (v *Comm) nbSendsCall(sig Sig) bool {
	if v.Params.CheckAll || v.Inter() || v.Size() < 2 {
		return false
	}
	b := int(sig.Send)
	switch sig.Kind {
	case Bcast, Gather, Scatter:
		return v.Params.SentCall(sig.Kind, v.Size(), b)
	case Reduce, Allreduce:
		return b <= v.Params.Small && b <= v.Params.ReduceCrossover
	}
	return false
}

// SentMessage returns the message of the call of the nonblocking
// collective being built on the view v (PutCall) and data behind it, in
// the view's scratch (one per view: its collective's).
func (v *Comm) SentMessage(data []byte) []byte {
	m := v.Scratch(ScratchCall, CallSize+len(data)) // the view's own: it is this collective's
	v.PutCall(m)
	copy(m[CallSize:], data)
	return m
}

// JudgeStep adds to the view v's schedule the step that compares the
// call in front of m with this process's (JudgeCall) and copies the
// data behind it to dst when they agree.
func (v *Comm) JudgeStep(m, dst []byte) {
	s := v.sched
	s.addLocal(s.openRound(false), local{dst: dst, src: m, v: v, check: judgeStep})
}

// runCheckStep runs l, a step of the argument check on the view v.
func (v *Comm) runCheckStep(l local) error {
	switch l.check {
	case digestStep:
		// The least digest and the complement of the greatest (check):
		// equal, every process made this call; otherwise the
		// signatures themselves, in rounds that go next, to say how.
		d := l.src
		if lo, notHi := binary.LittleEndian.Uint64(d[16:]), binary.LittleEndian.Uint64(d[24:]); int64(lo) == ^int64(notHi) {
			if v.nbSig.Err != nil {
				return v.nbSig.Err
			}
			return nil
		}
		vec := v.sigVector(v.nbSig)
		mine := v.Scratch(ScratchCheck2, len(vec))
		v.checkTagged(func() error { return v.act.Allreduce(v, vec, mine, &minOp) })
		v.sched.Then(func(*Schedule) error { return v.judge(v.nbSig, decodeAgg(mine), nil) })
	case judgeStep:
		if err := v.JudgeCall(l.src, true); err != nil {
			v.Judged(err)
			return nil
		}
		copy(l.dst, l.src[CallSize:])
	case sentOutStep:
		if v.carry.state != carrySentOut {
			return Errorf(ErrIntern, "%s: %s: the module did not send the call", v.T.Name(), v.sched.kind)
		}
	}
	return nil
}

// Judged records the error of a comparison (JudgeCall) in a step of the
// view v's schedule as the collective's outcome, without ending the
// schedule there: the acknowledgement of the flow control may follow
// (syncSentSteps).
func (v *Comm) Judged(err error) {
	if err == nil {
		return
	}
	ce, ok := err.(*Error)
	if !ok {
		ce = &Error{Class: ErrOther, Msg: err.Error(), Err: err}
	}
	v.Fault(ce)
}

// ReduceSent builds on the view v a reduction to root that sends its
// call with its data (nbSendsCall): the call in front of this process's
// contribution (send; recv, in place, at the root), the messages reduced
// whole by reduce with WithCall(op) into the root's buffer (nil
// elsewhere), then the root's step that compares the merged call with
// its own (JudgeStep) and takes the data when they agree.
func (v *Comm) ReduceSent(send, recv []byte, op *Op, root int, reduce func(m, out []byte, op *Op) error) error {
	mine := send
	if mine == nil {
		mine = recv
	}
	m := v.SentMessage(mine)
	var out []byte
	if v.Rank() == root {
		out = v.Scratch(ScratchCall2, len(m))
	}
	if err := reduce(m, out, WithCall(op, len(mine))); err != nil {
		return err
	}
	if v.Rank() == root {
		v.sched.Next()
		v.JudgeStep(out, recv[:len(mine)])
	}
	return nil
}

// WithCall is op over messages of a call (PutCall's bytes) followed by
// size bytes of data: the calls are merged as CallOp merges them, the
// data combined by op. Its one element is the whole message, so that an
// algorithm that cuts a reduction into pieces of elements
// (reduce-scatter) never cuts it; it commutes, and is exact, as op is.
// A nonblocking reduction that sends its call with its data
// (nbSendsCall) reduces such messages, and whoever gets the result
// compares the merged call with its own. The last one made for op is
// kept on it, so that a program reducing the same size again and again
// allocates it once.
func WithCall(op *Op, size int) *Op {
	if w := op.withCall.Load(); w != nil && w.Size == CallSize+size {
		return w
	}
	w := &Op{Size: CallSize + size, Commutative: op.Commutative, Exact: op.Exact, Apply: func(in, inout []byte) {
		minOp.Apply(in[:CallSize], inout[:CallSize])
		op.Apply(in[CallSize:], inout[CallSize:])
	}}
	op.withCall.Store(w)
	return w
}

// startSent builds a nonblocking collective that sends its call with its
// data (nbSendsCall): f's functions see SendsCall, put the call in front
// of what they send (PutCall) and add a step that compares what they
// receive (JudgeCall), on messages tagged as the check's. A module that
// did neither fails the collective.
func (v *Comm) startSent(sig Sig, f func(a *Actions) error, sync bool) {
	v.sending(&sig, v.sigDigest(&sig))
	if f != nil {
		v.checkTagged(func() error {
			if err := f(&v.act); err != nil {
				return err
			}
			if sync {
				v.syncSentSteps(sig, false)
			}
			return nil
		})
	}
	s := v.sched
	s.addLocal(s.openRound(false), local{v: v, check: sentOutStep})
}

// syncSentSteps adds syncSent's acknowledgement to the view v's
// schedule, in a round of its own after the collective's: the
// nonblocking forms' flow control, counted by the communicator's own
// count of the nonblocking collectives that send their call (nextSync).
// An Iallreduce needs none: every process receives.
func (v *Comm) syncSentSteps(sig Sig, own bool) {
	if sig.Kind == Allreduce || sig.Root < 0 || sig.Root >= v.Size() {
		return
	}
	s := v.sched
	s.Next()
	acks(sig, v.Size(), v.Rank(), own, func(i int) { s.Send(v, nil, i) }, func(i int) { s.RecvAny(v, nil, i) })
}

// Launch starts the schedule built on the view v: Start's last step,
// and what starts a collective whose steps the caller added to
// v.Schedule() itself, with no argument check (a neighbour collective,
// whose processes' arguments need not agree). notify is as Start's.
func (v *Comm) Launch(kind Kind, notify Notifier) {
	s := v.sched
	s.kind, s.owner, s.notify = kind, v, notify
	s.mu.Lock()
	if s.locked() {
		s.finish()
		return
	}
	s.prog.post(s)
}

// RunView starts the collective of sig on the view v (as Start) and
// waits for it, advancing it meanwhile.
func (v *Comm) RunView(sig Sig, f func(a *Actions) error) error {
	var out error
	v.Start(sig, f, NotifyFunc(func(err error) { out = err }))
	v.sched.Wait()
	return out
}

// RunBuilt launches the schedule built on the view v (as Launch) and
// waits for it, advancing it meanwhile: the blocking form of a
// collective that builds its own steps.
func (v *Comm) RunBuilt(kind Kind) error {
	var out error
	v.Launch(kind, NotifyFunc(func(err error) { out = err }))
	v.sched.Wait()
	return out
}

// checkRun runs a step of the blocking argument check, tagged as a
// Check. c.mu is held.
func (c *Comm) checkRun(f func(a *Actions) error) error {
	return c.run(&Sig{Kind: Check}, f)
}

// check adds the argument check (coll_base_check) to a view's schedule:
// agree's steps as rounds, and a step that ends the schedule with the
// verdict when the processes disagree. The check's messages carry
// nbcCheck in the view's tag, which nothing else uses.
func (v *Comm) check(sig Sig) {
	s := v.sched
	if !v.Inter() && v.Size() == 1 {
		if sig.Err != nil {
			s.Fail(sig.Err)
		}
		return
	}
	if !v.Inter() {
		// The least and greatest digest first (the view's digest of the
		// last call, kept across its reuse: a program starts the same
		// collective again and again); the signatures themselves only
		// when they differ, to say how.
		d := v.Scratch(ScratchDigest, 32)
		h := v.sigDigest(&sig)
		binary.LittleEndian.PutUint64(d, h)
		binary.LittleEndian.PutUint64(d[8:], ^h)
		v.checkTagged(func() error { return v.act.Allreduce(v, d[:16], d[16:], &minOp) })
		v.nbSig = sig
		s.addLocal(s.openRound(false), local{src: d, v: v, check: digestStep})
		s.Next()
		return
	}
	v.checkInter(sig)
}

// checkInter is check on an intercommunicator: each group reduces its
// signatures, the leaders swap the results, each group learns the
// other's. (A function of its own, so that the closures that keep sig
// do not move the intracommunicators' sig to the heap.)
func (v *Comm) checkInter(sig Sig) {
	s := v.sched
	vec := v.sigVector(sig)
	mine := v.Scratch(ScratchCheck2, len(vec)) // the view's own: it is this collective's
	local := v.T.Local()
	remote := Buffer(len(vec))
	v.checkTagged(func() error {
		if err := local.act.Allreduce(local, vec, mine, &minOp); err != nil {
			return err
		}
		if local.Rank() == 0 {
			s.Next()
			s.Send(v, mine, 0)
			s.Recv(v, remote, 0)
		}
		return local.act.Bcast(local, remote, 0)
	})
	s.Then(func(*Schedule) error {
		r := decodeAgg(remote)
		return v.judge(sig, decodeAgg(mine), &r)
	})
}

// checkTagged builds f's steps with nbcCheck in the tags of the view and
// its local group's view; an error of f ends the schedule there.
func (v *Comm) checkTagged(f func() error) {
	tag := v.tag
	var l *Comm
	if v.Inter() {
		l = v.T.Local()
	}
	v.tag |= nbcCheck
	if l != nil {
		l.tag |= nbcCheck
	}
	if err := f(); err != nil {
		v.sched.Fail(err)
	}
	v.tag = tag
	if l != nil {
		l.tag = tag
	}
}

// nbcState is what a communicator keeps for its nonblocking collectives.
type nbcState struct {
	nbcSeq uint64      // the last sequence number given (under mu)
	nbc    atomic.Bool // set once one was started
	nbAct  Actions     // the nonblocking functions (they build schedules)
	exact  bool        // a private view: receive by exact tag
	sched  *Schedule   // a view's schedule
	// nbSentCount counts the nonblocking collectives started on the
	// communicator that send their call (nextSync); a view's nbSent
	// points to its communicator's.
	nbSentCount atomic.Uint64
	nbSent      *atomic.Uint64
	nbSig       Sig         // a view's call, which its argument check's steps judge
	quick       *quickStart // StartQuick's, made at its first (under mu)

	base     *Comm         // a view's communicator, which gets it back (recycle)
	bufs     *scheduleBufs // a collective's own view's: lent to its schedule, kept for reuse
	freeMu   sync.Mutex    // guards free and freeShut
	free     []*Comm       // views whose schedules completed, to reuse (freeView)
	freeShut bool          // the communicator was freed: keep no views
}

// viewTransport is an intercommunicator's transport as a nonblocking
// collective sees it: its local group is the private view.
type viewTransport struct {
	Transport
	local *Comm
}

func (t viewTransport) Local() *Comm { return t.local }

// setupNonblocking resolves the communicator's nonblocking functions: the
// module's, and lam_basic's for the others. c.mu is held.
func (c *Comm) setupNonblocking(basic, m Module) error {
	bnb, ok := basic.(Nonblocking)
	if !ok {
		return Errorf(ErrIntern, "coll: the %s module has no nonblocking collectives", BasicName)
	}
	ba := bnb.NonblockingActions(c)
	c.nbAct = *ba
	if nb, ok := m.(Nonblocking); ok && m.SSI().Name != BasicName {
		if a := nb.NonblockingActions(c); a != nil {
			act := *a
			act.fill(ba)
			c.nbAct = act
		}
	}
	return nil
}
