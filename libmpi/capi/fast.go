package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include <stdlib.h>
#include "fast.h"
*/
import "C"

import (
	"os"
	"runtime"
	"time"
	"unsafe"

	"github.com/lamgo/lam/libmpi/internal/core"
	"github.com/lamgo/lam/libmpi/internal/task"
	"github.com/lamgo/lam/libmpi/mpi"
	"github.com/lamgo/lam/libmpi/rpi/shm"
)

// The C fast path (fast.c, fast.h, docs/capi.md) does a small blocking
// MPI_Send or MPI_Recv on MPI_COMM_WORLD over a shared-memory link in C,
// without the cgo crossing into Go. startFast tells it, after MPI_Init,
// where the engine's state lies; stopFast, before MPI_Finalize, turns it
// off. LAM_MPI_CAPI_FAST=0 (mpirun passes it on) in the environment keeps it off.

// fastEnv is the variable that turns the fast path off.
const fastEnv = "LAM_MPI_CAPI_FAST"

// fastSpin bounds how long a C receive polls its ring before the Go path
// takes over, which then spins, yields and sleeps at the transport's pace
// from the start: a ping-pong's reply comes well within it on a quiet
// node, and a loaded one does not spin twice as long before yielding.
const fastSpin = 4 * time.Microsecond

// fastPins keeps what the C fast path points into where it is.
var fastPins runtime.Pinner

// outsider is a link whose state code outside Go can reach (the
// shared-memory rpi's).
type outsider interface{ Outside() shm.OutsideLink }

// startFast turns the C fast path on, if it is wanted and the job allows
// it: MPI_COMM_WORLD's ranks are the world ranks and the process is not
// traced (a trace records every call).
func startFast() {
	if os.Getenv(fastEnv) == "0" || task.Traced() {
		return
	}
	o, context, rank, ok := mpi.WorldOutside()
	if !ok {
		return
	}
	f := &C.lamgo_fast
	f.lock = (*C.int32_t)(unsafe.Pointer(o.Lock))
	f.hold = (*C.uint8_t)(unsafe.Pointer(o.Hold))
	f.activity = (*C.uint64_t)(unsafe.Pointer(o.Activity))
	f.recvs = (*unsafe.Pointer)(unsafe.Pointer(o.Recvs))
	f.msgs = (*unsafe.Pointer)(unsafe.Pointer(o.Msgs))
	for _, p := range []unsafe.Pointer{unsafe.Pointer(o.Lock), unsafe.Pointer(o.Hold), unsafe.Pointer(o.Activity), unsafe.Pointer(o.Recvs), unsafe.Pointer(o.Msgs)} {
		fastPins.Pin(p)
	}
	f.context = C.uint32_t(context)
	f.rank, f.size = C.int(rank), C.int(len(o.Peers))
	f.spin_ns = C.int64_t(min(o.Spin, fastSpin).Nanoseconds())
	for h := 1; h < C.LAMGO_PREDEFINED_TYPES; h++ {
		if t := types.get(h); t != nil && t.contig && !t.derived {
			f.type_size[h] = C.int(t.size)
		}
	}
	fastUnlock = o.Unlock
	startFastColl()
	peers := unsafe.Slice((*C.struct_lamgo_fast_peer)(C.calloc(C.size_t(len(o.Peers)), C.size_t(unsafe.Sizeof(C.struct_lamgo_fast_peer{})))), len(o.Peers))
	for i, op := range o.Peers {
		l, ok := op.Link.(outsider)
		if !ok || i == rank {
			continue
		}
		publishPeer(&peers[i], op, l.Outside())
	}
	f.peers = &peers[0]
	C.lamgo_fast_set(1)
}

