package basic

import (
	"encoding/binary"

	"github.com/lamgo/lam/libmpi/coll"
)

// Bruck's allgather (a dissemination pattern): in the round at distance d
// (1, 2, 4, …) every process sends to rank r+d and receives from r-d
// (mod n). A process holds the blocks of ranks r, r-1, r-2, … in slots 0,
// 1, 2, …; in the round at distance d it sends its first min(d, n-d)
// slots and receives as many into slots d, d+1, …, so that after
// ⌈log2 n⌉ rounds it holds every block. The small Allgather, the small
// Allreduce (every process then reduces the n contributions itself, in
// lam_basic's order) and the argument check (digests only) use it.
//
// When it carries the argument check, each message starts with the
// digests of the calls whose blocks it holds, then the blocks: a process
// of another collective, which only checks (Agree), exchanges the digests
// alone in the same rounds with the same partners, and what it receives
// of a longer message (or this one of its shorter one) is the digests.
// Every process so learns every process's digest (all but certainly: a
// message of the wrong size passes on a digest that cannot match), and
// all come to the same verdict.

// gatherAll returns the n blocks of s bytes (mine is this process's)
// with rank (r-j) mod n's in slot j, in scratch space of c. If carried,
// the messages carry the argument check's digests and same reports
// whether every process gave digest; otherwise same is true.
func gatherAll(c *coll.Comm, mine []byte, s int, carried bool, digest uint64) (blocks []byte, same bool, err error) {
	n, r := c.Size(), c.Rank()
	if !carried {
		hold := c.Scratch(coll.ScratchWindow, n*s)
		copy(hold, mine)
		for d := 1; d < n; d *= 2 {
			k := min(d, n-d)
			if err := c.Sendrecv(hold[:k*s], (r+d)%n, hold[d*s:(d+k)*s], (r-d+n)%n); err != nil {
				return nil, false, err
			}
		}
		return hold, true, nil
	}
	// The digests in the first n words of hold, the blocks after them;
	// messages go through out and in, digests first.
	hold := c.Scratch(coll.ScratchWindow, n*(8+s))
	digests, blocks := hold[:n*8], hold[n*8:]
	out := c.Scratch(coll.ScratchWindow+1, n/2*(8+s))
	in := c.Scratch(coll.ScratchWindow+2, n/2*(8+s))
	binary.LittleEndian.PutUint64(digests, digest)
	copy(blocks, mine)
	same = true
	for d := 1; d < n; d *= 2 {
		k := min(d, n-d)
		m := k * (8 + s)
		copy(out[:k*8], digests[:k*8])
		copy(out[k*8:m], blocks[:k*s])
		p, err := c.Isend(out[:m], (r+d)%n)
		if err != nil {
			return nil, false, err
		}
		clear(in[:m])
		ok, err := c.RecvAny(in[:m], (r-d+n)%n)
		if werr := c.Wait(p); err == nil {
			err = werr
		}
		if err != nil {
			return nil, false, err
		}
		same = same && ok
		copy(digests[d*8:(d+k)*8], in[:k*8])
		copy(blocks[d*s:(d+k)*s], in[k*8:m])
	}
	for j := range n {
		same = same && binary.LittleEndian.Uint64(digests[j*8:]) == digest
	}
	return blocks, same, nil
}

// agree is the argument check (coll.Actions.Agree): the digests alone,
// gathered as a carried check gathers them.
func agree(c *coll.Comm, digest uint64) (bool, error) {
	_, same, err := gatherAll(c, nil, 0, true, digest)
	return same, err
}

