package shmem

import (
	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/internal/cached"
)

// grouping is how a reduction's contributions are combined.
type grouping uint8

const (
	// rightFold is x0 ∘ (x1 ∘ (… ∘ x[n-1])): lam_basic's linear reduction,
	// and the order shmem uses whenever the grouping cannot change the
	// result.
	rightFold grouping = iota
	// binomial is lam_basic's binomial tree (reduceLog): virtual rank v
	// combines its own value with its subtrees v|1, v|2, v|4 … in turn,
	// as mine ∘ theirs.
	binomial
	// halving is lam_basic's reduce-scatter by recursive halving over the
	// largest power of two p ≤ n: the first 2(n−p) ranks pair up, then
	// partial results combine across the highest bit of the new rank
	// first, the lowest last.
	halving
)

// plan is a reduction's order.
type plan struct {
	g    grouping
	op   *coll.Op
	n    int
	root int // binomial: the tree's root (rank 0 unless the op commutes)
}

// planFor chooses the order of a reduction of size bytes per process with
// op to root (0 for Allreduce): the order lam_basic would use when the
// grouping could change the bits, so that a float reduction gives the same
// result whichever module runs it.
func planFor(c *coll.Comm, op *coll.Op, size, root int) plan {
	n := c.Size()
	p := plan{op: op, n: n}
	switch {
	case op.Exact || c.Params.Associative:
	case op.Commutative && size > c.Params.ReduceCrossover && size/op.Size >= n:
		p.g = halving
	case n <= c.Params.Crossover:
	default:
		p.g = binomial
		if op.Commutative {
			p.root = root
		}
	}
	return p
}

// evaluator combines inputs x (one slice per process, of the same length)
// into a destination, in a plan's order.
type evaluator struct {
	plan
	x    [][]byte
	regs *[][]byte // scratch registers, one per depth of the tree, kept between calls
	p    int       // halving: the power of two
	rem  int       // halving: the number of pairs
}

// reg returns register d, of n bytes.
func (e *evaluator) reg(d, n int) []byte {
	for len(*e.regs) <= d {
		*e.regs = append(*e.regs, nil)
	}
	if cap((*e.regs)[d]) < n {
		(*e.regs)[d] = coll.Buffer(n)
	}
	return (*e.regs)[d][:n]
}

// run leaves the reduction of e.x in dst.
func (e *evaluator) run(dst []byte) {
	if len(dst) == 0 {
		return
	}
	switch e.g {
	case rightFold:
		cached.Copy(dst, e.x[e.n-1])
		for i := e.n - 2; i >= 0; i-- {
			e.op.Apply(e.x[i], dst)
		}
	case binomial:
		e.binomial(0, dst, 0)
	case halving:
		e.p = 1
		for e.p*2 <= e.n {
			e.p *= 2
		}
		e.rem = e.n - e.p
		e.halving(1, 0, dst, 0)
	}
}

func (e *evaluator) binomial(v int, dst []byte, depth int) {
	cur, spare := dst, e.reg(depth, len(dst))
	cached.Copy(cur, e.x[(v+e.root)%e.n])
	for m := 1; m < e.n; m <<= 1 {
		if v&m != 0 {
			break
		}
		if v|m >= e.n {
			continue
		}
		e.binomial(v|m, spare, depth+1)
		e.op.Apply(cur, spare) // mine ∘ theirs
		cur, spare = spare, cur
	}
	if &cur[0] != &dst[0] {
		cached.Copy(dst, cur)
	}
}

// halving combines the new ranks congruent to base modulo stride.
func (e *evaluator) halving(stride, base int, dst []byte, depth int) {
	if stride == e.p {
		if base < e.rem {
			cached.Copy(dst, e.x[2*base+1])
			e.op.Apply(e.x[2*base], dst)
			return
		}
		cached.Copy(dst, e.x[base+e.rem])
		return
	}
	e.halving(2*stride, base, dst, depth+1)
	t := e.reg(depth, len(dst))
	e.halving(2*stride, base+stride, t, depth+1)
	e.op.Apply(t, dst)
}
