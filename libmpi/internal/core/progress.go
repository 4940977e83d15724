package core

import (
	"context"
	"errors"
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/libmpi/internal/match"
	"github.com/lamgo/lam/libmpi/internal/yield"
)

// progress moves bytes on every link without blocking. The caller holds
// the progress lock.
//
// In a job that mixes links polled by calls (shared memory, a load from
// memory) with descriptors (a system call each) or links whose poll costs
// as much (rpi.CostlyPoller: a fabric's), the costly ones are read only
// every descriptorEvery passes, unless they are busy, so that the on-node
// latency does not grow with the number of off-node peers.
func (e *Engine) progress() {
	e.pass++
	skipIdle := e.mixed && e.pass%descriptorEvery != 0
	for _, p := range e.peers {
		if p == nil || p.dead != nil {
			continue
		}
		if p.pending() {
			e.flush(p)
		}
		if skipIdle && p.costly && !p.inBody && p.rpos == p.rend {
			continue
		}
		e.read(p)
	}
}

const descriptorEvery = 8

// lockedPolls is how many times a waiter polls the links per acquisition
// of the progress lock (about a microsecond when nothing comes).
const lockedPolls = 32

// Progress makes progress once, if no other goroutine is doing so.
func (e *Engine) Progress() {
	if e.mu.TryLock() {
		before := e.activity
		e.progress()
		moved := e.activity != before
		e.mu.Unlock()
		if moved {
			e.ring()
		}
	}
}

// Wait waits for r to complete: spinning on the links, then yielding the
// processor, then blocking in poll(2).
func (e *Engine) Wait(ctx context.Context, r *Request) error {
	return e.waitFor(ctx, r.Done, false, false)
}

// WaitAny waits until cond holds (cond is checked without the progress
// lock, so it must read only atomics such as Request.Done).
func (e *Engine) WaitAny(ctx context.Context, cond func() bool) error {
	return e.waitFor(ctx, cond, false, false)
}

// WaitNap is WaitAny asleep for at most nap at a time (not the engine's
// 10 ms): for a cond that something other than a link makes true, which
// wakes no sleeper here (a nonblocking collective another process ends
// by a store in shared memory: coll.Until).
func (e *Engine) WaitNap(ctx context.Context, cond func() bool, nap time.Duration) error {
	return e.wait(ctx, cond, false, false, nap)
}

// WaitBehind waits until cond holds as a goroutine working behind the
// program does (the progress of nonblocking collectives): it polls the
// links briefly, then sleeps until one can move bytes, and never spins
// while bytes trickle in, so that the processor stays with the program's
// computation. cond is checked as WaitAny's is.
func (e *Engine) WaitBehind(ctx context.Context, cond func() bool) error {
	return e.waitFor(ctx, cond, false, true)
}

// waitFor waits until cond holds. A cond that takes the progress lock
// itself says so with locks; behind sleeps as soon as the first polls
// find nothing to finish (WaitBehind).
func (e *Engine) waitFor(ctx context.Context, cond func() bool, locks, behind bool) error {
	return e.wait(ctx, cond, locks, behind, e.nap)
}

// wait is waitFor asleep for at most nap at a time.
func (e *Engine) wait(ctx context.Context, cond func() bool, locks, behind bool, nap time.Duration) error {
	start := time.Time{}
	for i := 0; ; i++ {
		if cond() {
			return nil
		}
		if e.mu.TryLock() {
			// Poll a while under one acquisition of the lock: the lock's
			// atomic instructions would otherwise lengthen every poll.
			// A cond that takes the lock is checked after, as soon as
			// something moved.
			done, before := false, e.activity
			for k := 0; k < e.lockedPolls; k++ {
				e.progress()
				if locks {
					if e.activity != before {
						break
					}
				} else if done = cond(); done {
					break
				}
			}
			moved := e.activity != before
			e.mu.Unlock()
			if moved {
				e.ring() // bytes a sleeper's poll(2) may not see now
			}
			if done || cond() {
				return nil
			}
			if moved && !behind {
				// Bytes are moving (a long message): spin on, the
				// pace counts from when they stop.
				i, start = 0, time.Time{}
			}
		} else if e.quiesced.Load() {
			e.mu.Lock() // a checkpoint: wait for its end asleep
			e.mu.Unlock()
			continue
		}
		if i&63 == 63 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if i < e.pace.SpinPolls {
			continue
		}
		if behind {
			e.block(nap, cond, false)
			continue
		}
		if start.IsZero() {
			start = time.Now()
		}
		switch spent := time.Since(start); {
		case spent < e.pace.Spin:
		case e.pace.Yield < 0 || spent < e.pace.Spin+e.pace.Yield:
			switch {
			case e.pace.YieldOS || yield.FromC:
				// To other processes too. The yield keeps the process's Go
				// processor (yield.OSKeep), so now and then, as shmem's
				// waits do, to its other goroutines as well (another
				// thread's MPI call, the progress of nonblocking
				// collectives, with GOMAXPROCS=1): one wake-up of a
				// scheduler thread per 256 yields; never from C.
				if i&255 == 255 {
					yield.Goroutines()
				}
				yield.OSKeep()
			case i&63 == 0:
				// To the process's other goroutines, now and then:
				// each Gosched wakes an idle thread of the scheduler
				// (on another processor, maybe a peer's) to look for
				// work.
				runtime.Gosched()
			}
		default:
			e.block(nap, cond, e.holding)
		}
	}
}

