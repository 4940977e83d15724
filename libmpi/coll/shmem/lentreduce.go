package shmem

import (
	"errors"
	"unsafe"

	"github.com/lamgo/lam/libmpi/coll"
)

// Lent reductions. An Iallreduce or Ireduce too large for the outboard,
// where the kernel lets the processes copy each other's memory (lends),
// lends every process's input and receive buffer: its entry carries
// their addresses, as a lent Ibcast's does. The data are cut into one
// slice per process. Whoever reads the number claims a slice not yet
// claimed (a claim bit in process 0's entry of the number), copies that slice
// of every other process's input to its scratch (process_vm_readv),
// combines them in the grouping lam_basic would use (planFor: one tree
// for every element, so cutting the data into slices does not change a
// bit of the result), writes the result into every receive buffer (an
// Ireduce's root's alone; process_vm_writev) and counts the slice done
// in process 0's entry; then the next slice it finds unclaimed. Once no
// slice is left to claim it waits for the others' slices, each of which
// is under way (its claimant copies right after claiming): nobody waits
// for another's progress, only for its start and for a slice under way,
// and the collective is complete at a process once it has read the
// number. Every process touches the number's entry lines before it
// reads the number, and a line is written again only once every process
// has read the number that last used it (claim), so the claims and the
// count stay the number's until every process is through with them.
//
// Against lam_basic's schedule (reduce-scatter by recursive halving,
// then allgather, over the rpi) each process moves the same bytes, but
// with no message, no rendezvous and no partner to wait for between
// rounds.

// The largest lent reductions (bytes a process); larger ones run as
// lam_basic's schedules, which were faster there (session 31, 3 and 4
// processes on 2 processors, µs, lent / schedule: Iallreduce of 1 MiB
// 447 / 938 and 720 / 1136, of 2 MiB 2973 / 2389 and 2739 / 2402;
// Ireduce of 2 MiB 1227 / 2119 and 1510 / 2373, of 4 MiB 4965 / 3757
// at 3 processes).
const (
	lentAllreduceMax = 1 << 20
	lentReduceMax    = 2 << 20
)

// reduces reports whether collectives of kind k are reductions the board
// may run lent.
func reduces(k coll.Kind) bool { return k == coll.Allreduce || k == coll.Reduce }

// sliceAt is slice i, bytes [lo, hi), of a reduction of size bytes of
// esz-byte elements cut into n slices of whole elements.
func sliceAt(size, esz, n, i int) (lo, hi int) {
	per := (size/esz + n - 1) / n * esz
	lo = min(i*per, size)
	hi = min(lo+per, size)
	return lo, hi
}

// slicesDone is twice the count of the slices of lent reduction s
// reduced (gotFailed set if a copy of one failed), in process 0's entry
// of the number.
func (b *board) slicesDone(s uint64) flag { return b.taken(0, s) }

// errSliceFailed is the error of the processes whose reduction lost a
// slice to another process's failed copy.
var errSliceFailed = errors.New("another process's copy of a slice of the reduction failed")

// reduceSlices runs lent reduction s (p), which every process posted
// with the same call: it reduces every slice it claims, its own first,
// then waits for the others'. b.mu is held.
func (b *board) reduceSlices(s uint64, p *pending) error {
	n, me := b.a.n, b.a.me
	f := b.slicesDone(s)
	var first error
	for i := range n {
		// Slice j's claim is process 0's entry's claim bit j, as
		// lender 0's pair with reader j would be (claimPair).
		j := (me + i) % n
		if !b.claimPair(0, j, s) {
			continue
		}
		if err := b.reduceSlice(s, p, j); err != nil {
			f.v.Or(gotFailed)
			if first == nil {
				first = err
			}
		}
		f.v.Add(2)
		f.wake()
	}
	if err := b.awaitCopies(f, uint64(n), errSliceFailed); first == nil {
		first = err
	}
	return first
}

// reduceSlice reduces slice j of lent reduction s (p) into every receive
// buffer that takes it: into its own first where it takes it and its
// input lies elsewhere (in place, its input is that buffer, copied to
// the scratch first), then from there into the others'. A copy that
// fails is the error; the others are made all the same. b.mu is held.
func (b *board) reduceSlice(s uint64, p *pending, j int) error {
	n, me := b.a.n, b.a.me
	lo, hi := sliceAt(p.size, max(p.op.Size, 1), n, j)
	m := hi - lo
	if m == 0 {
		return nil
	}
	takes := p.sig.Kind == coll.Allreduce || me == p.root
	inPlace := takes && unsafe.SliceData(p.held) == unsafe.SliceData(p.recv)
	buf := b.sliceScratch((n + 1) * m)
	var first error
	for q := range n {
		x := buf[q*m : (q+1)*m]
		switch {
		case q != me:
			addr := b.a.u64(b.entry(q, s)+boardAddr).Load() + uint64(lo)
			if err := b.a.copyWith(q, x, addr, false); err != nil && first == nil {
				first = err
			}
		case inPlace:
			copy(x, p.held[lo:hi])
		default:
			x = p.held[lo:hi]
		}
		b.inputs[q] = x
	}
	root := p.root
	if p.sig.Kind == coll.Allreduce {
		root = 0
	}
	res := buf[n*m:]
	if takes {
		res = p.recv[lo:hi]
	}
	e := evaluator{plan: planFor(p.c, p.op, p.size, root), x: b.inputs, regs: &b.regs}
	e.run(res)
	clear(b.inputs)
	for q := range n {
		switch {
		case p.sig.Kind == coll.Reduce && q != p.root, q == me:
		default:
			addr := b.a.u64(b.entry(q, s)+boardRecvAddr).Load() + uint64(lo)
			if err := b.a.copyWith(q, res, addr, true); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// sliceScratch is k bytes of the board's scratch for lent reductions,
// kept for the next. b.mu is held.
func (b *board) sliceScratch(k int) []byte {
	if cap(b.scratch) < k {
		b.scratch = coll.Buffer(k)
	}
	return b.scratch[:k]
}
