package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include "fastcoll.h"
*/
import "C"

import (
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/coll/shmem"
	"github.com/lamgo/lam/libmpi/mpi"
)

// The C fast path of small collectives (fastcoll.c, fastcoll.h,
// docs/capi.md) runs a collective on MPI_COMM_WORLD in C when Go ran one
// with the same arguments before: the Go path of each of those
// collectives (capiGo_Barrier, …) records, after a call that succeeded,
// how World's collective framework ran it (coll.LastCall) in the C
// path's table, keyed by the call's arguments. startFastColl turns the
// recording on with the C fast path of messages (startFast), and the same
// variable (LAM_MPI_CAPI_FAST=0) keeps both off.

var fcoll struct {
	learning atomic.Bool
	cc       *coll.Comm
	sigs     [C.LAMGO_FC_ENTRIES]coll.Sig // the Sig of each entry (under cc's lock)
	key      C.struct_lamgo_fcoll_key     // fcAfter's (under cc's lock)
	pins     runtime.Pinner
}

// startFastColl readies the C fast path of collectives after MPI_Init;
// startFast calls it once it has published the sizes of the predefined
// types.
func startFastColl() {
	cc, ok := mpi.WorldColl()
	if !ok {
		return
	}
	fcoll.cc = cc
	cc.Record()
	f := &C.lamgo_fcoll
	f.lock = (*C.int32_t)(unsafe.Pointer(cc.LockWord()))
	fcoll.pins.Pin(cc.LockWord())
	fcoll.learning.Store(true)
	C.lamgo_fcoll_set(1)
}

// stopFastColl turns it off before MPI_Finalize.
func stopFastColl() {
	if !fcoll.learning.Load() {
		return
	}
	C.lamgo_fcoll_set(0)
	fcoll.learning.Store(false)
	fcoll.pins.Unpin()
	C.lamgo_fcoll = C.struct_lamgo_fcoll{}
	fcoll.cc = nil
}

// The collectives the C path runs (a key's kind).
const (
	fcBarrier   = C.LAMGO_FC_BARRIER
	fcBcast     = C.LAMGO_FC_BCAST
	fcGather    = C.LAMGO_FC_GATHER
	fcScatter   = C.LAMGO_FC_SCATTER
	fcAllgather = C.LAMGO_FC_ALLGATHER
	fcAlltoall  = C.LAMGO_FC_ALLTOALL
	fcReduce    = C.LAMGO_FC_REDUCE
	fcAllreduce = C.LAMGO_FC_ALLREDUCE
)

// fcKey is a call's arguments that decide how it runs (fastcoll.h's
// struct lamgo_fcoll_key, which lamgo_fcoll_key_make makes from them).
type fcKey struct {
	kind           C.int
	sbuf, rbuf     unsafe.Pointer
	scount, rcount C.int
	stype, rtype   C.MPI_Datatype
	op             C.MPI_Op
	root           C.int
}

// fcLearn runs call, the Go path of a collective with key k on comm, and
// records in the C path's table how it ran.
func fcLearn(comm C.MPI_Comm, k fcKey, call func() C.int) C.int {
	seq, learn := fcBefore(comm)
	rc := call()
	if learn {
		fcAfter(seq, rc, k)
	}
	return rc
}

// fcBefore is what a Go path of a collective on World notes before it
// runs, for fcAfter: the framework's count of recorded collectives.
func fcBefore(comm C.MPI_Comm) (uint64, bool) {
	if comm != C.MPI_COMM_WORLD || !fcoll.learning.Load() {
		return 0, false
	}
	return fcoll.cc.LastSeq(), true
}