// block sleeps until a link can move bytes or the timeout ends: in
// poll(2) on the links' descriptors, or on the transport's Waiter for
// links without one, or both (sleepBoth). hold: in poll(2) keeping the
// processor (pollHeld), unless another waiter does.
func (e *Engine) block(timeout time.Duration, cond func() bool, hold bool) {
	e.mu.Lock()
	if e.closed {
		// Finalized: the links and the transport's Waiter are gone (a
		// nonblocking collective's progress goroutine may still wait).
		e.mu.Unlock()
		time.Sleep(timeout)
		return
	}
	e.blockers.Add(1)
	e.mu.Unlock()
	defer e.blockers.Done()
	var token uint32
	if e.waiter != nil {
		token = e.waiter.Arm()
		defer e.waiter.Disarm()
	}
	e.mu.Lock()
	before := e.activity
	if e.waiter != nil {
		// Armed: whatever a peer moves from now on wakes us; look once
		// more at what moved before.
		e.progress()
	}
	moved := e.activity != before
	e.pollfds = e.pollfds[:0]
	for _, p := range e.peers {
		if p == nil || p.dead != nil || p.link.Fd() < 0 {
			continue
		}
		ev := int16(unix.POLLIN)
		if p.pending() {
			ev |= unix.POLLOUT
		}
		e.pollfds = append(e.pollfds, unix.PollFd{Fd: int32(p.link.Fd()), Events: ev})
	}
	sleeps := e.waiter == nil && e.bell >= 0 && len(e.pollfds) > 0
	if sleeps {
		e.pollfds = append(e.pollfds, e.sleepLocked())
		defer e.woke()
	}
	// A copy to poll without the lock (another waiter may fill
	// e.pollfds meanwhile), on the stack while it fits.
	var stack [16]unix.PollFd
	fds := append(stack[:0], e.pollfds...)
	e.mu.Unlock()
	if moved || cond() {
		return
	}
	if e.waiter != nil {
		if len(fds) > 0 {
			if n, _ := unix.Poll(fds, 0); n > 0 {
				return
			}
			e.sleepBoth(token, fds, timeout)
			return
		}
		e.waiter.Sleep(token, timeout)
		return
	}
	if len(fds) == 0 {
		time.Sleep(timeout / 10)
		return
	}
	if hold && e.holder.CompareAndSwap(false, true) {
		pollHeld(fds, timeout)
		e.holder.Store(false)
		return
	}
	unix.Poll(fds, int(timeout/time.Millisecond))
}

// pollHeld is poll(2) as a raw system call: the Go scheduler does not see
// it, so the thread keeps its processor while it sleeps. As an ordinary
// system call, a sleep longer than the scheduler's monitor tick (20 µs)
// makes the monitor take the processor from the thread and wake another
// thread to hold it, two context switches per sleep, which doubled the
// lamd rpi's latency on a 2-processor machine. A signal (the scheduler's
// preemption, a stop of the world for a collection) ends the sleep early.
func pollHeld(fds []unix.PollFd, timeout time.Duration) {
	ts := unix.NsecToTimespec(int64(timeout))
	unix.RawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), uintptr(len(fds)), uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
}

// sleepBoth sleeps on the Waiter while a goroutine sleeps in poll(2) on
// the descriptors and wakes the Waiter when one is ready, so that a
// process with peers on its node and on others wakes at once for either.
// An eventfd ends the goroutine's poll when the Sleep ended first.
func (e *Engine) sleepBoth(token uint32, fds []unix.PollFd, timeout time.Duration) {
	stop, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		// No eventfd: look at the descriptors at least every millisecond.
		e.waiter.Sleep(token, min(timeout, time.Millisecond))
		return
	}
	defer unix.Close(stop)
	// The goroutine's own copy: fds may be on the caller's stack.
	all := append(append(make([]unix.PollFd, 0, len(fds)+1), fds...), unix.PollFd{Fd: int32(stop), Events: unix.POLLIN})
	done := make(chan struct{})
	go func() {
		defer close(done)
		n, err := unix.Poll(all, -1) // until a descriptor or stop is ready
		for err == unix.EINTR {
			n, err = unix.Poll(all, -1)
		}
		if n > 0 && all[len(all)-1].Revents == 0 {
			e.waiter.Wake()
		}
	}()
	e.waiter.Sleep(token, timeout)
	one := [8]byte{1}
	unix.Write(stop, one[:])
	<-done
}

// Test makes progress once and reports whether r completed.
func (e *Engine) Test(r *Request) bool {
	if r.Done() {
		e.Tested(true)
		return true
	}
	e.Progress()
	done := r.Done()
	e.Tested(done)
	return done
}

