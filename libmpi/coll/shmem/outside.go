package shmem

import (
	"time"
	"unsafe"

	"github.com/lamgo/lam/libmpi/coll"
)

// OutsideArea is where a communicator's area and this process's view of
// it lie, for code outside Go that runs the collectives of one round
// that carry the argument check or send the call with their data (the C
// interface's fast path, libmpi/capi/fastcoll.c) as the functions of
// colls.go do. Outside code
// touches the view only while it holds the communicator's lock
// (coll.Comm.LockWord), as Go does. The layout is area.go's.
type OutsideArea struct {
	Mem                       unsafe.Pointer
	N, Me, Chunk, Segs, Posts int // Posts: the offset of the first post line
	// Calls: the offset of process 0's lane, its calls' digests and its
	// calls (process i's are CallStride bytes further each; its calls
	// CallFirst bytes after its lane, the digests laneSlots lines after
	// it); Pools: of process 0's buffers.
	Calls, CallStride, CallFirst, Pools int
	Step, Syncs                         *uint64
	LastUse, LastLane, SeenDone         *uint64 // arrays of Segs, laneSlots and N
	// The pace of a wait before outside code hands it to Await: SpinPolls
	// polls, then polling for SpinFor.
	SpinPolls int
	SpinFor   time.Duration
	// Relaxed: this process raises its flags with a plain store, then
	// loads the sleepers' count (package fence); else with sequentially
	// consistent operations.
	Relaxed bool
}

// Outside returns c's area, if c's module is shmem.
func Outside(c *coll.Comm) (OutsideArea, bool) {
	a, ok := c.Data.(*area)
	if !ok || a.mem == nil {
		return OutsideArea{}, false
	}
	return OutsideArea{
		Mem: unsafe.Pointer(&a.mem[0]), N: a.n, Me: a.me, Chunk: a.chunk, Segs: a.segs, Posts: a.posts(),
		Calls: a.callsAt(0), CallStride: callStride, CallFirst: callFirst, Pools: a.pools(),
		Step: &a.step, Syncs: &a.syncs, LastUse: &a.lastUse[0], LastLane: &a.lastLane[0], SeenDone: &a.seenDone[0],
		SpinPolls: a.spinPolls, SpinFor: a.spinFor, Relaxed: a.relaxed,
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

// Round is how the last collective of a communicator ran in shmem, for
// outside code.
type Round struct {
	// One: it carried the argument check in its one round.
	One bool
	// Sent: it sent its call with its data in its one round
	// (coll_base_check=1, coll.WaySent).
	Sent bool
	// Loop: a Reduce or Allreduce that ran its rounds after an argument
	// check of its own (coll.WayChecked).
	Loop bool
	// Grouping: how a reduction combined its inputs; RankOrder is
	// x0 ∘ (x1 ∘ (… ∘ xn-1)).
	Grouping int
}

// A reduction's groupings (order.go): rank order, lam_basic's binomial
// tree, its recursive halving.
const (
	RankOrder = int(rightFold)
	Binomial  = int(binomial)
	Halving   = int(halving)
)

// LastRound reports how the last collective of c ran. c's lock is held
// (coll.Comm.LockOutside).
func LastRound(c *coll.Comm) Round {
	a, ok := c.Data.(*area)
	if !ok {
		return Round{}
	}
	return Round{One: a.lastOne, Sent: a.lastSent, Loop: a.lastLoop, Grouping: int(a.lastGroup)}
}

// Mirror is the layout outside code must agree with, for its tests.
func Mirror() map[string]uint64 {
	return map[string]uint64{
		"line": line, "offSync": offSync, "offDigest": offDigest, "syncHalf": syncHalf, "offReduce": offReduce, "offSleep": offSleep,
		"smallReduce": smallReduce, "rankOrder": uint64(rightFold), "halving": uint64(halving),
		"callSize":  coll.CallSize,
		"laneSlots": laneSlots, "laneDigest": laneDigest, "laneSleep": laneSleep, "laneData": laneData, "laneBytes": laneBytes,
	}
}