// fcAfter records in the C path's table how the call of key k ran, if it
// succeeded and it alone ran since fcBefore returned seq.
func fcAfter(seq uint64, rc C.int, k fcKey) {
	if rc != C.MPI_SUCCESS {
		return
	}
	cc := fcoll.cc
	cc.LockOutside()
	defer cc.UnlockOutside()
	l := cc.Last()
	if l.Seq != seq+1 {
		return // not recorded (a way the C path does not take), or another thread's call came between
	}
	e := C.struct_lamgo_fcoll_entry{digest: C.uint64_t(l.Digest)}
	switch l.Way {
	case coll.WayZero:
		e.way = C.LAMGO_FC_ZERO
	case coll.WayAgreed:
		if !publishArea(cc) {
			return
		}
		e.way = C.LAMGO_FC_AGREED
	case coll.WaySent:
		if !shmem.LastRound(cc).Sent || !publishArea(cc) {
			return
		}
		e.way = C.LAMGO_FC_SENT
		cc.CallOf(l.Sig, unsafe.Slice((*byte)(unsafe.Pointer(&e.call[0])), len(e.call)))
	case coll.WayCarried, coll.WayChecked:
		r := shmem.LastRound(cc)
		reduction := k.kind == fcReduce || k.kind == fcAllreduce
		if l.Way == coll.WayCarried && !r.One || l.Way == coll.WayChecked && !(reduction && r.Loop) || !publishArea(cc) {
			return
		}
		e.way = C.LAMGO_FC_CARRIED
		if l.Way == coll.WayChecked {
			e.way = C.LAMGO_FC_CHECKED
		}
		if reduction && (r.Grouping == shmem.RankOrder || r.Grouping == shmem.Halving) {
			e.kernel, e.group = fcKernel(k.stype, k.op), C.int(r.Grouping)
		}
		if reduction && e.kernel == 0 {
			return // Go reduces it
		}
	default:
		return
	}
	// The key is made (a call into C) only for a call the C path can run.
	key := &fcoll.key // not on the stack: a pointer passed to C would move it to the heap
	C.lamgo_fcoll_key_make(key, C.int(k.kind), k.sbuf, k.scount, k.stype, k.rbuf, k.rcount, k.rtype, k.op, k.root)
	e.key = *key
	slot := C.lamgo_fcoll_slot(key)
	C.lamgo_fcoll.entries[slot] = e
	fcoll.sigs[slot] = l.Sig
}

// publishArea tells the C path where World's shmem area lies, if World's
// collectives are shmem's; cc's lock is held. The area is published once
// lamgo_fcoll.mem is set.
func publishArea(cc *coll.Comm) bool {
	if C.lamgo_fcoll.mem != nil {
		return true
	}
	o, ok := shmem.Outside(cc)
	if !ok {
		return false
	}
	f := &C.lamgo_fcoll
	f.n, f.me, f.chunk, f.segs, f.posts = C.int(o.N), C.int(o.Me), C.int(o.Chunk), C.int(o.Segs), C.int(o.Posts)
	f.call_at, f.call_stride, f.call_first, f.pools = C.int(o.Calls), C.int(o.CallStride), C.int(o.CallFirst), C.int(o.Pools)
	for _, p := range []*uint64{o.Step, o.Syncs, o.LastUse, o.LastLane, o.SeenDone} {
		fcoll.pins.Pin(p)
	}
	f.step, f.syncs = (*C.uint64_t)(unsafe.Pointer(o.Step)), (*C.uint64_t)(unsafe.Pointer(o.Syncs))
	f.last_use, f.seen_done = (*C.uint64_t)(unsafe.Pointer(o.LastUse)), (*C.uint64_t)(unsafe.Pointer(o.SeenDone))
	f.last_lane = (*C.uint64_t)(unsafe.Pointer(o.LastLane))
	f.spin_polls, f.spin_ns = C.int(o.SpinPolls), C.int64_t(o.SpinFor.Nanoseconds())
	f.relaxed = 0
	if o.Relaxed {
		f.relaxed = 1
	}
	f.mem = (*C.uint8_t)(o.Mem) // last: it says the rest is there
	return true
}

// fcKernel is the C kernel of a predefined op on a predefined type, or 0
// if C does not reduce it (fastcoll.c's lamgo_fcoll_reduce): the integer
// types with the ten ops of integers, float and double with the sum and
// the product (C's min and max treat NaNs and zeros' signs otherwise than
// Go's).
func fcKernel(h C.MPI_Datatype, op C.MPI_Op) C.int {
	if h <= 0 || h >= C.LAMGO_PREDEFINED_TYPES || op < C.MPI_MAX || op > C.MPI_BXOR {
		return 0
	}
	rt := reds[h]
	if rt == nil || opClasses[op]&rt.class == 0 {
		return 0
	}
	kind := fcKinds[rt.r]
	if kind == 0 {
		return 0
	}
	switch rt.class {
	case cInteger, fInteger:
	case floating:
		if op != C.MPI_SUM && op != C.MPI_PROD {
			return 0
		}
	default:
		return 0
	}
	return kind*16 + C.int(op)
}

