package shm

import (
	"sync/atomic"
	"unsafe"

	"github.com/lamgo/lam/libmpi/internal/release"
	"github.com/lamgo/lam/libmpi/rpi"
)

// ring is one direction of a pair's channel, a single-producer,
// single-consumer byte stream in the segment. It has two parts:
//
//   - a queue of slots, one cache line each, that announces every write in
//     order: its first word is a stamp (the slot's sequence number, the
//     length, and whether the bytes are inline), and a write of up to
//     slotData bytes (a small message's header and body) travels inside
//     the slot itself. A consumer waiting for data polls the stamp of its
//     next slot, so a small message costs one cache line from producer to
//     consumer; the queue is small enough to stay in both caches.
//   - a data ring for longer writes, whose slot says how many bytes it
//     holds.
//
// The consumer hands slots and data bytes back through two counters on a
// line of their own, which the producer reads only when it finds no room.
type ring struct {
	slots    []byte         // nSlots × slotSize
	slotTail *atomic.Uint64 // slots the consumer released
	tail     *atomic.Uint64 // data bytes the consumer read
	data     []byte         // len is a power of two
	mask     uint64

	seq       uint64 // slots written (producer) or released (consumer)
	bytes     uint64 // data bytes written (producer) or read (consumer)
	otherSeq  uint64 // producer: the last slotTail seen
	otherTail uint64 // producer: the last tail seen

	// Consumer: the slot being read.
	off    int    // inline bytes of it already taken
	left   uint64 // data bytes of it still to read
	inData bool   // it announces data bytes, and left counts them
	// Consumer: what take used up and release has not handed back yet.
	released, readData bool
}

const (
	slotSize  = 64
	slotData  = slotSize - 8
	nSlots    = 64
	stampData = 1 << 63
)

// slotsSize is the room a ring's slots take in the segment.
const slotsSize = nSlots * slotSize

func newRing(slotTail, tail *atomic.Uint64, slots, data []byte, producer bool) *ring {
	r := &ring{slots: slots, slotTail: slotTail, tail: tail, data: data, mask: uint64(len(data) - 1)}
	if producer {
		// Written slots are not counted anywhere shared: a ring starts
		// empty, so the producer's counts are the consumer's.
		r.otherSeq, r.otherTail = slotTail.Load(), tail.Load()
		r.seq, r.bytes = r.otherSeq, r.otherTail
	} else {
		r.seq, r.bytes = slotTail.Load(), tail.Load()
	}
	return r
}

// slot returns slot number seq (modulo the queue) and its stamp.
func (r *ring) slot(seq uint64) ([]byte, *atomic.Uint64) {
	off := seq % nSlots * slotSize
	s := r.slots[off : off+slotSize : off+slotSize]
	return s, (*atomic.Uint64)(unsafe.Pointer(&s[0]))
}

// stamp is the first word of slot seq once written: the low 32 bits are
// seq+1 (never the zero of a fresh segment, nor a stamp of the previous
// round), then the length, and stampData for bytes in the data ring.
func stamp(seq uint64, n int, inData bool) uint64 {
	s := uint64(uint32(seq+1)) | uint64(n)<<32
	if inData {
		s |= stampData
	}
	return s
}

// free is the room for writing in the data ring, refreshing the
// consumer's counter when the cached one shows less than want.
func (r *ring) free(want int) int {
	size := uint64(len(r.data))
	f := size - (r.bytes - r.otherTail)
	if f < uint64(want) {
		r.otherTail = r.tail.Load()
		f = size - (r.bytes - r.otherTail)
	}
	return int(f)
}

// put copies p into the data ring at byte position at.
func (r *ring) put(at uint64, p []byte) {
	off := at & r.mask
	n := copy(r.data[off:], p)
	copy(r.data, p[n:])
}

// write copies what fits of a and then b, and announces it in one slot.
// It returns 0 when there is no free slot, or no room for a write that
// does not fit in one.
func (r *ring) write(a, b []byte) int {
	total := len(a) + len(b)
	if total == 0 || !r.claim() {
		return 0
	}
	s, st := r.slot(r.seq)
	if total <= slotData {
		copy(s[8:], a)
		copy(s[8+len(a):], b)
		release.Store64((*uint64)(unsafe.Pointer(st)), stamp(r.seq, total, false))
		r.seq++
		return total
	}
	f := min(r.free(total), 1<<31-1)
	if f == 0 {
		return 0
	}
	na := min(len(a), f)
	r.put(r.bytes, a[:na])
	nb := min(len(b), f-na)
	if nb > 0 {
		r.put(r.bytes+uint64(na), b[:nb])
	}
	r.bytes += uint64(na + nb)
	release.Store64((*uint64)(unsafe.Pointer(st)), stamp(r.seq, na+nb, true))
	r.seq++
	return na + nb
}

// claim reports whether a slot is free for the next write, refreshing
// the consumer's counter when the cached one shows none.
func (r *ring) claim() bool {
	if r.seq-r.otherSeq >= nSlots {
		r.otherSeq = r.slotTail.Load()
		if r.seq-r.otherSeq >= nSlots {
			return false
		}
	}
	return true
}

