package mpi

import (
	"context"
	"runtime"
	"time"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/internal/core"
	"github.com/lamgo/lam/libmpi/internal/task"
)

// Context-taking forms of the blocking calls, for Go programs that need
// to give up. A call that gives up because its context ended returns an
// error that wraps ctx.Err() (errors.Is(err, context.DeadlineExceeded)
// works); the program asked for it, so the communicator's error handler
// does not run. A context that is never done (context.Background) gives
// the plain call.

// gaveUp is the error of a call that gave up when its context ended.
func gaveUp(class ErrorClass, what string, err error) error {
	return errorf(class, "%s: %w", what, err)
}

// WaitContext is Wait, giving up when ctx ends: it then returns an error
// of class ErrPending and the request stays active (wait for it again, or
// Cancel it and wait for it).
func (r *Request) WaitContext(ctx context.Context) (Status, error) {
	if r.inactive() {
		return emptyStatus, nil
	}
	if r.sched != nil {
		if err := awaitSchedule(ctx, r.sched); err != nil {
			return Status{}, gaveUp(ErrPending, "wait", err)
		}
	}
	if err := st.engine.Wait(ctx, r.r); err != nil {
		return Status{}, gaveUp(ErrPending, "wait", err)
	}
	r.waited = true
	return r.done()
}

// awaitSchedule moves a nonblocking collective's schedule on, on the
// caller's goroutine, until it ends or ctx does: nobody else need move it
// (shmem's board runs its collectives only where a process waits for or
// tests one), and its own wait (coll.Schedule.Wait) cannot give up.
// Between tests the caller yields, then sleeps a little longer each time,
// up to a millisecond.
func awaitSchedule(ctx context.Context, s *coll.Schedule) error {
	for i := 0; !s.Test(); i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if i < 100 {
			runtime.Gosched()
			continue
		}
		time.Sleep(min(time.Duration(i-99)*10*time.Microsecond, time.Millisecond))
	}
	return nil
}

// RecvContext is Recv, giving up when ctx ends: the receive is then
// cancelled, and the call returns an error of class ErrOther with a
// status that says Cancelled. A receive that matched a message before it
// could be cancelled is not cancelled (MPI_Cancel's rule): the call then
// waits for the message's data, whatever ctx says, and returns what
// Recv would.
func RecvContext[T Elem](ctx context.Context, c *Comm, buf []T, source, tag int) (Status, error) {
	if ctx.Done() == nil {
		return recvNow(c, buf, source, tag)
	}
	e, err := recvArgs(c, source, tag)
	if err != nil {
		return Status{}, err
	}
	r := requests.Get().(*core.Request)
	defer requests.Put(r)
	e.InitRecv(r, bytesOf(buf), source, tag, c.context)
	e.Start(r)
	return finishContext(ctx, c, e, r, "receive")
}

// SendContext is Send, giving up when ctx ends. A send that left at once
// (a short message) has succeeded whatever ctx says. Otherwise, when ctx
// ends first, the send is withdrawn if the receiver has not matched it
// yet; withdrawing a send needs the receiver's answer, which comes when
// its process next makes progress in an MPI call, and the call waits for
// it. A withdrawn send returns an error of class ErrOther; a send that
// matched meanwhile, or that a link has begun taking, cannot be withdrawn
// and the call waits until buf may be reused, as Send does. To give up
// without waiting for anything, use Isend and WaitContext.
func SendContext[T Elem](ctx context.Context, c *Comm, buf []T, dest, tag int) error {
	if ctx.Done() == nil {
		return Send(c, buf, dest, tag)
	}
	e, world, err := sendArgs(c, dest, tag)
	if err != nil {
		return err
	}
	if e.SendNow(bytesOf(buf), world, c.rank, tag, c.context) {
		return nil
	}
	r := requests.Get().(*core.Request)
	defer requests.Put(r)
	e.InitSend(r, bytesOf(buf), world, dest, c.rank, tag, c.context, core.Standard)
	e.Start(r)
	_, err = finishContext(ctx, c, e, r, "send")
	return err
}

// finishContext waits for r until ctx ends, then cancels it and waits for
// the outcome.
func finishContext(ctx context.Context, c *Comm, e *core.Engine, r *core.Request, what string) (Status, error) {
	werr := e.Wait(ctx, r)
	if werr == nil {
		return report(c, r, nil)
	}
	e.Cancel(r)
	if err := e.Wait(context.Background(), r); err != nil {
		return Status{}, c.fail(fromCore(err))
	}
	src, tag, n, cancelled, err := r.Result()
	if cancelled {
		return Status{Source: src, Tag: tag, Bytes: n, Cancelled: true}, gaveUp(ErrOther, what, werr)
	}
	return result(c, src, tag, n, cancelled, err)
}

// ProbeContext is Probe, giving up when ctx ends with an error of class
// ErrOther.
func ProbeContext(ctx context.Context, c *Comm, source, tag int) (Status, error) {
	e, err := engine()
	if err != nil {
		return Status{}, err
	}
	if err := c.check(); err != nil {
		return Status{}, World.fail(err)
	}
	if _, err := c.peer(source, true); err != nil {
		return Status{}, c.fail(err)
	}
	if err := checkTag(tag, true); err != nil {
		return Status{}, c.fail(err)
	}
	if source == ProcNull {
		return Status{Source: ProcNull, Tag: AnyTag}, nil
	}
	defer enterP2P[byte](task.Probe, c, source, tag, 0).Leave()
	s, err := e.Probe(ctx, c.context, source, tag)
	if err != nil {
		if ctx.Err() != nil {
			return Status{}, gaveUp(ErrOther, "probe", err)
		}
		return Status{}, c.fail(fromCore(err))
	}
	return statusOf(s), nil
}
