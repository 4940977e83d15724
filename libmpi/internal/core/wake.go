package core

import "golang.org/x/sys/unix"

// Waking sleeping waiters.
//
// A waiter sleeps in poll(2) on the links' descriptors, or on the
// transport's Waiter (shared memory), until a peer moves bytes. Two
// things complete what it waits for without waking it: a request that
// no link completes (Finish, which another goroutine calls), and, over
// descriptors, another goroutine of the process that reads the bytes a
// sleeper's poll(2) would have seen (level-triggered: a drained socket
// wakes nobody). Both would leave the sleeper asleep for the rest of its
// timeout.
//
// A Waiter's Wake ends every Sleep of the process (a peer's write rings
// the same bell), so the second case does not arise there, and Finish
// rings it. Over descriptors the engine keeps an eventfd, the bell, in
// every sleeper's poll set: Finish writes it, and so does a waiter whose
// progress moved bytes while another sleeps. It is read (reset) by the
// next sleeper once no sleeper is left that it was written for.

// newBell returns the eventfd of an engine whose waiters sleep in
// poll(2), or -1 without one (waiters then sleep out their timeout, as
// before).
func newBell() int {
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return -1
	}
	return fd
}

// ringLocked wakes the waiters asleep in poll(2). e.mu is held.
func (e *Engine) ringLocked() {
	if e.bell < 0 || e.sleepers.Load() == 0 || e.rung {
		return
	}
	one := [8]byte{1}
	unix.Write(e.bell, one[:])
	e.rung = true
}

// ring is ringLocked for a waiter whose progress moved bytes, without
// the lock: an atomic load when nobody sleeps.
func (e *Engine) ring() {
	if e.sleepers.Load() == 0 {
		return
	}
	e.mu.Lock()
	e.ringLocked()
	e.mu.Unlock()
}

// sleepLocked counts the caller among the sleepers, resetting the bell
// if it was rung for sleepers that have all woken, and returns the
// bell's poll entry. e.mu is held; the caller calls woke after poll(2).
func (e *Engine) sleepLocked() unix.PollFd {
	if e.rung && e.sleepers.Load() == 0 {
		var b [8]byte
		unix.Read(e.bell, b[:])
		e.rung = false
	}
	e.sleepers.Add(1)
	return unix.PollFd{Fd: int32(e.bell), Events: unix.POLLIN}
}

// woke ends what sleepLocked began.
func (e *Engine) woke() { e.sleepers.Add(-1) }

// closeBell closes the bell. e.mu is held.
func (e *Engine) closeBell() {
	if e.bell >= 0 {
		unix.Close(e.bell)
		e.bell = -1
	}
}