// writeGather is write with a layout's bytes for b: hdr, then up to n
// bytes of the layout from c on, copied from where they lie; c moves
// past the body bytes written.
func (r *ring) writeGather(hdr []byte, c *rpi.Cursor, n int) int {
	total := len(hdr) + n
	if total == 0 || !r.claim() {
		return 0
	}
	s, st := r.slot(r.seq)
	if total <= slotData {
		copy(s[8:], hdr)
		c.CopyOut(s[8+len(hdr) : 8+total])
		release.Store64((*uint64)(unsafe.Pointer(st)), stamp(r.seq, total, false))
		r.seq++
		return total
	}
	f := min(r.free(total), 1<<31-1)
	if f == 0 {
		return 0
	}
	na := min(len(hdr), f)
	r.put(r.bytes, hdr[:na])
	// The layout's bytes go straight into the one or two runs of the
	// data ring they take.
	at := r.bytes + uint64(na)
	off, k := int(at&r.mask), min(n, f-na)
	m := c.CopyOut(r.data[off:min(off+k, len(r.data))])
	if m < k {
		m += c.CopyOut(r.data[:k-m])
	}
	w := na + m
	r.bytes += uint64(w)
	release.Store64((*uint64)(unsafe.Pointer(st)), stamp(r.seq, w, true))
	r.seq++
	return w
}

// peek returns the inline bytes of the next slot not yet read (nil if it
// announces data-ring bytes, which read takes), and whether anything has
// been written.
func (r *ring) peek() ([]byte, bool) {
	if r.inData {
		return nil, true
	}
	s, st := r.slot(r.seq)
	w := st.Load()
	if uint32(w) != uint32(r.seq+1) {
		return nil, false
	}
	if w&stampData != 0 {
		return nil, true
	}
	return s[8+r.off : 8+int(w>>32&(1<<31-1))], true
}

// consume releases the slot peek returned.
func (r *ring) consume() {
	r.off = 0
	r.seq++
	release.Store64((*uint64)(unsafe.Pointer(r.slotTail)), r.seq)
}

// read copies what has been written, up to len(p), and releases what it
// used up.
func (r *ring) read(p []byte) int {
	n := r.take(p)
	r.release()
	return n
}

// readScatter copies what has been written, up to n bytes, into a
// layout from c on (moving c past them), and releases what it used up.
// Data-ring bytes go from their one or two runs of the ring straight into
// the layout's blocks.
func (r *ring) readScatter(c *rpi.Cursor, n int) int {
	got := 0
	for got < n {
		if r.inData {
			k := int(min(r.left, uint64(n-got)))
			off := int(r.bytes & r.mask)
			m := c.CopyIn(r.data[off:min(off+k, len(r.data))])
			if m < k {
				m += c.CopyIn(r.data[:k-m])
			}
			if m == 0 {
				break // the layout is full
			}
			r.bytes += uint64(m)
			r.left -= uint64(m)
			got += m
			r.readData = true
			if r.left == 0 {
				r.inData = false
				r.seq++
				r.released = true
			}
			continue
		}
		// A slot's inline bytes, or the start of a data-ring write.
		from := *c
		p := c.Next(n - got)
		if p == nil {
			break
		}
		k := r.take(p)
		got += k
		if k < len(p) {
			*c = from
			c.Skip(k)
			if !r.inData {
				break // nothing more written yet
			}
		}
	}
	r.release()
	return got
}

// release hands back to the producer what take used up.
func (r *ring) release() {
	if r.readData {
		release.Store64((*uint64)(unsafe.Pointer(r.tail)), r.bytes)
		r.readData = false
	}
	if r.released {
		release.Store64((*uint64)(unsafe.Pointer(r.slotTail)), r.seq)
		r.released = false
	}
}

// take copies what has been written, up to len(p), noting what it used
// up for release.
func (r *ring) take(p []byte) int {
	n := 0
	for n < len(p) {
		if r.inData {
			k := int(min(r.left, uint64(len(p)-n)))
			off := r.bytes & r.mask
			c := copy(p[n:n+k], r.data[off:])
			copy(p[n+c:n+k], r.data)
			r.bytes += uint64(k)
			r.left -= uint64(k)
			n += k
			r.readData = true
			if r.left == 0 {
				r.inData = false
				r.seq++
				r.released = true
			}
			continue
		}
		s, st := r.slot(r.seq)
		w := st.Load()
		if uint32(w) != uint32(r.seq+1) {
			break // not written yet
		}
		length := int(w >> 32 & (1<<31 - 1))
		if w&stampData != 0 {
			r.inData, r.left = true, uint64(length)
			continue
		}
		k := copy(p[n:], s[8+r.off:8+length])
		r.off += k
		n += k
		if r.off == length {
			r.off = 0
			r.seq++
			r.released = true
		}
	}
	return n
}
