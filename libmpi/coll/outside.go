package coll

import (
	"sync/atomic"
	"unsafe"
)

// Code outside Go (the C interface's fast path of small collectives,
// libmpi/capi/fastcoll.c) may run a collective itself, speaking the
// module's protocol, when a call with the same arguments has run here
// before: the communicator records how it ran its last collective (once
// Record is called), and the outside code keeps what it needs of that
// (the way and the digest of the argument check) for the next calls with
// those arguments. It takes the communicator's lock as Run does
// (LockWord), so that it and Run never run at once.

// Way is how Run ran a collective.
type Way uint8

const (
	// WayOther: none of the below (nothing recorded for outside code).
	WayOther Way = iota
	// WayZero: nothing to move; Run returned at once.
	WayZero
	// WayCarried: the module's collective carried the argument check
	// (Actions.Carries).
	WayCarried
	// WayAgreed: a Barrier that was the argument check, compared by the
	// module itself (Actions.Agree).
	WayAgreed
	// WayChecked: the argument check was a round of its own, compared by
	// the module itself (Actions.Agree); then the module ran the
	// collective (the module says how: shmem.LastRound).
	WayChecked
	// WaySent: the module's collective sent the call with its data
	// (coll_base_check=1, Actions.SendsCall); Digest is the call's.
	WaySent
)

// LastCall is what Run recorded of the last collective it ran.
type LastCall struct {
	Seq    uint64 // 1 for the first recorded, then one more for each
	Sig    Sig
	Way    Way
	Digest uint64 // the argument check's digest of Sig (WayCarried, WayAgreed, WayChecked, WaySent)
}

// recorder is a communicator's record of its last collective.
type recorder struct {
	on   atomic.Bool
	seq  atomic.Uint64
	last LastCall // under mu
}

// Record makes Run record how it runs each collective (LastCall).
func (c *Comm) Record() { c.rec.on.Store(true) }

// Records reports whether Run records how it runs each collective.
func (c *Comm) Records() bool { return c.rec.on.Load() }

// LastSeq is the Seq of the last recorded collective (0: none).
func (c *Comm) LastSeq() uint64 { return c.rec.seq.Load() }

// Last is the last recorded collective; the caller holds the lock
// (LockOutside).
func (c *Comm) Last() LastCall { return c.rec.last }

// note records how the running collective runs; c.mu is held.
func (c *Comm) note(sig *Sig, w Way, digest uint64) {
	if c.rec.on.Load() {
		c.rec.last = LastCall{Seq: c.rec.seq.Add(1), Sig: *sig, Way: w, Digest: digest}
	}
}

// LockWord is the communicator's lock's state word, for code outside Go:
// 0 unlocked, 1 locked with nobody waiting; taken and given back by
// compare-and-swap, or given back by UnlockOutside when another value is
// found (a goroutine waits).
func (c *Comm) LockWord() *int32 { return (*int32)(unsafe.Pointer(&c.mu)) }

// LockOutside takes the lock for code that reads Last or lets outside
// code run a collective; UnlockOutside gives it back, also when outside
// code took it.
func (c *Comm) LockOutside() { c.mu.Lock() }

// UnlockOutside gives back the lock.
func (c *Comm) UnlockOutside() { c.mu.Unlock() }

// Differ is what Run does after a carried argument check whose digests
// differed (the processes compare their calls to say what differs), for
// outside code that ran the collective of sig and found them different.
// The caller holds the lock (LockWord).
func (c *Comm) Differ(sig Sig) error { return c.differ(sig) }

// CallOf writes the call sig into b[:CallSize] as PutCall does, for
// outside code that sends the call of a collective it learnt (WaySent).
// The caller holds the lock (LockOutside).
func (c *Comm) CallOf(sig Sig, b []byte) { copy(b[:CallSize], c.sigVector(sig)) }

// JudgeOutside is JudgeCall for outside code that ran the collective of
// sig (WaySent) and received call, a call whose digest differs from its
// own. The caller holds the lock (LockWord).
func (c *Comm) JudgeOutside(sig Sig, call []byte) error { return c.judgeCall(sig, call, true) }
