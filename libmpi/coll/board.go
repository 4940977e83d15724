package coll

import "errors"

// The board: nonblocking collectives among processes that share memory.
//
// A module whose communicator data (Comm.Data) is a Board (shmem's area)
// sees every nonblocking collective that starts on the communicator, in
// MPI's order: each process posts its call there when it starts one. The
// module runs the ones it can without messages itself (StartQuick: an
// Ibarrier, a small Iallreduce, Ireduce, Ibcast, Igather, Iscatter,
// Iallgather or Ialltoall is its posts, whose data lie beside the calls;
// the kinds are the ones quickStart's recorder has functions for
// (quickKind), the sizes the module's choice); the
// others run as schedules (Start), and the board only guards them: a
// process whose call differs from the others' (another collective, other
// arguments) makes every process's collective end with the error that
// says how, at once, instead of waiting for messages the others' calls
// never send.

// A Board is a module's communicator data through which the processes of
// the communicator post their nonblocking collectives' calls.
type Board interface {
	// BoardQuick starts k on c itself if the module runs it without
	// messages, posting its call and data, and makes k.Sched's end the
	// collective's (Schedule.SetQuick); false: nothing was posted, and
	// the collective runs as a schedule. It keeps nothing of k but
	// k.Sched and the buffers.
	BoardQuick(c *Comm, k *BoardCall) (bool, error)
	// BoardPublish ends BoardQuick's post, once the caller holds no
	// lock: it writes what the other processes wait for.
	BoardPublish()
	// BoardPost posts the call of a nonblocking collective that runs as
	// a schedule on c (a view), and returns its guard (Schedule.Guard).
	BoardPost(c *Comm, k *BoardCall) (func() error, error)
}

// BoardCall is a nonblocking collective that starts, as a Board sees it.
type BoardCall struct {
	Sig   *Sig
	Sched *Schedule // BoardQuick's: the collective's schedule (StartQuick's)
	// The buffers, as the Actions function of the kind takes them
	// (Send nil: in place); Bcast's in Recv.
	Send, Recv []byte
	Op         *Op
	Root       int // the rooted kinds
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

// Alone reports whether a process may complete the nonblocking
// collective of sig, which a board runs itself, without every other
// process's call (an Ibcast's root once its data are posted, its other
// processes once the root's are; an Ireduce's other processes): where
// lam_basic's would send its call with its data, which tells only the
// processes that receive data of a mismatch (nbSendsCall), or at
// coll_base_check=0. Elsewhere every process learns of one.
func (c *Comm) Alone(sig Sig) bool { return !c.Params.Check || c.nbSendsCall(sig) }

// StartQuick starts the nonblocking collective of sig through c's board,
// if c's module has one and runs the collective itself (Board.BoardQuick):
// f calls the function of a's for sig's kind (and may add a step after
// it, Schedule.Do on c.Schedule(), which runs when the collective ends).
// It returns the collective's schedule, or false: nothing was started,
// and the caller reserves a view and starts it there (Reserve, Start).
// notify is as Start's. s, a zero Schedule, becomes the collective's
// schedule (nil: a new one; the mpi package's is in the allocation of
// the request). The collective takes its place in the order of c's
// nonblocking collectives (Reserve's numbers) as well.
func (c *Comm) StartQuick(sig Sig, f func(a *Actions) error, notify Notifier, s *Schedule) (*Schedule, bool, error) {
	switch {
	case sig.Err != nil:
		return nil, false, nil
	case !quickKind(sig.Kind):
		return nil, false, nil
	}
	b, s, ok, err := c.startQuick(sig, f, notify, s)
	if ok {
		b.BoardPublish() // with c.mu released
	}
	return s, ok, err
}

// quickKind reports whether a board may run collectives of kind k
// itself: those quickStart's recorder has functions for.
func quickKind(k Kind) bool {
	switch k {
	case Barrier, Allreduce, Bcast, Reduce, Gather, Scatter, Allgather, Alltoall:
		return true
	}
	return false
}

// startQuick is StartQuick with c.mu held.
func (c *Comm) startQuick(sig Sig, f func(a *Actions) error, notify Notifier, s *Schedule) (Board, *Schedule, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.setup(); err != nil {
		return nil, nil, false, err
	}
	b, ok := c.Data.(Board)
	if !ok || c.Inter() || c.sched != nil {
		return nil, nil, false, nil
	}
	if c.quick == nil {
		p, ok := c.T.(Progressor)
		if !ok {
			return nil, nil, false, nil
		}
		q := &quickStart{c: c, prog: p.Progress()}
		q.rec.Barrier = q.barrier
		q.rec.Allreduce = q.allreduce
		q.rec.Bcast = q.bcast
		q.rec.Reduce = q.reduce
		q.rec.Gather = q.rooted
		q.rec.Scatter = q.rooted
		q.rec.Allgather = q.all
		q.rec.Alltoall = q.all
		c.quick = q
	}
	q := c.quick
	if s == nil {
		s = new(Schedule)
	}
	s.initQuick(c, sig.Kind, notify, q.prog)
	q.b, q.sig, q.took = b, sig, false
	q.k = BoardCall{Sig: &q.sig, Sched: s}
	c.sched = s // what f's steps after the collective go to
	err := f(&q.rec)
	c.sched = nil
	took := q.took
	q.k, q.b = BoardCall{}, nil
	if !took {
		if errors.Is(err, errDeclined) {
			err = nil
		}
		return nil, nil, false, err
	}
	// Its place in the order of the nonblocking collectives, as
	// Reserve's.
	c.nbcSeq++
	c.nbc.Store(true)
	s.seal(err)
	return b, s, true, nil
}

// quickStart is what StartQuick lends f: the functions that hand the
// collective to the board, kept with the communicator (and used under
// its lock), so that a start allocates only its schedule.
type quickStart struct {
	c    *Comm
	prog *Progress // the process's
	b    Board
	rec  Actions
	k    BoardCall
	sig  Sig
	took bool
}

func (q *quickStart) barrier(*Comm) error {
	var err error
	q.took, err = q.b.BoardQuick(q.c, &q.k)
	if err == nil && !q.took {
		err = errDeclined
	}
	return err
}

func (q *quickStart) allreduce(_ *Comm, send, recv []byte, op *Op) error {
	q.k.Send, q.k.Recv, q.k.Op = send, recv, op
	return q.barrier(q.c)
}

func (q *quickStart) bcast(_ *Comm, buf []byte, root int) error {
	q.k.Recv, q.k.Root = buf, root
	return q.barrier(q.c)
}

func (q *quickStart) reduce(_ *Comm, send, recv []byte, op *Op, root int) error {
	q.k.Send, q.k.Recv, q.k.Op, q.k.Root = send, recv, op, root
	return q.barrier(q.c)
}

// rooted is the recorder's Gather and Scatter.
func (q *quickStart) rooted(_ *Comm, send, recv []byte, root int) error {
	q.k.Send, q.k.Recv, q.k.Root = send, recv, root
	return q.barrier(q.c)
}

// all is the recorder's Allgather and Alltoall.
func (q *quickStart) all(_ *Comm, send, recv []byte) error {
	q.k.Send, q.k.Recv = send, recv
	return q.barrier(q.c)
}