// fcKinds is the C path's element kind of the Go element types it reduces.
var fcKinds = map[reducer]C.int{
	typed[int8]{}: C.LAMGO_FC_I8, typed[uint8]{}: C.LAMGO_FC_U8,
	typed[int16]{}: C.LAMGO_FC_I16, typed[uint16]{}: C.LAMGO_FC_U16,
	typed[int32]{}: C.LAMGO_FC_I32, typed[uint32]{}: C.LAMGO_FC_U32,
	typed[int64]{}: C.LAMGO_FC_I64, typed[uint64]{}: C.LAMGO_FC_U64,
	typed[float32]{}: C.LAMGO_FC_F32, typed[float64]{}: C.LAMGO_FC_F64,
}

// lamgo_fcoll_unlock_slow gives back World's collective lock the C path
// took when a goroutine waits for it.
//
//export lamgo_fcoll_unlock_slow
func lamgo_fcoll_unlock_slow() { fcoll.cc.UnlockOutside() }

// lamgo_fcoll_await is the rest of a wait the C path began (shmem's
// yields, sleeps and checks that the process waited for lives).
//
//export lamgo_fcoll_await
func lamgo_fcoll_await(off, sleepers C.int, s C.uint64_t, who C.int) C.int {
	if err := shmem.AwaitOutside(fcoll.cc, int(off), int(sleepers), uint64(s), int(who)); err != nil {
		return code(mpi.WorldCollFail(err))
	}
	return C.MPI_SUCCESS
}

// lamgo_fcoll_differ is what follows a round whose digests differed: the
// processes compare their calls, and every one returns the error.
//
//export lamgo_fcoll_differ
func lamgo_fcoll_differ(slot C.int) C.int {
	return code(mpi.WorldCollFail(fcoll.cc.Differ(fcoll.sigs[slot])))
}

// lamgo_fcoll_judge is what follows a post whose call's digest differed
// from the caller's (coll_base_check=1): the call there (at offset off of
// the area) compared with the entry's, and the error that says how they
// differ, its handler called.
//
//export lamgo_fcoll_judge
func lamgo_fcoll_judge(slot, off C.int) C.int {
	call := unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(C.lamgo_fcoll.mem), int(off))), coll.CallSize)
	err := fcoll.cc.JudgeOutside(fcoll.sigs[slot], call)
	if err == nil {
		return C.MPI_SUCCESS
	}
	return code(mpi.WorldCollFail(err))
}

// fastCollMirror is fastcoll.h's copy of shmem's layout, for
// TestFastCollMirror.
func fastCollMirror() map[string]uint64 {
	return map[string]uint64{
		"line": C.LAMGO_FC_LINE, "offSync": C.LAMGO_FC_OFF_SYNC, "offDigest": C.LAMGO_FC_OFF_DIGEST, "syncHalf": C.LAMGO_FC_SYNC_HALF,
		"offSleep": C.LAMGO_FC_OFF_SLEEP, "offReduce": C.LAMGO_FC_OFF_REDUCE, "smallReduce": C.LAMGO_FC_SMALL_REDUCE,
		"rankOrder": C.LAMGO_FC_RANK_ORDER, "halving": C.LAMGO_FC_HALVING, "callSize": C.LAMGO_FC_CALL_SIZE,
		"laneSlots": C.LAMGO_FC_LANE_SLOTS, "laneDigest": C.LAMGO_FC_LANE_DIGEST, "laneSleep": C.LAMGO_FC_LANE_SLEEP,
		"laneData": C.LAMGO_FC_LANE_DATA, "laneBytes": C.LAMGO_FC_LANE_BYTES,
	}
}

// fastCollReduce runs a kernel of the C path, for TestFastCollKernels.
func fastCollReduce(kernel C.int, in, inout []byte) int {
	return int(C.lamgo_fcoll_reduce(kernel, unsafe.Pointer(&in[0]), unsafe.Pointer(&inout[0]), C.int64_t(len(inout))))
}
