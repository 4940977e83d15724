package mpi

import (
	"errors"
	"slices"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/internal/topo"
)

// Process topologies (MPI-1 §6, MPI-2.2 §7.5, MPI-3 §7.6): a communicator
// made by CartCreate, GraphCreate or DistGraphCreate(Adjacent) carries a
// virtual topology, which the Cart*, Graph* and DistGraph* methods query
// and the neighbour collectives follow. Duplicates keep it.
//
// reorder: with reorder true the processes are placed so that neighbours
// share a node when the communicator spans several nodes. The processes,
// grouped by node, take the positions of the topology in an order where
// neighbours come close together (for a grid, recursive bisection, so
// that a node's run of positions is a compact tile; breadth first for a
// graph), so each node holds a block of neighbouring positions. On one
// node the ranks do not change. DistGraphCreate and DistGraphCreateAdjacent place
// the whole graph the same way (Adjacent gathers it first, only when it
// has to: reorder true and several nodes).

// Kinds of topology, as TopoTest reports them (Undefined: none).
const (
	Graph     = 1
	Cart      = 2
	DistGraph = 3
)

// topoError turns a topology computation's error into an MPI error.
func topoError(err error) error {
	class := ErrArg
	switch {
	case errors.Is(err, topo.ErrDims):
		class = ErrDims
	case errors.Is(err, topo.ErrRank):
		class = ErrRank
	case errors.Is(err, coll.ErrTruncated):
		class = ErrTruncate
	case errors.Is(err, topo.ErrArg), errors.Is(err, topo.ErrEdges):
	default:
		return fromCore(err)
	}
	return errorf(class, "%w", err)
}

// topoCheck validates c for a topology constructor: an
// intracommunicator.
func topoCheck(c *Comm) error {
	if _, err := engine(); err != nil {
		return err
	}
	if err := c.check(); err != nil {
		return World.fail(err)
	}
	if c.inter != nil {
		return c.fail(errorf(ErrComm, "%s is an intercommunicator: no topology on it", c.name))
	}
	return nil
}

// placement is the old rank of each position of a topology of n
// positions (see reorder in the section comment).
func (c *Comm) placement(n int, reorder bool, order func() []int) []int {
	if !reorder {
		return topo.Identity(n)
	}
	nodes := make([]int32, n)
	for i, w := range c.group[:n] {
		if w < len(st.nodes) {
			nodes[i] = st.nodes[w]
		}
	}
	return topo.Place(nodes, order())
}

// agreeTopo is the collective step of every topology constructor: the
// processes of c agree on a context id and compare their arguments, so
// that bad arguments on one process, or arguments that differ between
// processes (sig, a digest of what must be the same everywhere), are an
// error on every process instead of a hang. A process with bad
// arguments passes them as bad.
func (c *Comm) agreeTopo(sig uint64, bad error) (uint32, error) {
	flag := int32(0)
	if bad != nil {
		flag = 1
	}
	ctx, all, err := c.agreeContext(flag, int32(sig), int32(sig>>32))
	if err != nil {
		return 0, c.fail(err)
	}
	if bad != nil {
		return 0, c.fail(bad)
	}
	for r := range len(c.group) {
		v := all[4*r : 4*r+4]
		switch {
		case v[1] != 0:
			return 0, c.fail(errorf(ErrArg, "rank %d of %s gave bad topology arguments", r, c.name))
		case v[2] != int32(sig) || v[3] != int32(sig>>32):
			return 0, c.fail(errorf(ErrArg, "rank %d of %s gave other topology arguments than rank %d", r, c.name, c.rank))
		}
	}
	return ctx, nil
}

// withTopology makes the communicator of context ctx of the first
// len(perm) processes of c, position i held by old rank perm[i], carrying
// t; processes beyond get nil.
func (c *Comm) withTopology(name string, ctx uint32, perm []int, t *topo.Topo) *Comm {
	if rankIn(perm, c.rank) == Undefined {
		return nil
	}
	group := make([]int, len(perm))
	for i, old := range perm {
		group[i] = c.group[old]
	}
	n := c.derive(c.name+" ("+name+")", ctx, group)
	n.topo = t
	return n
}

// topoSig is the digest of a topology's arguments.
func topoSig(kind int, reorder bool, lists ...[]int) uint64 {
	r := 0
	if reorder {
		r = 1
	}
	return digest(append([][]int{{kind, r}}, lists...)...)
}

func boolInts(b []bool) []int {
	out := make([]int, len(b))
	for i, x := range b {
		if x {
			out[i] = 1
		}
	}
	return out
}

// topoOf returns c's topology if it is of kind k.
func (c *Comm) topoOf(k topo.Kind, what string) (*topo.Topo, error) {
	if err := c.check(); err != nil {
		return nil, World.fail(err)
	}
	if c.topo == nil || c.topo.Kind != k {
		return nil, c.fail(errorf(ErrTopology, "%s: %s has no such topology", what, c.name))
	}
	return c.topo, nil
}

