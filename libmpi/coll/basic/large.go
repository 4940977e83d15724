package basic

import "github.com/lamgo/lam/libmpi/coll"

// The choices for large messages, measured on a 2-processor machine with up
// to 8 processes (docs/coll.md, bench/README.md "Session 16, big24"):
// there the processes outnumber the processors, so an algorithm whose
// processes wait on each other round after round pays for the switches
// between them, while the shared-memory rpis copy a long message once,
// straight from the sender's buffer into the receiver's
// (coll_base_bcast_whole, coll_base_linear_block: coll.Params).

// above reports whether n bytes exceed a threshold that is on (not 0).
func above(n, threshold int) bool { return threshold > 0 && n > threshold }

// bcastScatters reports whether a Bcast of size bytes scatters the
// message, then rings it (bcastScatter).
func bcastScatters(c *coll.Comm, size int) bool {
	return c.Size() > 2 && size > c.Params.BcastScatter && !above(size, c.Params.BcastWhole)
}

// linearRooted reports whether a Gather or Scatter of blocks of bs bytes
// is linear.
func linearRooted(c *coll.Comm, bs int) bool {
	return isLinear(c) || above(bs, c.Params.LinearBlock)
}

// blockSize is the bytes per process of a Gather (or, with the buffers
// swapped, a Scatter) as every process sees it: its own block, or at a
// root in place (own nil) the root's buffer's n-th.
func blockSize(c *coll.Comm, own, all []byte) int {
	if own != nil {
		return len(own)
	}
	return len(all) / c.Size()
}

// linearBcast reports whether a Bcast of size bytes goes from the root to
// each process itself: up to coll_base_crossover processes, and past
// coll_base_bcast_whole on a communicator of one node whatever the number,
// where each receiver copies the whole message straight from the root's
// buffer (the rpis' single copy; the root writes none of it, core's
// flagWhole), all at once, instead of down a tree whose every level waits
// for the one above (8 processes, 4 MiB, bound: 3.3–4.1 ms against
// 5.5–6.8; Open MPI 3.5). Across nodes the root's link would carry every
// copy: the tree stays.
func linearBcast(c *coll.Comm, size int) bool {
	if isLinear(c) {
		return true
	}
	return above(size, c.Params.BcastWhole) && c.OneNode()
}

// pairwiseAlltoall reports whether an Alltoall of blocks of bs bytes
// exchanges with one process at a time: past coll_base_alltoall_pairwise,
// between nodes. On one node, where the shared-memory rpis copy a long
// message once, straight between the processes' buffers, nothing is
// gained by pacing the transfers, and an Alltoall (and a large
// Allgather) starts every send and receive at once (allAtOnce) whatever
// the block's size (8 processes on 2 processors, bound: 64 KiB blocks
// 1.7–2.0 ms against 4.2–5.3 pairwise, 1 MiB 9.3–10.8 against 10.9–14.1,
// 16 MiB alike).
func pairwiseAlltoall(c *coll.Comm, bs int) bool {
	return bs > c.Params.AlltoallPair && !c.OneNode()
}

// directAllreduce reports whether an Allreduce of size bytes that would
// reduce-scatter by recursive halving (useRSAG) reads its inputs straight
// instead (allreduceDirect): on a communicator of three or more
// processes on one node, past coll_base_allreduce_direct bytes. Two
// processes halve and double in one exchange each, straight into the
// receive buffer, which the direct form would only copy more.
func directAllreduce(c *coll.Comm, size int) bool {
	return c.Size() > 2 && above(size, c.Params.AllreduceDirect) && c.OneNode()
}

