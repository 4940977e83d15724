package shm

import (
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Futexes shared between processes (no FUTEX_PRIVATE_FLAG).
const (
	futexWait = 0
	futexWake = 1
)

// futexSleep sleeps while *addr == val, at most d.
func futexSleep(addr *uint32, val uint32, d time.Duration) {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWait, uintptr(val), uintptr(unsafe.Pointer(&ts)), 0, 0)
}

// futexWakeAll wakes every process sleeping on addr.
func futexWakeAll(addr *uint32) {
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWake, uintptr(1<<31-1), 0, 0, 0)
}

// bell is a process's doorbell in the segment: how many of its threads
// sleep, and a sequence number they sleep on. A peer that moves bytes to
// or from the process rings it when someone sleeps.
type bell struct {
	sleepers *atomic.Int32
	seq      *atomic.Uint32
}

// ring wakes the bell's sleepers, if any.
func (b bell) ring() {
	if b.sleepers.Load() > 0 {
		b.seq.Add(1)
		futexWakeAll((*uint32)(unsafe.Pointer(b.seq)))
	}
}

func (b bell) arm() uint32 {
	b.sleepers.Add(1)
	return b.seq.Load()
}

func (b bell) sleep(token uint32, d time.Duration) {
	futexSleep((*uint32)(unsafe.Pointer(b.seq)), token, d)
}

func (b bell) disarm() { b.sleepers.Add(-1) }
