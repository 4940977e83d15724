// Package topo is the pure side of MPI's process topologies: Cartesian
// grids, graphs and distributed graphs, as tables of neighbours, the
// factoring of MPI_Dims_create, the placement of ranks on nodes that
// reorder asks for, and the neighbour exchange the neighbour collectives
// are made of. Nothing here talks to the engine except Exchange, which
// runs on a communicator's hidden context through a coll.Transport.
package topo

import (
	"errors"
	"fmt"
	"slices"

	"github.com/lamgo/lam/libmpi/coll"
)

// ProcNull is the neighbour beyond the edge of a non-periodic grid (the
// mpi package's ProcNull).
const ProcNull = coll.ProcNull

// Errors of the topology computations; the mpi package gives each its
// error class.
var (
	ErrDims  = errors.New("bad dimensions")
	ErrArg   = errors.New("bad argument")
	ErrRank  = errors.New("bad rank")
	ErrEdges = errors.New("bad graph")
)

// Kind is the kind of a communicator's topology.
type Kind int

// The kinds.
const (
	None Kind = iota
	CartKind
	GraphKind
	DistKind
)

// Topo is a communicator's topology. It never changes once made, so
// duplicates of the communicator share it.
type Topo struct {
	Kind  Kind
	Cart  Cart
	Graph Graph
	Dist  Dist // this process's edges only
}

// DimsCreate fills the zero entries of dims so that the product of all
// entries is nnodes, the dimensions as close to each other as possible
// and the filled ones in non-increasing order (MPI_Dims_create). Positive
// entries are kept.
func DimsCreate(nnodes int, dims []int) error {
	if nnodes <= 0 {
		return fmt.Errorf("%w: %d nodes", ErrArg, nnodes)
	}
	fixed, free := 1, 0
	for i, d := range dims {
		switch {
		case d < 0:
			return fmt.Errorf("%w: dims[%d] is %d", ErrDims, i, d)
		case d == 0:
			free++
		default:
			fixed *= d
		}
	}
	if nnodes%fixed != 0 || (free == 0 && fixed != nnodes) {
		return fmt.Errorf("%w: %d nodes do not fit dimensions %v", ErrDims, nnodes, dims)
	}
	if free == 0 {
		return nil
	}
	rest := nnodes / fixed
	// Greedy: the prime factors, largest first, each to the smallest
	// dimension so far.
	out := make([]int, free)
	for i := range out {
		out[i] = 1
	}
	factors := primeFactors(rest)
	slices.Reverse(factors)
	for _, p := range factors {
		j := 0
		for k := range out {
			if out[k] < out[j] {
				j = k
			}
		}
		out[j] *= p
	}
	slices.SortFunc(out, func(a, b int) int { return b - a })
	k := 0
	for i := range dims {
		if dims[i] == 0 {
			dims[i] = out[k]
			k++
		}
	}
	return nil
}

// primeFactors returns n's prime factors in increasing order.
func primeFactors(n int) []int {
	var f []int
	for p := 2; p*p <= n; p++ {
		for n%p == 0 {
			f = append(f, p)
			n /= p
		}
	}
	if n > 1 {
		f = append(f, n)
	}
	return f
}

// Cart is a Cartesian grid, its ranks in row-major order (the last
// dimension varies fastest).
type Cart struct {
	Dims    []int
	Periods []bool
}

// NewCart checks a grid's description and copies it.
func NewCart(dims []int, periods []bool) (Cart, error) {
	if len(periods) != len(dims) {
		return Cart{}, fmt.Errorf("%w: %d dimensions and %d periods", ErrArg, len(dims), len(periods))
	}
	for i, d := range dims {
		if d <= 0 {
			return Cart{}, fmt.Errorf("%w: dims[%d] is %d", ErrDims, i, d)
		}
	}
	return Cart{Dims: slices.Clone(dims), Periods: slices.Clone(periods)}, nil
}

// Size is the number of processes of the grid.
func (c Cart) Size() int {
	n := 1
	for _, d := range c.Dims {
		n *= d
	}
	return n
}

// Rank is the rank at coords; coordinates out of range wrap around in
// periodic dimensions and are an error in the others.
func (c Cart) Rank(coords []int) (int, error) {
	if len(coords) != len(c.Dims) {
		return 0, fmt.Errorf("%w: %d coordinates for %d dimensions", ErrArg, len(coords), len(c.Dims))
	}
	r := 0
	for i, x := range coords {
		d := c.Dims[i]
		if x < 0 || x >= d {
			if !c.Periods[i] {
				return 0, fmt.Errorf("%w: coordinate %d is %d, outside 0..%d of a non-periodic dimension", ErrRank, i, x, d-1)
			}
			x = ((x % d) + d) % d
		}
		r = r*d + x
	}
	return r, nil
}

// Coords are the coordinates of rank.
func (c Cart) Coords(rank int) ([]int, error) {
	if rank < 0 || rank >= c.Size() {
		return nil, fmt.Errorf("%w: rank %d is not in a grid of %d", ErrRank, rank, c.Size())
	}
	out := make([]int, len(c.Dims))
	for i := len(c.Dims) - 1; i >= 0; i-- {
		out[i] = rank % c.Dims[i]
		rank /= c.Dims[i]
	}
	return out, nil
}

