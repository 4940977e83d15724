// Package task keeps what this MPI process is doing right now, for
// mpitask: the blocking MPI call it is in (which call, on which peer, tag,
// communicator, count and datatype), or none.
//
// The record is a few atomic words written on entry to and exit from a
// blocking call: no allocation, no lock, nothing else on the message path.
// It is read by the goroutine that answers the lamd's questions (see
// wireup), at any time, without stopping the process's work: a reader
// that sees the record change while it reads reads again.
package task

import (
	"sync/atomic"
)

// Fn is an MPI call a process can block in.
type Fn uint8

// The point-to-point calls, then the collectives (FnColl + coll.Kind).
const (
	None Fn = iota
	Send
	Ssend
	Rsend
	Bsend
	Recv
	Sendrecv
	Probe
	Mprobe
	Wait
	Waitall
	Waitany
	Waitsome
	Finalize
	FnColl Fn = 64
)

var fnNames = [...]string{"", "Send", "Ssend", "Rsend", "Bsend", "Recv", "Sendrecv", "Probe", "Mprobe",
	"Wait", "Waitall", "Waitany", "Waitsome", "Finalize"}

// CollName names the collective of kind k (set by the mpi package, which
// knows the collectives' names).
var CollName = func(k uint8) string { return "collective" }

// Name is the call's name as mpitask prints it (LAM's, without "MPI_").
func (f Fn) Name() string {
	switch {
	case f >= FnColl:
		n := CollName(uint8(f - FnColl))
		if len(n) > 4 && n[:4] == "MPI_" {
			n = n[4:]
		}
		return n
	case int(f) < len(fnNames):
		return fnNames[f]
	}
	return "?"
}

// Comm kinds, so a reader can print WORLD and SELF as LAM does.
const (
	CommOther uint8 = iota
	CommWorld
	CommSelf
)

// Call is one blocking call as a reader sees it.
type Call struct {
	Fn       Fn
	CommKind uint8
	Type     Type
	Peer     int32 // rank in the communicator (or root); -1 any, -2 none
	PeerW    int32 // the peer's world rank, or -1
	Tag      int32 // -1 any, -2 none
	Context  uint32
	Count    int32
}

// Peer values that are not ranks.
const (
	AnyPeer int32 = -1
	NoPeer  int32 = -2
	NoTag   int32 = -2
)

// record is the process's current call, as three words:
//
//	hdr:  generation<<32 | fn<<24 | commKind<<16 | type<<8 | 1 (0: no call)
//	who:  uint32(peer)<<32 | uint32(tag)
//	what: uint32(context)<<32 | uint32(count)
//
// plus the peer's world rank in where. A writer bumps the generation, so a
// reader that sees the same header before and after reading the other
// words read one call's words.
type record struct {
	gen   atomic.Uint32
	hdr   atomic.Uint64
	who   atomic.Uint64
	what  atomic.Uint64
	where atomic.Int32
	_     [64]byte
}

var cur record

// Mark is what Enter returns; its Leave ends the call.
type Mark struct{ hdr uint64 }

// Enter records that the process is in call fn; defer the Mark's Leave.
func Enter(fn Fn, commKind uint8, ctx uint32, peer, peerWorld, tag int32, count int, t Type) Mark {
	if count > 1<<31-1 {
		count = 1<<31 - 1
	}
	g := cur.gen.Add(1)
	cur.hdr.Store(0) // a reader in the middle of the old call reads again
	hdr := uint64(g)<<32 | uint64(fn)<<24 | uint64(commKind)<<16 | uint64(t)<<8 | 1
	cur.who.Store(uint64(uint32(peer))<<32 | uint64(uint32(tag)))
	cur.what.Store(uint64(ctx)<<32 | uint64(uint32(count)))
	cur.where.Store(peerWorld)
	cur.hdr.Store(hdr)
	if tracing.Load() && !isSend(fn) {
		addEvent(Event{Fn: fn, Begin: true, Peer: peerWorld, Tag: tag, Ctx: ctx, Count: int32(count)})
	}
	return Mark{hdr}
}

// Leave ends the call Enter recorded (unless another goroutine's call
// has replaced it meanwhile); the zero Mark's Leave does nothing.
func (m Mark) Leave() {
	if m.hdr == 0 {
		return // the zero Mark: nothing was recorded
	}
	cur.hdr.CompareAndSwap(m.hdr, 0)
	if fn := Fn(m.hdr >> 24); tracing.Load() && !isSend(fn) {
		addEvent(Event{Fn: fn, Peer: -1})
	}
}

// Current returns the call the process is in, if any.
func Current() (Call, bool) {
	for range 100 {
		h := cur.hdr.Load()
		if h == 0 {
			return Call{}, false
		}
		who, what, where := cur.who.Load(), cur.what.Load(), cur.where.Load()
		if cur.hdr.Load() != h {
			continue
		}
		return Call{
			Fn: Fn(h >> 24), CommKind: uint8(h >> 16), Type: Type(h >> 8),
			Peer: int32(uint32(who >> 32)), Tag: int32(uint32(who)), PeerW: where,
			Context: uint32(what >> 32), Count: int32(uint32(what)),
		}, true
	}
	return Call{}, false // changing too fast to catch: the process is running
}

var finalized atomic.Bool

// SetFinalized records that the process has finished MPI_Finalize.
func SetFinalized() { finalized.Store(true) }

// Finalized reports whether the process has finished MPI_Finalize.
func Finalized() bool { return finalized.Load() }
