package shm

import (
	"sync/atomic"
	"unsafe"
)

// The geometry and stamps of a ring (ring.go), for a mirror outside Go
// (libmpi.so's C fast path, libmpi/capi/fast.h) that a test checks
// against these.
const (
	SlotSize  = slotSize
	SlotData  = slotData
	NSlots    = nSlots
	StampData = stampData
)

// OutsideRing is where one ring's state lies: its slots in the segment,
// and the counters this process keeps of it (ring.go says what each
// means).
type OutsideRing struct {
	Slots    unsafe.Pointer // NSlots × SlotSize bytes
	SlotTail *atomic.Uint64
	Seq      *uint64
	OtherSeq *uint64 // producer
	Off      *int    // consumer
	InData   *bool   // consumer
}

// OutsideLink is where a link's state lies: its two rings, the peer's
// doorbell (sleeper count, then sequence number: futex.Bell) and whether
// the peer is known dead.
type OutsideLink struct {
	Out, In OutsideRing
	Bell    unsafe.Pointer
	Dead    *atomic.Bool
}

// Outside returns where the link's state lies, for code outside Go that
// holds the progress lock (core.Outside). The caller pins the link and
// its rings while it uses the addresses.
func (l *link) Outside() OutsideLink {
	return OutsideLink{
		Out:  OutsideRing{Slots: unsafe.Pointer(&l.out.slots[0]), SlotTail: l.out.slotTail, Seq: &l.out.seq, OtherSeq: &l.out.otherSeq},
		In:   OutsideRing{Slots: unsafe.Pointer(&l.in.slots[0]), SlotTail: l.in.slotTail, Seq: &l.in.seq, Off: &l.in.off, InData: &l.in.inData},
		Bell: unsafe.Pointer(l.peer.Sleepers),
		Dead: &l.dead,
	}
}
