package coll

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// Nonblocking collectives (MPI_Ibarrier, MPI_Iallreduce, ...).
//
// A nonblocking collective runs its schedule, rounds of nonblocking sends
// and receives on the communicator's collective context with local copies
// and reductions between them, on a goroutine of its own, over a private
// view of the communicator (its own tag, fault record and scratch
// buffers), so the caller computes meanwhile and several may be under way
// on one communicator at once. Each one started on a communicator gets the
// next sequence number, and its messages are tagged with it and received
// by that exact tag: MPI has every process start a communicator's
// nonblocking collectives in the same order, so the numbers agree, and two
// outstanding ones never take each other's messages. Once a communicator
// has started one, its blocking collectives also receive by their exact
// tag (they otherwise receive any tag, to name the collective a process
// called by mistake), so they never take a nonblocking one's messages.
//
// The schedules are lam_basic's algorithms (each a sequence of rounds),
// unless the module implements Nonblocking.

// Nonblocking is implemented by modules that provide nonblocking
// collectives of their own. It is detected once, when the module is
// chosen. The functions it returns run on a private view of the
// communicator (see Comm.Reserve and Comm.RunView), concurrently with the communicator's
// other collectives; nil ones fall back to lam_basic's.
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
// collective runs: its sequence number, and so its tag, are taken now, in
// the order this process starts its collectives on c, which MPI has
// every process keep alike.
func (c *Comm) Reserve(kind Kind) (*Comm, error) {
	c.mu.Lock()
	if err := c.setup(); err != nil {
		c.mu.Unlock()
		return nil, err
	}
	c.nbcSeq++ // under c.mu
	seq := c.nbcSeq
	c.nbc.Store(true)
	tag := int32(nbcMark | int(seq)&nbcMask)
	v := &Comm{T: c.T, Params: c.Params, settings: c.settings, module: c.module, act: c.nbAct,
		ready: true, nbcState: nbcState{exact: true}, selected: c.selected, tag: tag}
	c.mu.Unlock()
	if c.Inter() {
		// The local group's hidden communicator, which the
		// intercommunicator algorithms use, gets a private view too, with
		// the same tag (its context is its own).
		l := c.T.Local()
		if l == nil {
			return nil, Errorf(ErrIntern, "%s: %s: no local group", c.T.Name(), kind)
		}
		l.mu.Lock()
		err := l.setup()
		lv := &Comm{T: l.T, Params: l.Params, settings: l.settings, module: l.module, act: l.nbAct,
			ready: true, nbcState: nbcState{exact: true}, selected: l.selected, tag: tag}
		l.nbc.Store(true)
		l.mu.Unlock()
		if err != nil {
			return nil, err
		}
		v.T = viewTransport{c.T, lv}
	}
	return v, nil
}

// Seq is the sequence number of a view Reserve made (the low bits of
// its tag): what a nonblocking collective run outside the coll framework
// (a neighbour collective) tags its messages with.
func (v *Comm) Seq() int { return int(v.tag) & nbcMask }

// RunView runs the collective of sig on the view v that Reserve made,
// waiting for it: the caller is the collective's own goroutine. With
// coll_base_check on, the processes first compare their arguments, as
// Run does, on the view's own tags (a mismatch, or an argument error
// sig.Err of any process, is then the error of every process); a nil f
// runs that check alone (a process whose own arguments were wrong tells
// the others so). f does not outlive the call (so a caller's closure
// stays on its stack).
func (v *Comm) RunView(sig Sig, f func(a *Actions) error) error {
	var err error
	switch {
	case v.Params.Check:
		err = v.agree(sig)
	case sig.Err != nil:
		err = sig.Err
	}
	if err == nil && f != nil {
		v.fault = nil
		err = f(&v.act)
		if err == nil && v.fault != nil {
			err = v.fault
		}
		v.fault = nil
	}
	if err != nil {
		var ce *Error
		if !errors.As(err, &ce) {
			err = &Error{Class: ErrOther, Msg: fmt.Sprintf("%s (nonblocking) on %s: %v", sig.Kind, v.T.Name(), err), Err: err}
		}
	}
	return err
}

// checkRun runs a step of the argument check: on a communicator, tagged
// as a Check; on a nonblocking collective's view (and its local group's
// view), with the view's tag and nbcCheck, which nothing else uses. c.mu
// is held, or c is a view (its collective's goroutine's own).
func (c *Comm) checkRun(f func(a *Actions) error) error {
	if !c.exact {
		return c.run(Sig{Kind: Check}, f)
	}
	tag := c.tag
	c.tag |= nbcCheck
	var l *Comm
	if c.Inter() {
		if l = c.T.Local(); l != nil {
			l.mu.Lock()
			l.tag |= nbcCheck
			l.mu.Unlock()
		}
	}
	c.fault = nil
	err := f(&c.act)
	if err == nil && c.fault != nil {
		err = c.fault
	}
	c.fault, c.tag = nil, tag
	if l != nil {
		l.mu.Lock()
		l.tag = tag
		l.mu.Unlock()
	}
	return err
}

// nbcState is what a communicator keeps for its nonblocking collectives.
type nbcState struct {
	nbcSeq uint64      // the last sequence number given (under mu)
	nbc    atomic.Bool // set once one was started
	nbAct  Actions     // the nonblocking functions
	exact  bool        // a private view: receive by exact tag
}

// viewTransport is an intercommunicator's transport as a nonblocking
// collective sees it: its local group is the private view.
type viewTransport struct {
	Transport
	local *Comm
}

func (t viewTransport) Local() *Comm { return t.local }
