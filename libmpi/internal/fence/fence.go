// Package fence is the cheap side and the dear side of a store-then-load
// handshake between processes that share memory (Dekker's pattern): a
// writer stores a flag, then loads the count of those asleep on it to
// know whether to wake them; a waiter adds itself to that count, then
// loads the flag once more before it sleeps. Each side's load must not
// be taken before its own store is seen by the other, or the writer
// misses a sleeper that missed its flag (a wake-up lost, until the
// sleep's time limit).
//
// A sequentially consistent store (an atomic exchange on amd64) orders
// the writer's side, but it makes the writer wait until every store
// before it reached the other processors' caches: a line fetched from
// another processor per flag raised, on the fast path of every
// collective. Here the writer stores plainly (StoreLoad) and the waiter,
// which is about to sleep anyway, pays instead (Others): membarrier(2)'s
// global expedited command runs a full memory barrier on every processor
// that runs a thread of a process registered for it (Ready), so that
// once it returns, a writer's store made before its load of the count is
// visible, or its load comes after the waiter's count.
//
// A process uses the plain store only if it registered (Ready); a waiter
// calls Others whenever the kernel has the command, whichever process
// raises its flag.
package fence

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// membarrier(2)'s commands.
const (
	cmdQuery                   = 0
	cmdGlobalExpedited         = 1 << 1
	cmdRegisterGlobalExpedited = 1 << 2
)

var (
	once      sync.Once
	has       bool // the kernel has the global expedited command
	ready     bool // this process registered for it
	relaxable = plainStores && !raceEnabled
)

func setUp() {
	cmds, _, errno := unix.Syscall(unix.SYS_MEMBARRIER, cmdQuery, 0, 0)
	if errno != 0 || cmds&cmdGlobalExpedited == 0 || cmds&cmdRegisterGlobalExpedited == 0 {
		return
	}
	has = true
	_, _, errno = unix.Syscall(unix.SYS_MEMBARRIER, cmdRegisterGlobalExpedited, 0, 0)
	ready = errno == 0
}

// Ready registers this process for the waiters' barriers, once, and
// reports whether its writers may use StoreLoad's plain store: the kernel
// has membarrier's global expedited command, the process registered, the
// architecture's plain stores are ordered (amd64), and the race detector
// is off (it does not see a store made in assembly).
func Ready() bool {
	once.Do(setUp)
	return ready && relaxable
}

// Others is the waiter's side: a full memory barrier on every processor
// that runs a thread of a registered process. It does nothing where the
// kernel has no such command (no process then registered).
func Others() {
	once.Do(setUp)
	if has {
		unix.Syscall(unix.SYS_MEMBARRIER, cmdGlobalExpedited, 0, 0)
	}
}

// Raise stores v in *p and returns *sleepers, loaded after the store: a
// plain store where Ready, an atomic one otherwise (relaxed says which:
// Ready's answer, kept by the caller).
func Raise(relaxed bool, p *atomic.Uint64, v uint64, sleepers *atomic.Int32) int32 {
	if relaxed {
		return storeLoad(p, v, sleepers)
	}
	p.Store(v)
	return sleepers.Load()
}

// Put stores v in *p for readers that load it after a flag raised later
// (Raise): a plain store where Ready (stores are seen in program order),
// an atomic one otherwise.
func Put(relaxed bool, p *atomic.Uint64, v uint64) {
	if relaxed {
		store(p, v)
		return
	}
	p.Store(v)
}

// Claim asks for the line at p for writing, ahead of the stores that
// will need it: a line a reader fetched is then taken back from its cache
// while the writer does other work, not at its next sequentially
// consistent instruction (a lock's), which waits for its stores. Only a
// hint: nothing in memory changes.
func Claim(p unsafe.Pointer) { prefetchW(p) }

// Pause tells the processor that the caller spins on a line another
// processor will write (PAUSE on amd64): the spinning core then neither
// floods that line with reads nor pays for a misspeculated exit.
func Pause() { pause() }