// carries reports the collectives that carry the argument check
// (coll.Actions.Carries): with coll_base_check on, Bcast, Gather,
// Scatter, Allgather, Alltoall, Reduce and Allreduce whose part per
// process (for Scatter and Alltoall, the n blocks) is at most
// coll_base_small bytes, Reduce and Allreduce also at most
// coll_base_reduce_crossover (above it, commutative ops reduce-scatter).
// Every process gathers every part by Bruck's algorithm, the digests of
// the calls in front, and takes what it needs: one collective of
// ⌈log2 n⌉ rounds instead of a check of as many and then the collective.
func carries(c *coll.Comm, sig coll.Sig) bool {
	n, b := c.Size(), int(sig.Send)
	switch sig.Kind {
	case coll.Allreduce, coll.Reduce:
		return n > 1 && gathers(c, b)
	case coll.Allgather:
		return n > 1 && b <= c.Params.Small
	case coll.Alltoall:
		return n > 1 && n*b <= c.Params.Small
	case coll.Bcast, coll.Gather, coll.Scatter:
		// At coll_base_check=1 they send their call (sendsCall), up to
		// coll_base_small or coll_base_sent_size; at 2 they gather, up to
		// coll_base_small (a Scatter's n blocks).
		if !c.Params.CheckAll {
			return n > 1 && c.Params.SentCall(sig.Kind, n, b)
		}
		if sig.Kind == coll.Scatter {
			b *= n
		}
		return n > 1 && b <= c.Params.Small
	}
	return false
}

// gathers reports whether a reduction of size bytes per process gathers
// the contributions: up to coll_base_small bytes, and not above
// coll_base_reduce_crossover, where a commutative op reduces by halving
// (whose grouping the shmem module reproduces).
func gathers(c *coll.Comm, size int) bool {
	return size <= c.Params.Small && size <= c.Params.ReduceCrossover
}

// gatherCarried gathers every process's part of b bytes (mine is this
// process's; nil when it has none, as a Bcast's non-roots) with the
// running collective's argument check: ok is false when the calls
// differ, and the collective then returns without touching its buffers.
func gatherCarried(c *coll.Comm, mine []byte, b int) (x []byte, ok bool, err error) {
	digest, _ := c.Carry()
	x, same, err := gatherAll(c, mine, b, true, digest)
	if err != nil {
		return nil, false, err
	}
	c.Carried(same)
	return x, same, nil
}

// slot is rank i's part of b bytes in what gatherAll returned.
func slot(c *coll.Comm, x []byte, b, i int) []byte {
	n := c.Size()
	j := (c.Rank() - i + n) % n
	return x[j*b : (j+1)*b]
}

func bcastCarried(c *coll.Comm, buf []byte, root int) error {
	var mine []byte
	if c.Rank() == root {
		mine = buf
	}
	x, ok, err := gatherCarried(c, mine, len(buf))
	if ok && c.Rank() != root {
		copy(buf, slot(c, x, len(buf), root))
	}
	return err
}

func gatherToRootCarried(c *coll.Comm, send, recv []byte, root int) error {
	n, r := c.Size(), c.Rank()
	bs := len(send)
	if r == root {
		bs = len(recv) / n
		if send == nil {
			send = recv[r*bs : (r+1)*bs]
		}
	}
	x, ok, err := gatherCarried(c, send[:bs], bs)
	if ok && r == root {
		for i := range n {
			copy(recv[i*bs:(i+1)*bs], slot(c, x, bs, i))
		}
	}
	return err
}

func scatterCarried(c *coll.Comm, send, recv []byte, root int) error {
	n, r := c.Size(), c.Rank()
	bs := len(recv)
	var mine []byte
	if r == root {
		bs, mine = len(send)/n, send
	}
	x, ok, err := gatherCarried(c, mine, n*bs)
	if ok && recv != nil {
		copy(recv, slot(c, x, n*bs, root)[r*bs:(r+1)*bs])
	}
	return err
}

func allgatherCarried(c *coll.Comm, send, recv []byte) error {
	n := c.Size()
	bs := len(recv) / n
	x, ok, err := gatherCarried(c, send[:bs], bs)
	if ok {
		for i := range n {
			copy(recv[i*bs:(i+1)*bs], slot(c, x, bs, i))
		}
	}
	return err
}

func alltoallCarried(c *coll.Comm, send, recv []byte) error {
	n, r := c.Size(), c.Rank()
	if send == nil {
		send = recv // gatherAll copies it before recv is written
	}
	bs := len(recv) / n
	x, ok, err := gatherCarried(c, send[:n*bs], n*bs)
	if ok {
		for i := range n {
			copy(recv[i*bs:(i+1)*bs], slot(c, x, n*bs, i)[r*bs:(r+1)*bs])
		}
	}
	return err
}

