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
