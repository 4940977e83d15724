// Package futex is sleeping and waking on a word of memory that processes
// share (Linux futexes without FUTEX_PRIVATE_FLAG), and the doorbell the
// shared-memory rpi and coll modules build on it: a waiter that has spun
// long enough arms the bell and sleeps; whoever changes what it waits for
// rings it, which costs a system call only when someone sleeps.
package futex

import (
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Futex operations on memory shared between processes.
const (
	opWait = 0
	opWake = 1
)

// Sleep sleeps while *addr == val, at most d (it may also return early,
// on a signal or a spurious wake-up: callers check their condition again).
func Sleep(addr *atomic.Uint32, val uint32, d time.Duration) {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), opWait, uintptr(val), uintptr(unsafe.Pointer(&ts)), 0, 0)
}

// WakeAll wakes every process sleeping on addr.
func WakeAll(addr *atomic.Uint32) {
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), opWake, uintptr(1<<31-1), 0, 0, 0)
}

// Bell is a doorbell in shared memory: how many waiters sleep on it, and
// a sequence number they sleep on. The two words may share a cache line.
type Bell struct {
	Sleepers *atomic.Int32
	Seq      *atomic.Uint32
}

// At is the bell whose two words are the 8 bytes at p (the sleeper count,
// then the sequence number), which must be 4-byte aligned.
func At(p unsafe.Pointer) Bell {
	return Bell{Sleepers: (*atomic.Int32)(p), Seq: (*atomic.Uint32)(unsafe.Add(p, 4))}
}

// Ring wakes the bell's sleepers, if any.
func (b Bell) Ring() {
	if b.Sleepers.Load() > 0 {
		b.Seq.Add(1)
		WakeAll(b.Seq)
	}
}

// Arm counts the caller among the sleepers and returns the token to sleep
// on; the caller then checks its condition once more before Sleep, so that
// a ring between the check and the sleep is not lost.
func (b Bell) Arm() uint32 {
	b.Sleepers.Add(1)
	return b.Seq.Load()
}

// Sleep sleeps until the bell rings after Arm returned token, at most d.
func (b Bell) Sleep(token uint32, d time.Duration) { Sleep(b.Seq, token, d) }

// Disarm ends what Arm began.
func (b Bell) Disarm() { b.Sleepers.Add(-1) }

// lowOff is the offset of a uint64's low 32 bits in memory.
var lowOff = func() uintptr {
	x := uint64(1)
	if *(*byte)(unsafe.Pointer(&x)) == 1 {
		return 0
	}
	return 4
}()

// Low32 is the word of *p that holds its low 32 bits, for sleeping on a
// 64-bit counter: a waiter that saw v sleeps while Low32(p) == uint32(v),
// and is woken by whoever changes *p and calls WakeAll on it.
func Low32(p *atomic.Uint64) *atomic.Uint32 {
	return (*atomic.Uint32)(unsafe.Add(unsafe.Pointer(p), lowOff))
}