// allreduceDirect is the Allreduce of one node: each process receives its
// n-th of every other process's input at once (the rpis' single copy,
// straight from their buffers), reduces it, then every process's reduced
// n-th goes to every other at once. Each round starts its sends before
// its receives, so that the rpi sees a long send to the peer under way
// and copies each message whole (core's sendingTo) instead of splitting
// the copy, which makes two processes exchanging wait on each other's
// half (2 processes, 1-4 MiB: 3-4x the time, one loaded run). Two rounds
// in all, against recursive halving's 2·log2 n exchanges, each waiting
// on one partner. Each element is combined in recursive halving's
// grouping (halvingFold), so the bits are reduceScatter's and shmem's.
// Off by default (coll_base_allreduce_direct 0): measured here, it was
// not steadily faster (docs/coll.md).
func allreduceDirect(c *coll.Comm, send, recv []byte, op *coll.Op) error {
	n, r := c.Size(), c.Rank()
	mine := send
	if mine == nil {
		mine = recv
	}
	mine = mine[:len(recv)]
	bounds := blocks(len(recv), op.Size, n)
	lo, hi := bounds[r], bounds[r+1]
	w := hi - lo
	// x[i] is process i's part of block r: received into the slab, or
	// this process's own.
	slab := c.Scratch(coll.ScratchRSAG, n*w)
	var xs [16][]byte
	x := xs[:0]
	if n > len(xs) {
		x = make([][]byte, 0, n)
	}
	x = x[:n]
	b := newBatch(c, 2*(n-1))
	for k := 1; k < n; k++ {
		dst := (r + k) % n
		b.send(mine[bounds[dst]:bounds[dst+1]], dst)
	}
	for k := 1; k < n; k++ {
		src := (r - k + n) % n
		x[src] = slab[src*w : (src+1)*w]
		b.recv(x[src], src)
	}
	if err := b.wait(); err != nil {
		return err
	}
	// The fold writes into its operands and leaves the result in this
	// process's own part, which is in place in recv.
	if send != nil {
		copy(recv[lo:hi], send[lo:hi])
	}
	x[r] = recv[lo:hi]
	halvingFold(x, r, op)
	for k := 1; k < n; k++ {
		b.send(recv[lo:hi], (r+k)%n)
	}
	for k := 1; k < n; k++ {
		src := (r - k + n) % n
		b.recv(recv[bounds[src]:bounds[src+1]], src)
	}
	return b.wait()
}

// halvingFold combines x (one part per process; all but x[home] are
// scratch) into x[home] in rsag.reduceScatter's grouping: over the
// largest power of two p ≤ n, the first 2(n−p) processes in pairs, then
// the partial results across the highest bit of the new rank first, the
// lowest last (shmem's evaluator). Each step applies the op to two
// partial results in place, into the one whose subtree holds home (the
// other way round, the higher half's ∘ the lower's, elsewhere): the op
// commutes, and reduceScatter itself orders a step's operands as its
// buffers fall (in place or not), so only the grouping is kept, which is
// what decides a float sum's bits.
func halvingFold(x [][]byte, home int, op *coll.Op) {
	f := folder{x: x, op: op, home: &x[home][0], p: 1}
	for f.p*2 <= len(x) {
		f.p *= 2
	}
	f.rem = len(x) - f.p
	f.fold(1, 0)
}

type folder struct {
	x      [][]byte
	op     *coll.Op
	home   *byte
	p, rem int
}

// combine applies the op to lo's and hi's partial results, into hi's if
// it is home's, else into lo's, and returns the one it wrote.
func (f *folder) combine(lo, hi []byte) []byte {
	if &hi[0] == f.home {
		f.op.Apply(lo, hi)
		return hi
	}
	f.op.Apply(hi, lo)
	return lo
}

// fold combines the new ranks congruent to base modulo stride.
func (f *folder) fold(stride, base int) []byte {
	if stride == f.p {
		if base < f.rem {
			return f.combine(f.x[2*base+1], f.x[2*base])
		}
		return f.x[base+f.rem]
	}
	lo := f.fold(2*stride, base)
	return f.combine(lo, f.fold(2*stride, base+stride))
}
