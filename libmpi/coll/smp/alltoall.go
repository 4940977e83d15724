package smp

import "github.com/lamgo/lam/libmpi/coll"

// alltoall is the carried Alltoall (carried.go), the hierarchical one
// while every node's send buffers fit coll_base_smp_alltoall_size, or
// lam_basic's.
func alltoall(c *coll.Comm, send, recv []byte) error {
	d := c.Data.(*data)
	if digest, ok := c.Carry(); ok {
		return alltoallCarried(c, d, send, recv, digest)
	}
	if d.fitsHier(len(recv)) {
		return alltoallHier(c, d, send, recv)
	}
	return d.basic.Alltoall(c, send, recv)
}

// fitsHier reports whether every node's send buffers (recv bytes per
// process) fit coll_base_smp_alltoall_size: the same answer on every
// process. Above it the blocks go straight from process to process
// (lam_basic's): on the 2×2 namespace hosts the copies through the
// leaders cost more than the messages they save at 1 MiB blocks (8 MiB
// per leader: 10–13 ms against 4.5–5.5), not at 256 KiB (1.6–2.1 ms
// against 2.4–2.8).
func (d *data) fitsHier(recv int) bool {
	for _, s := range d.size {
		if recv*s > d.alltoallSize {
			return false
		}
	}
	return true
}

// alltoallHier: each node gathers its processes' send buffers on its
// leader; the leaders exchange, for each pair of nodes, the blocks one's
// processes send to the other's (one message each way); each leader puts
// together every process's n blocks and scatters them on its node. The
// network carries one message per pair of nodes instead of one per pair
// of processes.
func alltoallHier(c *coll.Comm, d *data, send, recv []byte) error {
	n := c.Size()
	bs := len(recv) / n
	if send == nil {
		send = recv // gathered before recv is written
	}
	me, size := d.me, d.size[d.me]
	leads := d.leads(c.Rank())
	var node []byte // the node's send buffers, in local rank order
	if leads {
		node = c.Scratch(coll.ScratchModule, size*n*bs)
	}
	l := d.local
	if err := c.Sub(l, coll.Alltoall, 0, func(a *coll.Actions) error { return a.Gather(l, send[:n*bs], node, 0) }); err != nil {
		return err
	}
	var out []byte // what each process of the node receives, in local rank order
	if b := d.bridge; b != nil {
		out = c.Scratch(coll.ScratchModule2, size*n*bs)
		// block(i, r) is local process i's block for rank r.
		block := func(i, r int) []byte { return node[(i*n+r)*bs:][:bs] }
		// Going out: for each other node k, for each local process i,
		// for each process j of k, i's block for j; coming in, the same
		// from k's side, in k's section.
		other := n - size
		outgoing := c.Scratch(coll.ScratchCall, size*other*bs)
		incoming := c.Scratch(coll.ScratchCall2, size*other*bs)
		offset := d.offset // node k's section in outgoing and incoming
		at := 0
		for k := range d.size {
			if k == me {
				continue
			}
			offset[k] = at
			p := at
			for i := range size {
				for _, j := range d.members[k] {
					copy(outgoing[p:p+bs], block(i, j))
					p += bs
				}
			}
			at = p
		}
		if err := c.Sub(b, coll.Alltoall, 0, func(*coll.Actions) error {
			var ps [2 * carryNodes]coll.Pending
			var pend []coll.Pending
			if len(d.leader) <= carryNodes {
				pend = ps[:0]
			}
			for k, sk := range d.size {
				if k == me {
					continue
				}
				part := size * sk * bs
				r, err := b.Irecv(incoming[offset[k]:][:part], k)
				if err != nil {
					return err
				}
				s, err := b.Isend(outgoing[offset[k]:][:part], k)
				if err != nil {
					return err
				}
				pend = append(pend, r, s)
			}
			return b.Wait(pend...)
		}); err != nil {
			return err
		}
		// Put together each local process j's n blocks: from its own
		// node's processes out of node, from the others' out of incoming
		// (node k's section: for each of k's processes i, its blocks for
		// this node's processes in local order).
		for lj, j := range d.members[me] {
			dst := out[lj*n*bs:][:n*bs]
			for r := range n {
				k := d.node[r]
				var src []byte
				if k == me {
					src = block(d.lrank[r], j)
				} else {
					src = incoming[offset[k]+(d.lrank[r]*size+lj)*bs:][:bs]
				}
				copy(dst[r*bs:(r+1)*bs], src)
			}
		}
	}
	return c.Sub(l, coll.Alltoall, 0, func(a *coll.Actions) error { return a.Scatter(l, out, recv[:n*bs], 0) })
}