// testsBeforeYield is how many tests in a row may find nothing before
// each further one yields (Tested).
const testsBeforeYield = 16

// Tested tells the engine whether a call that looks without waiting
// (Test, Iprobe, Improbe, and the mpi package's Testany, Testsome and
// Testall) found what it looked for. On a node with more of the job's
// processes than processors (rpi.Pace.Shared), once testsBeforeYield in a
// row found nothing, each further one gives up the processor to the
// other processes (sched_yield), as Open MPI's progress does when
// oversubscribed and as a Wait does there: a program that polls with
// Test in a loop then lets the processes it waits for run, instead of
// spinning out its time slice while they wait for a processor (a ring of
// 4 processes on 2 processors: 2.8 ms a step polling with Test, 17 µs
// in Wait). Elsewhere such a loop only lets the process's other
// goroutines run now and then (yield.Goroutines: not from C).
func (e *Engine) Tested(found bool) {
	if found {
		if e.missed.Load() != 0 {
			e.missed.Store(0)
		}
		return
	}
	n := e.missed.Add(1)
	switch {
	case n < testsBeforeYield:
	case e.pace.Shared:
		if n&255 == 255 {
			yield.Goroutines()
		}
		yieldOS()
	case n&63 == 0:
		yield.Goroutines()
	}
}

// yieldOS is Tested's yield to the other processes (a test counts them).
var yieldOS = yield.OSKeep

// Iprobe reports whether a message matching (context, source, tag) has
// arrived, without receiving it.
func (e *Engine) Iprobe(context uint32, source, tag int) (Status, bool) {
	st, ok := e.iprobe(context, source, tag)
	e.Tested(ok)
	return st, ok
}

func (e *Engine) iprobe(context uint32, source, tag int) (Status, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.progress()
	m := e.match.Probe(match.Key{Context: context, Source: int32(source), Tag: int32(tag)})
	if m == nil {
		return Status{}, false
	}
	u := m.Owner.(*unexpected)
	return u.status(), true
}

// Probe waits for a message matching (context, source, tag).
func (e *Engine) Probe(ctx context.Context, context uint32, source, tag int) (Status, error) {
	var st Status
	found := false
	err := e.waitFor(ctx, func() bool {
		e.mu.Lock()
		m := e.match.Probe(match.Key{Context: context, Source: int32(source), Tag: int32(tag)})
		if m != nil {
			u := m.Owner.(*unexpected)
			st, found = u.status(), true
		}
		e.mu.Unlock()
		return found
	}, true, false)
	return st, err
}

// Cancel starts cancelling a request: a receive that has not matched is
// cancelled at once; a send the receiver has not matched yet (a
// synchronous or rendezvous send still waiting, or one to self) is
// withdrawn, which for a remote receiver completes when its answer comes.
// Either way Wait then reports Status.Cancelled; a request that matched
// first completes normally.
func (e *Engine) Cancel(r *Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if r.Done() || !r.active {
		return
	}
	if r.kind == kindRecv {
		if e.match.Cancel(&r.recv) {
			r.status = Status{Cancelled: true, Source: AnySource, Tag: AnyTag}
			r.complete()
		}
		return
	}
	if r.peer == e.self {
		// A synchronous send to self waits in the unexpected queue.
		m := e.match.Find(r.context, func(m *match.Message) bool { return m.Owner.(*unexpected).self == r })
		if m != nil {
			e.match.Take(m)
			r.status.Cancelled = true
			r.complete()
		}
		return
	}
	if _, waiting := e.sends[r.id]; !waiting || r.id == 0 {
		return // handed over and not waiting for the receiver: too late
	}
	p := e.peers[r.peer]
	if p == nil || p.dead != nil {
		return
	}
	h := header{typ: frameCancel, context: r.context, sendID: r.id}
	e.send(p, &h, nil, nil)
}

// ErrUnfinished is returned by Close when messages could not be delivered
// before its deadline.
var ErrUnfinished = errors.New("messages still queued at finalize")

// Close flushes what is queued (bounded by ctx) and closes every link.
func (e *Engine) Close(ctx context.Context) error {
	err := e.waitFor(ctx, func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		for _, p := range e.peers {
			if p != nil && p.dead == nil && p.pending() {
				return false
			}
		}
		return true
	}, true, false)
	// No goroutine may sleep on the transport's Waiter once it is closed
	// (the caller closes the transport next): wake those asleep and wait
	// for them to leave; block lets no other in once closed is set.
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	if e.waiter != nil {
		e.waiter.Wake()
	}
	e.blockers.Wait()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closeBell()
	for _, p := range e.peers {
		if p != nil {
			p.link.Close()
		}
	}
	// Requests still under way are dropped: no peer copies their buffers
	// any more.
	for _, m := range []map[uint64]*Request{e.sends, e.recvs} {
		for _, r := range m {
			if r.exposed() {
				unexpose(r)
			}
		}
	}
	if err != nil {
		return ErrUnfinished
	}
	return nil
}