// TopoTest reports the kind of c's topology: Cart, Graph, DistGraph or
// Undefined (MPI_Topo_test).
func (c *Comm) TopoTest() (int, error) {
	if err := c.check(); err != nil {
		return Undefined, World.fail(err)
	}
	if c.topo == nil {
		return Undefined, nil
	}
	return map[topo.Kind]int{topo.CartKind: Cart, topo.GraphKind: Graph, topo.DistKind: DistGraph}[c.topo.Kind], nil
}

// DimsCreate fills the zero entries of dims so that the product of all
// entries is nnodes, the filled dimensions as close to each other as
// possible and in non-increasing order (MPI_Dims_create); positive
// entries are kept. DimsCreate(6, []int{0, 0}) gives [3 2],
// DimsCreate(6, []int{0, 3, 0}) [2 3 1]; DimsCreate(7, []int{0, 3, 0})
// is ErrDims.
func DimsCreate(nnodes int, dims []int) error {
	if err := topo.DimsCreate(nnodes, dims); err != nil {
		return World.fail(topoError(err))
	}
	return nil
}

// CartCreate makes a communicator of the first product(dims) processes of
// c with a Cartesian topology (MPI_Cart_create): the processes beyond get
// nil. periods says which dimensions wrap around. With reorder true,
// ranks may change (see reorder above). Collective over c.
func CartCreate(c *Comm, dims []int, periods []bool, reorder bool) (*Comm, error) {
	if err := topoCheck(c); err != nil {
		return nil, err
	}
	cart, bad := topo.NewCart(dims, periods)
	if bad != nil {
		bad = topoError(bad)
	} else if n := cart.Size(); n > len(c.group) {
		bad = errorf(ErrDims, "a grid of %d processes on %s of %d", n, c.name, len(c.group))
	}
	ctx, err := c.agreeTopo(topoSig(Cart, reorder, dims, boolInts(periods)), bad)
	if err != nil {
		return nil, err
	}
	n := cart.Size()
	perm := c.placement(n, reorder, cart.Order)
	return c.withTopology("cart", ctx, perm, &topo.Topo{Kind: topo.CartKind, Cart: cart}), nil
}

// CartMap is the rank this process would have in CartCreate(c, dims,
// periods, true), or Undefined if it would have none (MPI_Cart_map).
func (c *Comm) CartMap(dims []int, periods []bool) (int, error) {
	if err := topoCheck(c); err != nil {
		return Undefined, err
	}
	cart, err := topo.NewCart(dims, periods)
	if err != nil {
		return Undefined, c.fail(topoError(err))
	}
	n := cart.Size()
	if n > len(c.group) {
		return Undefined, c.fail(errorf(ErrDims, "a grid of %d processes on %s of %d", n, c.name, len(c.group)))
	}
	return rankIn(c.placement(n, true, cart.Order), c.rank), nil
}

func rankIn(perm []int, old int) int {
	if i := slices.Index(perm, old); i >= 0 {
		return i
	}
	return Undefined
}

// CartdimGet is the number of dimensions of c's grid (MPI_Cartdim_get).
func (c *Comm) CartdimGet() (int, error) {
	t, err := c.topoOf(topo.CartKind, "CartdimGet")
	if err != nil {
		return 0, err
	}
	return len(t.Cart.Dims), nil
}

// CartGet returns c's grid and this process's coordinates in it
// (MPI_Cart_get).
func (c *Comm) CartGet() (dims []int, periods []bool, coords []int, err error) {
	t, err := c.topoOf(topo.CartKind, "CartGet")
	if err != nil {
		return nil, nil, nil, err
	}
	coords, _ = t.Cart.Coords(c.rank)
	return slices.Clone(t.Cart.Dims), slices.Clone(t.Cart.Periods), coords, nil
}

// CartRank is the rank at coords (MPI_Cart_rank); in periodic dimensions
// coordinates out of range wrap around, in the others they are ErrRank.
func (c *Comm) CartRank(coords []int) (int, error) {
	t, err := c.topoOf(topo.CartKind, "CartRank")
	if err != nil {
		return 0, err
	}
	r, err := t.Cart.Rank(coords)
	if err != nil {
		return 0, c.fail(topoError(err))
	}
	return r, nil
}

// CartCoords are the coordinates of rank (MPI_Cart_coords).
func (c *Comm) CartCoords(rank int) ([]int, error) {
	t, err := c.topoOf(topo.CartKind, "CartCoords")
	if err != nil {
		return nil, err
	}
	x, err := t.Cart.Coords(rank)
	if err != nil {
		return nil, c.fail(topoError(err))
	}
	return x, nil
}

