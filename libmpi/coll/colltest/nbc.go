package colltest

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/lamgo/lam/libmpi/coll"
)

// Start starts a nonblocking collective as the mpi package does (StartSchedule)
// and returns the channel its outcome comes on; a collective the module
// runs itself (coll.Quick) gets a goroutine that waits for it, as
// nothing else moves it.
func Start(c *coll.Comm, sig coll.Sig, f func(v *coll.Comm, a *coll.Actions) error) (<-chan error, error) {
	done := make(chan error, 1)
	s, quick, err := StartSchedule(c, sig, f, coll.NotifyFunc(func(err error) { done <- err }))
	if err != nil {
		return nil, err
	}
	if quick {
		go s.Wait()
	}
	return done, nil
}

// ErrHung is WaitFor's error for a collective that did not complete.
var ErrHung = errors.New("the collective did not complete")

// WaitFor waits for s and returns its outcome, for at most limit: a
// collective that never completes fails the test (ErrHung) instead of
// hanging it.
func WaitFor(s *coll.Schedule, limit time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- s.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		return ErrHung
	}
}

// StartSchedule starts a nonblocking collective as the mpi package does:
// through the module's board when it runs the collective itself
// (Comm.StartQuick, quick), otherwise on a view reserved now, its
// schedule built after the argument check of sig and left to the world's
// progress. notify gets the outcome.
func StartSchedule(c *coll.Comm, sig coll.Sig, f func(v *coll.Comm, a *coll.Actions) error, notify coll.Notifier) (s *coll.Schedule, quick bool, err error) {
	if s, ok, err := c.StartQuick(sig, func(a *coll.Actions) error { return f(c, a) }, notify, nil); err != nil || ok {
		return s, ok, err
	}
	v, err := c.Reserve(sig.Kind)
	if err != nil {
		return nil, false, err
	}
	v.Start(sig, func(a *coll.Actions) error { return f(v, a) }, notify)
	return v.Schedule(), false, nil
}

// Twin is a collective as a function of the communicator and its
// functions, writing its result to out: run as a nonblocking collective
// (Start) and as a blocking one (Comm.Run), it must give the same.
type Twin func(c *coll.Comm, a *coll.Actions, out []byte) error

// SumTwins is Barrier, Bcast from rank 0, Reduce to the last rank and
// Allreduce of rank r's k int64s (Ints) with Sum, as Twins for
// ManyOutstanding.
func SumTwins(r, k int) map[coll.Kind]Twin {
	mine := Ints(r, k)
	return map[coll.Kind]Twin{
		coll.Barrier: func(c *coll.Comm, a *coll.Actions, out []byte) error { return a.Barrier(c) },
		coll.Bcast: func(c *coll.Comm, a *coll.Actions, out []byte) error {
			if c.Rank() == 0 {
				copy(out, mine)
			}
			return a.Bcast(c, out, 0)
		},
		coll.Reduce: func(c *coll.Comm, a *coll.Actions, out []byte) error {
			return a.Reduce(c, mine, out, &Sum, c.Size()-1)
		},
		coll.Allreduce: func(c *coll.Comm, a *coll.Actions, out []byte) error {
			return a.Allreduce(c, mine, out, &Sum)
		},
	}
}

// Twins gives the collectives a test starts on c, k int64s a block, and
// the length of their results in bytes.
type Twins func(c *coll.Comm, k int) (map[coll.Kind]Twin, int)

// ManyOutstanding is rank r's part of the test of many nonblocking
// collectives outstanding at once on three communicators (world, a
// duplicate, the halves by parity), started in an order across them that
// differs from rank to rank, with a blocking Allreduce on a fourth after
// each round of 8 and 2408 bytes a block: each must give what its
// blocking twin gives afterwards. The communicators are made with Split;
// setup runs a blocking Barrier on each first, in the same order
// everywhere (for modules whose set-up communicates).
func ManyOutstanding(world *coll.Comm, r int, kinds []coll.Kind, twins Twins, setup bool) error {
	dup, err := world.T.Split(0, r)
	if err != nil {
		return err
	}
	half, err := world.T.Split(r%2, r)
	if err != nil {
		return err
	}
	blocking, err := world.T.Split(0, r)
	if err != nil {
		return err
	}
	comms := []*coll.Comm{world, dup, half}
	if setup {
		for _, c := range comms {
			if err := c.Run(coll.Sig{Kind: coll.Barrier}, func(a *coll.Actions) error { return a.Barrier(c) }); err != nil {
				return err
			}
		}
	}
	type job struct {
		c    *coll.Comm
		kind coll.Kind
		out  []byte
		f    Twin
		done <-chan error
	}
	var jobs []*job
	for i := range 4 {
		k := 1 + 300*(i%2)
		for j := range comms {
			c := comms[(j+r)%len(comms)]
			fs, n := twins(c, k)
			for _, kind := range kinds {
				jb := &job{c: c, kind: kind, out: coll.Buffer(n), f: fs[kind]}
				if jb.done, err = Start(c, coll.Sig{Kind: kind, Send: -1, Recv: -1}, func(v *coll.Comm, a *coll.Actions) error {
					return jb.f(v, a, jb.out)
				}); err != nil {
					return err
				}
				jobs = append(jobs, jb)
			}
		}
		sum := coll.Buffer(8)
		if err := blocking.Run(coll.Sig{Kind: coll.Allreduce, Send: 8}, func(a *coll.Actions) error {
			return a.Allreduce(blocking, Ints(r, 1), sum, &Sum)
		}); err != nil {
			return fmt.Errorf("blocking: %w", err)
		}
	}
	for i := len(jobs) - 1; i >= 0; i-- {
		if err := <-jobs[i].done; err != nil {
			return fmt.Errorf("job %d (%s): %w", i, jobs[i].kind, err)
		}
	}
	// The blocking twins in the same order everywhere: communicator by
	// communicator.
	for _, c := range comms {
		for i, jb := range jobs {
			if jb.c != c {
				continue
			}
			want := coll.Buffer(len(jb.out))
			if err := c.Run(coll.Sig{Kind: jb.kind, Send: -1, Recv: -1}, func(a *coll.Actions) error { return jb.f(c, a, want) }); err != nil {
				return fmt.Errorf("job %d (%s) blocking: %w", i, jb.kind, err)
			}
			if !bytes.Equal(jb.out, want) {
				return Fail(fmt.Sprintf("job %d (%s)", i, jb.kind), r, jb.out, want)
			}
		}
	}
	return nil
}

// Check reports on t the errors of w.Each's ranks and the messages no
// receive took.
func (w *World) Check(t interface{ Errorf(string, ...any) }, errs []error) {
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
	if left := w.Leftover(); left != 0 {
		t.Errorf("%d messages nobody received", left)
	}
}