// Shift returns the ranks disp steps back (src) and forward (dst) of rank
// along dimension dir (MPI_Cart_shift): ProcNull beyond the edge of a
// non-periodic dimension.
func (c Cart) Shift(rank, dir, disp int) (src, dst int, err error) {
	if dir < 0 || dir >= len(c.Dims) {
		return 0, 0, fmt.Errorf("%w: direction %d of %d dimensions", ErrDims, dir, len(c.Dims))
	}
	coords, err := c.Coords(rank)
	if err != nil {
		return 0, 0, err
	}
	at := func(delta int) int {
		x := slices.Clone(coords)
		x[dir] += delta
		r, err := c.Rank(x)
		if err != nil {
			return ProcNull
		}
		return r
	}
	return at(-disp), at(disp), nil
}

// Sub describes rank's part of the grid with only the dimensions remain
// keeps (MPI_Cart_sub): the color that tells the parts apart, the key
// (its rank in its part) and the part's grid.
func (c Cart) Sub(rank int, remain []bool) (color, key int, sub Cart, err error) {
	if len(remain) != len(c.Dims) {
		return 0, 0, Cart{}, fmt.Errorf("%w: %d flags for %d dimensions", ErrArg, len(remain), len(c.Dims))
	}
	coords, err := c.Coords(rank)
	if err != nil {
		return 0, 0, Cart{}, err
	}
	sub = Cart{Dims: []int{}, Periods: []bool{}}
	for i, keep := range remain {
		if keep {
			key = key*c.Dims[i] + coords[i]
			sub.Dims = append(sub.Dims, c.Dims[i])
			sub.Periods = append(sub.Periods, c.Periods[i])
		} else {
			color = color*c.Dims[i] + coords[i]
		}
	}
	return color, key, sub, nil
}

// Edge is one neighbour relation as the neighbour exchange sees it: the
// peer's rank (ProcNull: nothing moves) and the tag offset of the
// message.
type Edge struct {
	Peer int
	Tag  int
}

// edges of a Cartesian rank: per dimension, the neighbour back then the
// neighbour forward (MPI-3 §7.6). What goes to the neighbour back is
// tagged 2d, forward 2d+1; so block 2d (from the neighbour back, which
// sent it forward) is received with tag 2d+1, which keeps the two apart
// when both neighbours are the same process.
func (c Cart) edges(rank int) (in, out []Edge) {
	for d := range c.Dims {
		src, dst, _ := c.Shift(rank, d, 1)
		in = append(in, Edge{src, 2*d + 1}, Edge{dst, 2 * d})
		out = append(out, Edge{src, 2 * d}, Edge{dst, 2*d + 1})
	}
	return in, out
}

// Graph is a graph topology as MPI_Graph_create describes it: the
// neighbours of rank i are Edges[Index[i-1]:Index[i]].
type Graph struct {
	Index []int
	Edges []int
}

// NewGraph checks a graph's description and copies it.
func NewGraph(index, edges []int) (Graph, error) {
	prev := 0
	for i, x := range index {
		if x < prev {
			return Graph{}, fmt.Errorf("%w: index[%d] is %d, below %d", ErrEdges, i, x, prev)
		}
		prev = x
	}
	if len(index) > 0 && index[len(index)-1] != len(edges) {
		return Graph{}, fmt.Errorf("%w: index ends at %d with %d edges", ErrEdges, index[len(index)-1], len(edges))
	}
	for i, e := range edges {
		if e < 0 || e >= len(index) {
			return Graph{}, fmt.Errorf("%w: edges[%d] is %d, not a node of %d", ErrEdges, i, e, len(index))
		}
	}
	return Graph{Index: slices.Clone(index), Edges: slices.Clone(edges)}, nil
}

// Size is the number of nodes of the graph.
func (g Graph) Size() int { return len(g.Index) }

// Neighbors are rank's neighbours, in the order given.
func (g Graph) Neighbors(rank int) ([]int, error) {
	if rank < 0 || rank >= len(g.Index) {
		return nil, fmt.Errorf("%w: rank %d is not a node of a graph of %d", ErrRank, rank, len(g.Index))
	}
	lo := 0
	if rank > 0 {
		lo = g.Index[rank-1]
	}
	return slices.Clone(g.Edges[lo:g.Index[rank]]), nil
}

func (g Graph) edges(rank int) (in, out []Edge) {
	nb, _ := g.Neighbors(rank)
	for _, p := range nb {
		in = append(in, Edge{p, 0})
		out = append(out, Edge{p, 0})
	}
	return in, out
}

// Dist is one process's edges of a distributed graph: where its data
// comes from and goes to, with weights (nil when unweighted).
type Dist struct {
	Sources, SourceWeights []int
	Dests, DestWeights     []int
	Weighted               bool
}

func (d Dist) edges() (in, out []Edge) {
	for _, p := range d.Sources {
		in = append(in, Edge{p, 0})
	}
	for _, p := range d.Dests {
		out = append(out, Edge{p, 0})
	}
	return in, out
}

// Edges are rank's incoming and outgoing edges, in the order of the
// neighbour collectives' blocks.
func (t *Topo) Edges(rank int) (in, out []Edge) {
	switch t.Kind {
	case CartKind:
		return t.Cart.edges(rank)
	case GraphKind:
		return t.Graph.edges(rank)
	case DistKind:
		return t.Dist.edges()
	}
	return nil, nil
}
