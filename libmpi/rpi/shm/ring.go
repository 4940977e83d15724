package shm

import "sync/atomic"

// ring is one direction of a pair's channel: a single-producer,
// single-consumer byte ring in the segment. The producer owns head, the
// consumer tail; each sits on a cache line of its own, and each side
// keeps a private copy of the other's counter so that it touches the
// other's line only when the ring looks full (or empty).
type ring struct {
	head  *atomic.Uint64 // bytes ever written
	tail  *atomic.Uint64 // bytes ever read
	data  []byte         // len is a power of two
	mask  uint64
	mine  uint64 // this side's counter (head for a producer, tail for a consumer)
	other uint64 // the last value seen of the other side's counter
}

func newRing(head, tail *atomic.Uint64, data []byte, producer bool) *ring {
	r := &ring{head: head, tail: tail, data: data, mask: uint64(len(data) - 1)}
	if producer {
		r.mine, r.other = head.Load(), tail.Load()
	} else {
		r.mine, r.other = tail.Load(), head.Load()
	}
	return r
}

// free is the room for writing, refreshing the consumer's counter when
// the cached one shows less than want.
func (r *ring) free(want int) int {
	size := uint64(len(r.data))
	f := size - (r.mine - r.other)
	if f < uint64(want) {
		r.other = r.tail.Load()
		f = size - (r.mine - r.other)
	}
	return int(f)
}

// put copies p at the producer's position without publishing it.
func (r *ring) put(at uint64, p []byte) {
	off := at & r.mask
	n := copy(r.data[off:], p)
	copy(r.data, p[n:])
}

// write copies what fits of a and then b, and publishes it at once.
func (r *ring) write(a, b []byte) int {
	f := r.free(len(a) + len(b))
	if f == 0 {
		return 0
	}
	na := min(len(a), f)
	r.put(r.mine, a[:na])
	nb := min(len(b), f-na)
	if nb > 0 {
		r.put(r.mine+uint64(na), b[:nb])
	}
	r.mine += uint64(na + nb)
	r.head.Store(r.mine)
	return na + nb
}

// read copies what is there, up to len(p), and releases the room.
func (r *ring) read(p []byte) int {
	avail := r.other - r.mine
	if avail < uint64(len(p)) {
		r.other = r.head.Load()
		avail = r.other - r.mine
	}
	n := int(min(avail, uint64(len(p))))
	if n == 0 {
		return 0
	}
	off := r.mine & r.mask
	k := copy(p[:n], r.data[off:])
	copy(p[k:n], r.data)
	r.mine += uint64(n)
	r.tail.Store(r.mine)
	return n
}
