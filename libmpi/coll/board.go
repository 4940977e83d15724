package coll

import "errors"

// The board: nonblocking collectives among processes that share memory.
//
// A module whose communicator data (Comm.Data) is a Board (shmem's area)
// sees every nonblocking collective that starts on the communicator, in
// MPI's order: each process posts its call there when it starts one. The
// module runs the ones it can without messages itself (StartQuick: a
// small Ibarrier or Iallreduce is its posts, whose data lie beside the
// calls); the others run as schedules (Start), and the board only guards
// them: a process whose call differs from the others' (another
// collective, other arguments) makes every process's collective end with
// the error that says how, at once, instead of waiting for messages the
// others' calls never send.

// A Board is a module's communicator data through which the processes of
// the communicator post their nonblocking collectives' calls.
type Board interface {
	// BoardQuick starts k on c itself if the module runs it without
	// messages, posting its call and data, and makes k.Sched's end the
	// collective's (Schedule.SetQuick); false: nothing was posted, and
	// the collective runs as a schedule.
	BoardQuick(c *Comm, k *BoardCall) (bool, error)
	// BoardPost posts the call of a nonblocking collective that runs as
	// a schedule on c (a view), and returns its guard (Schedule.Guard).
	BoardPost(c *Comm, k *BoardCall) (func() error, error)
}

// BoardCall is a nonblocking collective that starts, as a Board sees it.
type BoardCall struct {
	Sig        *Sig
	Sched      *Schedule // BoardQuick's: the collective's schedule (NewQuick)
	Send, Recv []byte    // Allreduce's buffers (Send nil: in place)
	Op         *Op
}

// CallDigest is the digest of the call sig on c (as the argument check
// compares them).
func (c *Comm) CallDigest(sig *Sig) uint64 { return c.sigDigest(sig) }

// PutCallOf writes the call sig (CallSize bytes) to b, as PutCall writes
// the running collective's.
func (c *Comm) PutCallOf(sig *Sig, b []byte) { copy(b[:CallSize], c.sigVector(*sig)) }

// JudgeCallOf returns the error that says how the call in b (PutCallOf's
// bytes, another process's) differs from sig on c, or nil if it does
// not.
func (c *Comm) JudgeCallOf(sig *Sig, b []byte) error { return c.judgeCall(*sig, b, true) }

// errDeclined is what the recorder's functions return when the module's
// board does not run the collective itself.
var errDeclined = errors.New("coll: the board declined the collective")

// StartQuick starts the nonblocking collective of sig through c's board,
// if c's module has one and runs the collective itself (Board.BoardQuick):
// f calls the function of a's for sig's kind (and may add a step after
// it, Schedule.Do on c.Schedule(), which runs when the collective ends).
// It returns the collective's schedule, or false: nothing was started,
// and the caller reserves a view and starts it there (Reserve, Start).
// notify is as Start's. The collective takes its place in the order of
// c's nonblocking collectives (Reserve's numbers) as well.
func (c *Comm) StartQuick(sig Sig, f func(a *Actions) error, notify func(error)) (*Schedule, bool, error) {
	if sig.Err != nil || (sig.Kind != Barrier && sig.Kind != Allreduce) {
		return nil, false, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.setup(); err != nil {
		return nil, false, err
	}
	b, ok := c.Data.(Board)
	if !ok || c.Inter() || c.sched != nil {
		return nil, false, nil
	}
	if _, ok := c.T.(Progressor); !ok {
		return nil, false, nil
	}
	s := NewQuick(c, sig.Kind, notify)
	k := BoardCall{Sig: &sig, Sched: s}
	var took bool
	var rec Actions
	rec.Barrier = func(*Comm) error {
		var err error
		took, err = b.BoardQuick(c, &k)
		if err == nil && !took {
			err = errDeclined
		}
		return err
	}
	rec.Allreduce = func(_ *Comm, send, recv []byte, op *Op) error {
		k.Send, k.Recv, k.Op = send, recv, op
		return rec.Barrier(c)
	}
	c.sched = s // what f's steps after the collective go to
	err := f(&rec)
	c.sched = nil
	if !took {
		if errors.Is(err, errDeclined) {
			err = nil
		}
		return nil, false, err
	}
	// Its place in the order of the nonblocking collectives, as
	// Reserve's.
	c.nbcSeq++
	c.nbc.Store(true)
	s.seal(err)
	return s, true, nil
}
