// Package cached copies memory through the processor's caches.
//
// Go's copy stores around the caches (non-temporal stores) from 1 MiB
// on, which suits a copy whose destination is not read again soon. An
// MPI buffer usually is, by the program or by another process of the
// node at once (a block of an Allgather read by the others, a reduction's
// input): on this project's machine (AMD EPYC, 1 MiB of L2 per
// processor, 32 MiB of L3) a 2-process Allgather of 1 MiB took 176 µs
// with copy, 120–128 with 64 bytes less, 105–114 with Copy (docs/coll.md,
// session 27). Copy splits a copy of up to Max bytes into pieces below
// that threshold, which copy makes through the caches; larger ones go as
// copy makes them (at 4 MiB a 2-process Alltoall measured slower through
// the caches, an Allgather alike: the buffers no longer fit).
package cached

import "unsafe"

// piece is the most a piece of Copy takes: below copy's non-temporal
// threshold (1 MiB on amd64).
const piece = 512 << 10

// Max is the largest copy Copy makes through the caches.
const Max = 2 << 20

// Copy copies min(len(dst), len(src)) bytes from src to dst, as copy,
// through the caches where the copy is at most Max bytes; it returns the
// bytes copied. Overlapping slices are not split (copy alone then).
func Copy(dst, src []byte) int {
	n := min(len(dst), len(src))
	if n <= piece || n > Max || overlap(dst[:n], src[:n]) {
		return copy(dst, src)
	}
	for at := 0; at < n; at += piece {
		end := min(at+piece, n)
		copy(dst[at:end], src[at:end])
	}
	return n
}

// overlap reports whether a and b, of equal non-zero length, share
// memory.
func overlap(a, b []byte) bool {
	pa, pb := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	n := uintptr(len(a))
	return pa < pb+n && pb < pa+n
}