// CartShift returns the ranks disp steps back (source) and forward (dest)
// of this process along dimension dir (MPI_Cart_shift), ProcNull beyond
// the edge of a non-periodic dimension: the arguments of a Sendrecv that
// shifts data along dir.
func (c *Comm) CartShift(dir, disp int) (source, dest int, err error) {
	t, err := c.topoOf(topo.CartKind, "CartShift")
	if err != nil {
		return 0, 0, err
	}
	source, dest, err = t.Cart.Shift(c.rank, dir, disp)
	if err != nil {
		return 0, 0, c.fail(topoError(err))
	}
	return source, dest, nil
}

// CartSub partitions c's grid into the subgrids of the dimensions remain
// keeps and returns this process's, a communicator with a Cartesian
// topology of those dimensions (MPI_Cart_sub). Collective over c.
func (c *Comm) CartSub(remain []bool) (*Comm, error) {
	t, err := c.topoOf(topo.CartKind, "CartSub")
	if err != nil {
		return nil, err
	}
	color, _, sub, bad := t.Cart.Sub(c.rank, remain)
	if bad != nil {
		bad = topoError(bad)
	}
	// Every part's members follow from the grid: one agreement (the
	// arguments, a context id shared by the parts, as Split's) is all.
	ctx, err := c.agreeTopo(topoSig(Cart, false, boolInts(remain)), bad)
	if err != nil {
		return nil, err
	}
	group := make([]int, sub.Size())
	for r := range len(c.group) {
		if col, key, _, _ := t.Cart.Sub(r, remain); col == color {
			group[key] = c.group[r]
		}
	}
	n := c.derive(c.name+" (cart sub)", ctx, group)
	n.topo = &topo.Topo{Kind: topo.CartKind, Cart: sub}
	return n, nil
}

// GraphCreate makes a communicator of the first len(index) processes of c
// with a graph topology (MPI_Graph_create): the neighbours of rank i are
// edges[index[i-1]:index[i]] (from 0 for rank 0). The processes beyond get
// nil. With reorder true, ranks may change (see reorder above).
// Collective over c.
func GraphCreate(c *Comm, index, edges []int, reorder bool) (*Comm, error) {
	if err := topoCheck(c); err != nil {
		return nil, err
	}
	g, perm, bad := c.graphPlacement(index, edges, reorder)
	ctx, err := c.agreeTopo(topoSig(Graph, reorder, index, edges), bad)
	if err != nil {
		return nil, err
	}
	return c.withTopology("graph", ctx, perm, &topo.Topo{Kind: topo.GraphKind, Graph: g}), nil
}

func (c *Comm) graphPlacement(index, edges []int, reorder bool) (topo.Graph, []int, error) {
	g, err := topo.NewGraph(index, edges)
	if err != nil {
		return g, nil, topoError(err)
	}
	if g.Size() > len(c.group) {
		return g, nil, errorf(ErrArg, "a graph of %d nodes on %s of %d", g.Size(), c.name, len(c.group))
	}
	return g, c.placement(g.Size(), reorder, g.BFS), nil
}

// GraphMap is the rank this process would have in GraphCreate(c, index,
// edges, true), or Undefined if it would have none (MPI_Graph_map).
func (c *Comm) GraphMap(index, edges []int) (int, error) {
	if err := topoCheck(c); err != nil {
		return Undefined, err
	}
	_, perm, err := c.graphPlacement(index, edges, true)
	if err != nil {
		return Undefined, c.fail(err)
	}
	return rankIn(perm, c.rank), nil
}

// GraphdimsGet is the number of nodes and of edges of c's graph
// (MPI_Graphdims_get).
func (c *Comm) GraphdimsGet() (nnodes, nedges int, err error) {
	t, err := c.topoOf(topo.GraphKind, "GraphdimsGet")
	if err != nil {
		return 0, 0, err
	}
	return t.Graph.Size(), len(t.Graph.Edges), nil
}

// GraphGet returns c's graph as GraphCreate took it (MPI_Graph_get).
func (c *Comm) GraphGet() (index, edges []int, err error) {
	t, err := c.topoOf(topo.GraphKind, "GraphGet")
	if err != nil {
		return nil, nil, err
	}
	return slices.Clone(t.Graph.Index), slices.Clone(t.Graph.Edges), nil
}

// GraphNeighborsCount is the number of neighbours of rank
// (MPI_Graph_neighbors_count).
func (c *Comm) GraphNeighborsCount(rank int) (int, error) {
	nb, err := c.GraphNeighbors(rank)
	return len(nb), err
}

// GraphNeighbors are the neighbours of rank, in the order given
// (MPI_Graph_neighbors).
func (c *Comm) GraphNeighbors(rank int) ([]int, error) {
	t, err := c.topoOf(topo.GraphKind, "GraphNeighbors")
	if err != nil {
		return nil, err
	}
	nb, err := t.Graph.Neighbors(rank)
	if err != nil {
		return nil, c.fail(topoError(err))
	}
	return nb, nil
}