// publishPeer fills in where one peer's state lies, pinning it.
func publishPeer(c *C.struct_lamgo_fast_peer, op core.OutsidePeer, l shm.OutsideLink) {
	ptrs := []unsafe.Pointer{
		unsafe.Pointer(op.Dead), unsafe.Pointer(op.OutHead), unsafe.Pointer(op.OutLen), unsafe.Pointer(op.Rpos),
		unsafe.Pointer(op.Rend), unsafe.Pointer(op.InBody), unsafe.Pointer(op.Sent), unsafe.Pointer(op.Recvd),
		unsafe.Pointer(l.Out.Seq), unsafe.Pointer(l.Out.OtherSeq), unsafe.Pointer(l.In.Seq), unsafe.Pointer(l.In.Off),
		unsafe.Pointer(l.In.InData), unsafe.Pointer(l.Dead),
	}
	for _, p := range ptrs {
		fastPins.Pin(p)
	}
	c.dead = (*C.uintptr_t)(unsafe.Pointer(op.Dead))
	c.out_head = (*C.intptr_t)(unsafe.Pointer(op.OutHead))
	c.out_len = (*C.intptr_t)(unsafe.Pointer(op.OutLen))
	c.rpos = (*C.intptr_t)(unsafe.Pointer(op.Rpos))
	c.rend = (*C.intptr_t)(unsafe.Pointer(op.Rend))
	c.in_body = (*C.uint8_t)(unsafe.Pointer(op.InBody))
	c.sent = (*C.uint64_t)(unsafe.Pointer(op.Sent))
	c.recvd = (*C.uint64_t)(unsafe.Pointer(op.Recvd))
	c.out = C.struct_lamgo_fast_ring{
		slots:     (*C.uint8_t)(l.Out.Slots),
		slot_tail: (*C.uint64_t)(unsafe.Pointer(l.Out.SlotTail)),
		seq:       (*C.uint64_t)(unsafe.Pointer(l.Out.Seq)),
		other_seq: (*C.uint64_t)(unsafe.Pointer(l.Out.OtherSeq)),
	}
	c.in = C.struct_lamgo_fast_ring{
		slots:     (*C.uint8_t)(l.In.Slots),
		slot_tail: (*C.uint64_t)(unsafe.Pointer(l.In.SlotTail)),
		seq:       (*C.uint64_t)(unsafe.Pointer(l.In.Seq)),
		off:       (*C.intptr_t)(unsafe.Pointer(l.In.Off)),
		in_data:   (*C.uint8_t)(unsafe.Pointer(l.In.InData)),
	}
	c.bell_sleepers = (*C.int32_t)(l.Bell)
	c.bell_seq = (*C.uint32_t)(unsafe.Add(l.Bell, 4))
	c.link_dead = (*C.uint32_t)(unsafe.Pointer(l.Dead))
	c.short_ = C.int(min(op.Short, C.LAMGO_FAST_MAX))
	c.shm = 1
}

// stopFast turns the C fast path off: every call goes to Go from now on.
// The caller is the one thread that may call MPI (MPI_Finalize), so no
// fast call is under way.
func stopFast() {
	stopFastColl()
	f := &C.lamgo_fast
	if f.peers == nil {
		return
	}
	C.lamgo_fast_set(0)
	C.free(unsafe.Pointer(f.peers))
	f.peers = nil
	fastPins.Unpin()
}

// lamgo_fast_unlock_slow gives back the progress lock the fast path took
// when a goroutine waits for it.
//
//export lamgo_fast_unlock_slow
func lamgo_fast_unlock_slow() { fastUnlock() }

// fastUnlock is the progress lock's Unlock.
var fastUnlock func()

// fastMirror is fast.h's copy of the Go constants, for TestFastMirror.
func fastMirror() map[string]uint64 {
	return map[string]uint64{
		"SlotSize":   C.LAMGO_SLOT_SIZE,
		"SlotData":   C.LAMGO_SLOT_DATA,
		"NSlots":     C.LAMGO_NSLOTS,
		"StampData":  C.LAMGO_STAMP_DATA,
		"HeaderSize": C.LAMGO_HEADER_SIZE,
		"FrameEager": C.LAMGO_FRAME_EAGER,
		"intptr_t":   C.sizeof_intptr_t,
	}
}

// fastHeader is the eager header fast.c writes, for TestFastMirror.
func fastHeader(context uint32, source, tag int32, length uint64) [C.LAMGO_HEADER_SIZE]byte {
	var b [C.LAMGO_HEADER_SIZE]byte
	C.lamgo_fast_header((*C.uint8_t)(&b[0]), C.uint32_t(context), C.int32_t(source), C.int32_t(tag), C.uint64_t(length))
	return b
}