func reduceCarried(c *coll.Comm, send, recv []byte, op *coll.Op, root int) error {
	mine := send
	if mine == nil {
		mine = recv
	}
	size := len(mine)
	x, ok, err := gatherCarried(c, mine, size)
	if ok && c.Rank() == root {
		reduceLocal(c, x, recv[:size], op, root)
	}
	return err
}

// allreduceGather gathers every contribution on every process, then
// reduces them there in the order lam_basic's reduction to rank 0 would
// (so the bits are the same whichever algorithm ran, for any op). It
// carries the argument check when the collective does.
func allreduceGather(c *coll.Comm, send, recv []byte, op *coll.Op) error {
	mine := send
	if mine == nil {
		mine = recv
	}
	var x []byte
	var err error
	if _, carried := c.Carry(); carried {
		var ok bool
		if x, ok, err = gatherCarried(c, mine[:len(recv)], len(recv)); !ok {
			return err
		}
	} else if x, _, err = gatherAll(c, mine[:len(recv)], len(recv), false, 0); err != nil {
		return err
	}
	reduceLocal(c, x, recv, op, 0)
	return nil
}

// reduceLocal combines the n contributions in x (slot j holding rank
// (r-j) mod n's) into out, in the order lam_basic's reduction to root
// uses: reduceLinear's for up to coll_base_crossover processes
// (x0 ∘ (x1 ∘ (… ∘ x[n-1]))), reduceLog's above (its binomial tree,
// rotated to the root when the op commutes).
func reduceLocal(c *coll.Comm, x, out []byte, op *coll.Op, root int) {
	s := len(out)
	reduceBlocks(c, func(i int) []byte { return slot(c, x, s, i) }, out, op, root)
}

// ReduceInOrder combines the n contributions of c's processes (at(i) is
// rank i's, len(out) bytes) into out in the order lam_basic's Allreduce
// reduces them, so that a module that has them all (smp's carried
// Allreduce) gives lam_basic's bits for any op.
func ReduceInOrder(c *coll.Comm, at func(rank int) []byte, out []byte, op *coll.Op) {
	reduceBlocks(c, at, out, op, 0)
}

// reduceBlocks is reduceLocal over the contributions at(i) of rank i.
func reduceBlocks(c *coll.Comm, at func(i int) []byte, out []byte, op *coll.Op, root int) {
	n, s := c.Size(), len(out)
	if isLinear(c) {
		copy(out, at(n-1))
		for i := n - 2; i >= 0; i-- {
			op.Apply(at(i), out)
		}
		return
	}
	if !op.Commutative {
		root = 0
	}
	depth := 1
	for m := 1; m < n; m <<= 1 {
		depth++
	}
	regs := c.Scratch(coll.ScratchWindow+3, depth*s)
	var value func(v, top int, dst []byte, level int)
	value = func(v, top int, dst []byte, level int) {
		copy(dst, at((v+root)%n))
		t := regs[level*s : (level+1)*s]
		for m := 1; m < top && v|m < n; m <<= 1 {
			value(v|m, m, t, level+1)
			op.Apply(dst, t) // mine ∘ theirs, as reduceLog
			copy(dst, t)
		}
	}
	value(0, n, out, 0)
}

// bcastScatter is the broadcast of a large message (van de Geijn's): the
// root sends each process one of n nearly equal pieces, then the pieces go
// around a ring of the virtual ranks (ranks relative to the root), each
// received straight into place. The root sends the message about once
// instead of once per child, and every link carries about as much.
func bcastScatter(c *coll.Comm, buf []byte, root int) error {
	n, r := c.Size(), c.Rank()
	v := (r - root + n) % n
	piece := func(k int) []byte { return buf[k*len(buf)/n : (k+1)*len(buf)/n] }
	if v == 0 {
		b := newBatch(c, n-1)
		for k := 1; k < n; k++ {
			b.send(piece(k), (k+root)%n)
		}
		if err := b.wait(); err != nil {
			return err
		}
	} else if err := c.Recv(piece(v), root); err != nil {
		return err
	}
	right, left := (r+1)%n, (r-1+n)%n
	for s := range n - 1 {
		out, in := (v-s+n)%n, (v-s-1+n)%n
		if err := c.Sendrecv(piece(out), right, piece(in), left); err != nil {
			return err
		}
	}
	return nil
}
