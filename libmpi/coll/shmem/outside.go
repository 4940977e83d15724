package shmem

import (
	"time"
	"unsafe"

	"github.com/lamgo/lam/libmpi/coll"
)

// OutsideArea is where a communicator's area and this process's view of
// it lie, for code outside Go that runs the collectives of one round
// that carry the argument check (the C interface's fast path,
// libmpi/capi/fastcoll.c) as the functions of colls.go do. Outside code
// touches the view only while it holds the communicator's lock
// (coll.Comm.LockWord), as Go does. The layout is area.go's.
type OutsideArea struct {
	Mem                       unsafe.Pointer
	N, Me, Chunk, Segs, Posts int // Posts: the offset of the first post line
	Step, Syncs               *uint64
	LastUse, SeenDone         *uint64 // arrays of Segs and of N
	// The pace of a wait before outside code hands it to Await: SpinPolls
	// polls, then polling for SpinFor.
	SpinPolls int
	SpinFor   time.Duration
}

// Outside returns c's area, if c's module is shmem.
func Outside(c *coll.Comm) (OutsideArea, bool) {
	a, ok := c.Data.(*area)
	if !ok || a.mem == nil {
		return OutsideArea{}, false
	}
	return OutsideArea{
		Mem: unsafe.Pointer(&a.mem[0]), N: a.n, Me: a.me, Chunk: a.chunk, Segs: a.segs, Posts: a.posts(),
		Step: &a.step, Syncs: &a.syncs, LastUse: &a.lastUse[0], SeenDone: &a.seenDone[0],
		SpinPolls: a.spinPolls, SpinFor: a.spinFor,
	}, true
}

// AwaitOutside waits, as the Go functions do, until the flag at offset
// off of c's area (its sleepers at offset sleepers) reaches s; who is the
// process that raises it (-1: any). For outside code whose own spinning
// found the flag not yet raised.
func AwaitOutside(c *coll.Comm, off, sleepers int, s uint64, who int) error {
	a := c.Data.(*area)
	return a.awaitSlow(a.flagAt(off, sleepers), s, who)
}

// LastRound reports how the last collective of c that carried the
// argument check ran: in one round, and (a reduction) with its inputs
// combined in rank order, x0 ∘ (x1 ∘ (… ∘ xn-1)). c's lock is held
// (coll.Comm.LockOutside).
func LastRound(c *coll.Comm) (oneRound, rankOrder bool) {
	a, ok := c.Data.(*area)
	if !ok {
		return false, false
	}
	return a.lastOne, a.lastFold
}

// Mirror is the layout outside code must agree with, for its tests.
func Mirror() map[string]uint64 {
	return map[string]uint64{
		"line": line, "offSync": offSync, "offDigest": offDigest, "offReduce": offReduce, "offSleep": offSleep,
	}
}
