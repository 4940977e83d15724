package main

import (
	"bytes"
	"fmt"
	"slices"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// topo: process topologies across ranks: a 2-D grid (DimsCreate,
// CartGet, CartRank/CartCoords round trips, CartShift at the edges and
// a Sendrecv along each shift, CartSub), a periodic ring, a grid smaller
// than the world, reorder (ranks of one host contiguous along a ring),
// graphs and distributed graphs, and the neighbour collectives on each.
// Prints "topo ok".
func init() { suites["topo"] = topoSuite }

func topoSuite(rank, size int) {
	w := mpi.World
	w.SetErrhandler(mpi.ErrorsReturn)
	dims := []int{0, 0}
	mustOK("DimsCreate", mpi.DimsCreate(size, dims))
	if dims[0]*dims[1] != size || dims[0] < dims[1] {
		fail("DimsCreate(%d) = %v", size, dims)
	}
	grid, err := mpi.CartCreate(w, dims, []bool{true, false}, false)
	mustOK("CartCreate", err)
	grid.SetErrhandler(mpi.ErrorsReturn)
	checkGrid(grid, rank, size, dims)
	dup, err := grid.Dup()
	mustOK("Dup of a grid", err)
	dup.SetErrhandler(mpi.ErrorsReturn)
	checkGrid(dup, rank, size, dims) // the duplicate keeps the topology
	mustOK("free", dup.Free())

	// CartSub: the rows (dimension 1 kept) and the columns.
	coords, err := grid.CartCoords(rank)
	mustOK("CartCoords", err)
	row, err := grid.CartSub([]bool{false, true})
	mustOK("CartSub", err)
	rd, rp, rc, err := row.CartGet()
	mustOK("CartGet of a row", err)
	if row.Size() != dims[1] || row.Rank() != coords[1] || !slices.Equal(rd, dims[1:]) || !slices.Equal(rp, []bool{false}) || rc[0] != coords[1] {
		fail("row: size %d rank %d, %v %v %v (coords %v)", row.Size(), row.Rank(), rd, rp, rc, coords)
	}
	sum := []int64{0}
	mustOK("Allreduce on a row", mpi.Allreduce(row, []int64{int64(rank)}, sum, mpi.Sum))
	want := int64(0)
	for j := range dims[1] {
		want += int64(coords[0]*dims[1] + j)
	}
	if sum[0] != want {
		fail("sum over row %d: %d, want %d", coords[0], sum[0], want)
	}
	mustOK("free", row.Free())
	col, err := grid.CartSub([]bool{true, false})
	mustOK("CartSub of columns", err)
	if col.Size() != dims[0] || col.Rank() != coords[0] {
		fail("column: size %d rank %d (coords %v)", col.Size(), col.Rank(), coords)
	}
	mustOK("free", col.Free())
	if size > 1 {
		if s, err := grid.CartSub([]bool{rank == 0, true}); s != nil || mpi.Class(err) != mpi.ErrArg {
			fail("CartSub with other flags on rank 0: %v %v", s, err)
		}
	}

	// A periodic ring, with every neighbour collective.
	ring, err := mpi.CartCreate(w, []int{size}, []bool{true}, false)
	mustOK("ring", err)
	left, right := (rank+size-1)%size, (rank+1)%size
	got := make([]int32, 2)
	mustOK("NeighborAllgather on a ring", mpi.NeighborAllgather(ring, []int32{int32(rank)}, got))
	want32("ring allgather", got, left, right)
	mustOK("NeighborAlltoall on a ring", mpi.NeighborAlltoall(ring, []int32{int32(rank*10 + 0), int32(rank*10 + 1)}, got))
	want32("ring alltoall", got, left*10+1, right*10+0)
	// v forms: to the left one element, to the right two.
	in := []int32{-1, -1, -1, -1}
	mustOK("NeighborAlltoallv on a ring", mpi.NeighborAlltoallv(ring, []int32{int32(rank), int32(rank), int32(rank + 100)},
		[]int{1, 2}, []int{0, 1}, in, []int{2, 1}, []int{2, 0}))
	want32("ring alltoallv", in, right, -1, left, left+100)
	in = []int32{-1, -1, -1}
	mustOK("NeighborAllgatherv on a ring", mpi.NeighborAllgatherv(ring, []int32{int32(rank)}, in, []int{1, 1}, []int{2, 0}))
	want32("ring allgatherv", in, right, -1, left)
	// A receive buffer of the wrong size on rank 0: ErrCount there and on
	// its two neighbours, no hang, and the ring works after.
	bad := make([]int32, 2)
	if rank == 0 {
		bad = make([]int32, 3)
	}
	err = mpi.NeighborAllgather(ring, []int32{int32(rank)}, bad)
	if next := rank == 0 || rank == 1 || rank == size-1; next && mpi.Class(err) != mpi.ErrCount || !next && err != nil {
		fail("a bad buffer on rank 0, rank %d: %v", rank, err)
	}
	mustOK("NeighborAllgather after an error", mpi.NeighborAllgather(ring, []int32{int32(rank)}, got))
	want32("ring allgather after an error", got, left, right)
	nonblockingNeighbours(ring, rank, left, right)
	mustOK("free", ring.Free())

	// A grid smaller than the world: the last process gets nil.
	if size > 1 {
		part, err := mpi.CartCreate(w, []int{size - 1}, []bool{false}, false)
		mustOK("a grid of size-1", err)
		if (part == nil) != (rank == size-1) {
			fail("a grid of %d: rank %d got %v", size-1, rank, part)
		}
		if part != nil {
			mustOK("free", part.Free())
		}
	}

	checkReorder(rank, size)
	checkTiles(size)
	checkGraphs(rank, size)
	checkMismatch(rank, size)
	mustOK("free", grid.Free())
	if rank == 0 {
		fmt.Println("topo ok")
	}
}

func want32(what string, got []int32, exp ...int) {
	e := make([]int32, len(exp))
	for i, x := range exp {
		e[i] = int32(x)
	}
	want(what, got, e)
}

// checkGrid checks a grid of the world's processes in their order.
func checkGrid(grid *mpi.Comm, rank, size int, dims []int) {
	if k, _ := grid.TopoTest(); k != mpi.Cart || grid.Size() != size || grid.Rank() != rank {
		fail("grid: kind %d, rank %d of %d", k, grid.Rank(), grid.Size())
	}
	gd, gp, gc, err := grid.CartGet()
	mustOK("CartGet", err)
	if !slices.Equal(gd, dims) || !slices.Equal(gp, []bool{true, false}) || !slices.Equal(gc, []int{rank / dims[1], rank % dims[1]}) {
		fail("CartGet: %v %v %v", gd, gp, gc)
	}
	for r := range size {
		x, err := grid.CartCoords(r)
		mustOK("CartCoords", err)
		back, err := grid.CartRank(x)
		if err != nil || back != r {
			fail("rank %d → %v → %d %v", r, x, back, err)
		}
	}
	// Shifts: dimension 0 wraps, dimension 1 ends in ProcNull. A Sendrecv
	// along each shift brings the source's rank (ProcNull: nothing).
	var nb []int
	for d := range 2 {
		src, dst, err := grid.CartShift(d, 1)
		mustOK("CartShift", err)
		x := []int{gc[0], gc[1]}
		x[d]--
		wsrc := mpi.ProcNull
		if d == 0 || x[d] >= 0 {
			wsrc, _ = grid.CartRank(x)
		}
		x[d] += 2
		wdst := mpi.ProcNull
		if d == 0 || x[d] < dims[d] {
			wdst, _ = grid.CartRank(x)
		}
		if src != wsrc || dst != wdst {
			fail("CartShift(%d, 1) at %v: %d %d, want %d %d", d, gc, src, dst, wsrc, wdst)
		}
		buf := []int32{-1}
		_, err = mpi.Sendrecv(grid, []int32{int32(rank)}, dst, 5, buf, src, 5)
		mustOK("Sendrecv along a shift", err)
		if (src == mpi.ProcNull && buf[0] != -1) || (src != mpi.ProcNull && buf[0] != int32(src)) {
			fail("shift %d: got %d from %d", d, buf[0], src)
		}
		nb = append(nb, src, dst)
	}
	// Neighbour collectives on the grid: blocks in the order of the
	// shifts, ProcNull blocks left alone.
	got := []int32{-1, -1, -1, -1}
	mustOK("NeighborAllgather on a grid", mpi.NeighborAllgather(grid, []int32{int32(rank)}, got))
	exp := make([]int, 4)
	for i, p := range nb {
		exp[i] = p
		if p == mpi.ProcNull {
			exp[i] = -1
		}
	}
	want32("grid allgather", got, exp...)
	got = []int32{-1, -1, -1, -1}
	mustOK("NeighborAlltoall on a grid", mpi.NeighborAlltoall(grid, []int32{int32(rank * 10), int32(rank*10 + 1), int32(rank*10 + 2), int32(rank*10 + 3)}, got))
	for i, p := range nb {
		// Block 2d comes from the neighbour back, its block 2d+1; block
		// 2d+1 from the neighbour forward, its block 2d.
		exp[i] = -1
		if p != mpi.ProcNull {
			exp[i] = p*10 + (i ^ 1)
		}
	}
	want32("grid alltoall", got, exp...)
	// The same, nonblocking, and as Alltoallw of one Int32 each.
	got = []int32{-1, -1, -1, -1}
	r, err := mpi.IneighborAlltoall(grid, []int32{int32(rank * 10), int32(rank*10 + 1), int32(rank*10 + 2), int32(rank*10 + 3)}, got)
	mustOK("IneighborAlltoall on a grid", err)
	four := []*mpi.Datatype{mpi.Int32, mpi.Int32, mpi.Int32, mpi.Int32}
	sw := []int32{int32(rank * 10), int32(rank*10 + 1), int32(rank*10 + 2), int32(rank*10 + 3)}
	gw := []int32{-1, -1, -1, -1}
	ones, at := []int{1, 1, 1, 1}, []int{0, 4, 8, 12}
	rw, err := mpi.IneighborAlltoallw(grid, i32bytes(sw), ones, at, four, i32bytes(gw), ones, at, four)
	mustOK("IneighborAlltoallw on a grid", err)
	mustV(mpi.Waitall(rw, r))
	want32("grid ialltoall", got, exp...)
	want32("grid ialltoallw", gw, exp...)
}

func i32bytes(s []int32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), 4*len(s))
}

// nonblockingNeighbours starts every nonblocking neighbour collective on
// the ring at once, beside a nonblocking Iallreduce and a blocking
// NeighborAllgather, and waits for them in the opposite order; then an
// argument error on rank 0 (returned at once there, ErrCount from Wait on
// its neighbours).
func nonblockingNeighbours(ring *mpi.Comm, rank, left, right int) {
	size := ring.Size()
	ag := make([]int32, 2)
	r1, err := mpi.IneighborAllgather(ring, []int32{int32(rank)}, ag)
	mustOK("IneighborAllgather", err)
	sum := make([]int64, 1)
	r2, err := mpi.Iallreduce(ring, []int64{int64(rank)}, sum, mpi.Sum)
	mustOK("Iallreduce on the ring", err)
	a2a := make([]int32, 2)
	r3, err := mpi.IneighborAlltoall(ring, []int32{int32(rank*10 + 0), int32(rank*10 + 1)}, a2a)
	mustOK("IneighborAlltoall", err)
	blocking := make([]int32, 2)
	mustOK("NeighborAllgather beside them", mpi.NeighborAllgather(ring, []int32{int32(rank + 1000)}, blocking))
	v := []int32{-1, -1, -1, -1}
	r4, err := mpi.IneighborAlltoallv(ring, []int32{int32(rank), int32(rank), int32(rank + 100)},
		[]int{1, 2}, []int{0, 1}, v, []int{2, 1}, []int{2, 0})
	mustOK("IneighborAlltoallv", err)
	gv := []int32{-1, -1, -1}
	r5, err := mpi.IneighborAllgatherv(ring, []int32{int32(rank)}, gv, []int{1, 1}, []int{2, 0})
	mustOK("IneighborAllgatherv", err)
	for _, r := range []*mpi.Request{r5, r4, r3, r2, r1} {
		mustV(r.Wait())
	}
	want32("ring iallgather", ag, left, right)
	want32("ring ialltoall", a2a, left*10+1, right*10+0)
	want32("ring allgather beside", blocking, left+1000, right+1000)
	want32("ring ialltoallv", v, right, -1, left, left+100)
	want32("ring iallgatherv", gv, right, -1, left)
	if sum[0] != int64(size*(size-1)/2) {
		fail("Iallreduce beside the neighbour collectives: %d", sum[0])
	}
	bad := make([]int32, 2)
	if rank == 0 {
		bad = make([]int32, 3)
	}
	r, err := mpi.IneighborAllgather(ring, []int32{int32(rank)}, bad)
	if err == nil {
		_, err = r.Wait()
	}
	if next := rank == 0 || rank == 1 || rank == size-1; next && mpi.Class(err) != mpi.ErrCount || !next && err != nil {
		fail("a bad buffer on rank 0 (nonblocking), rank %d: %v", rank, err)
	}
	if rank == 0 && r != nil {
		fail("IneighborAllgather with a bad buffer returned a request")
	}
}

// checkReorder makes a ring with reorder: CartMap foretells each rank,
// the processes of one host are contiguous along the ring, and the ring
// works.
func checkReorder(rank, size int) {
	w := mpi.World
	m, err := w.CartMap([]int{size}, []bool{true})
	mustOK("CartMap", err)
	ring, err := mpi.CartCreate(w, []int{size}, []bool{true}, true)
	mustOK("CartCreate with reorder", err)
	if ring.Rank() != m {
		fail("reordered rank %d, CartMap said %d", ring.Rank(), m)
	}
	together("reordered grid ring", ring)
	got := make([]int32, 2)
	r := ring.Rank()
	mustOK("NeighborAllgather on a reordered ring", mpi.NeighborAllgather(ring, []int32{int32(r)}, got))
	want32("reordered ring", got, (r+size-1)%size, (r+1)%size)
	mustOK("free", ring.Free())

	// The same ring as a graph and as distributed graphs, reordered:
	// vertex r linked to r±1, the process at each vertex its new rank.
	var index, edges, src, deg, dst []int
	for r := range size {
		edges = append(edges, (r+size-1)%size, (r+1)%size)
		index = append(index, len(edges))
		src, deg, dst = append(src, r), append(deg, 1), append(dst, (r+1)%size)
	}
	g, err := mpi.GraphCreate(w, index, edges, true)
	mustOK("GraphCreate of a ring with reorder", err)
	together("reordered graph ring", g)
	checkRing("reordered graph ring", g)
	mustOK("free", g.Free())
	var mySrc, myDst []int
	if rank == 0 {
		mySrc, myDst = src, dst // rank 0 gives every edge
	}
	d, err := mpi.DistGraphCreate(w, mySrc, deg[:len(mySrc)], myDst, nil, nil, true)
	mustOK("DistGraphCreate of a ring with reorder", err)
	together("reordered dist graph ring", d)
	checkDirected("reordered dist graph ring", d)
	mustOK("free", d.Free())
	a, err := mpi.DistGraphCreateAdjacent(w, []int{(rank + size - 1) % size}, []int{1}, []int{(rank + 1) % size}, []int{2}, nil, true)
	mustOK("DistGraphCreateAdjacent of a ring with reorder", err)
	together("reordered adjacent ring", a)
	checkDirected("reordered adjacent ring", a)
	if _, sw, _, dw, _ := a.DistGraphNeighbors(); !slices.Equal(sw, []int{1}) || !slices.Equal(dw, []int{2}) {
		fail("reordered adjacent ring: weights %v %v", sw, dw)
	}
	mustOK("free", a.Free())
}

// checkTiles: on a 2-D grid made with reorder, each host's processes
// are a connected block of the grid.
func checkTiles(size int) {
	dims := []int{0, 0}
	mustOK("DimsCreate", mpi.DimsCreate(size, dims))
	g, err := mpi.CartCreate(mpi.World, dims, []bool{false, false}, true)
	mustOK("CartCreate of a grid with reorder", err)
	hosts := hostsOf(g)
	for _, h := range hosts {
		// Flood the grid from the host's first cell, within the host.
		start := slices.Index(hosts, h)
		seen := map[int]bool{start: true}
		queue := []int{start}
		for len(queue) > 0 {
			r := queue[0]
			queue = queue[1:]
			x, err := g.CartCoords(r)
			mustOK("CartCoords", err)
			for d := range 2 {
				for _, step := range []int{-1, 1} {
					y := slices.Clone(x)
					y[d] += step
					if y[d] < 0 || y[d] >= dims[d] {
						continue
					}
					n, err := g.CartRank(y)
					mustOK("CartRank", err)
					if hosts[n] == h && !seen[n] {
						seen[n] = true
						queue = append(queue, n)
					}
				}
			}
		}
		for r, o := range hosts {
			if o == h && !seen[r] {
				fail("reordered %v grid: the processes of %s are not one block: %q", dims, h, hosts)
			}
		}
	}
	mustOK("free", g.Free())
}

// hostsOf is the host of each rank of c.
func hostsOf(c *mpi.Comm) []string {
	size := c.Size()
	name := make([]byte, 64)
	copy(name, mpi.ProcessorName())
	names := make([]byte, 64*size)
	mustOK("Allgather of host names", mpi.Allgather(c, name, names))
	out := make([]string, size)
	for r := range out {
		out[r] = string(bytes.TrimRight(names[64*r:64*(r+1)], "\x00"))
	}
	return out
}

// together checks that along c's ranks each host's processes form one
// run (the wrap joining the last run to the first one counts as one).
func together(what string, c *mpi.Comm) {
	size := c.Size()
	order := hostsOf(c)
	runs, hosts := 0, map[string]bool{}
	for r, h := range order {
		hosts[h] = true
		if r == 0 || h != order[r-1] {
			runs++
		}
	}
	if runs > 1 && order[0] == order[size-1] {
		runs--
	}
	if runs > len(hosts) {
		fail("%s: %d runs of %d hosts (%q)", what, runs, len(hosts), order)
	}
}

// checkRing: on a ring of c's ranks, both neighbours' ranks arrive.
func checkRing(what string, c *mpi.Comm) {
	r, size := c.Rank(), c.Size()
	got := make([]int32, 2)
	mustOK(what, mpi.NeighborAllgather(c, []int32{int32(r)}, got))
	want32(what, got, (r+size-1)%size, (r+1)%size)
}

// checkDirected: on a directed ring of c's ranks, the rank before arrives.
func checkDirected(what string, c *mpi.Comm) {
	r, size := c.Rank(), c.Size()
	s, _, d, _, err := c.DistGraphNeighbors()
	mustOK(what, err)
	if !slices.Equal(s, []int{(r + size - 1) % size}) || !slices.Equal(d, []int{(r + 1) % size}) {
		fail("%s: rank %d: sources %v, destinations %v", what, r, s, d)
	}
	got := make([]int32, 1)
	mustOK(what, mpi.NeighborAllgather(c, []int32{int32(r)}, got))
	want32(what, got, (r+size-1)%size)
}

func checkGraphs(rank, size int) {
	w := mpi.World
	// A graph: every rank linked to rank 0 and to the next one (a wheel
	// without its rim's wrap), as MPI_Graph_create lists it.
	var index, edges []int
	adj := make([][]int, size)
	link := func(a, b int) { adj[a] = append(adj[a], b); adj[b] = append(adj[b], a) }
	for r := 1; r < size; r++ {
		link(0, r)
		if r+1 < size {
			link(r, r+1)
		}
	}
	for r := range size {
		edges = append(edges, adj[r]...)
		index = append(index, len(edges))
	}
	g, err := mpi.GraphCreate(w, index, edges, false)
	mustOK("GraphCreate", err)
	nb, err := g.GraphNeighbors(rank)
	mustOK("GraphNeighbors", err)
	if !slices.Equal(nb, adj[rank]) {
		fail("GraphNeighbors: %v, want %v", nb, adj[rank])
	}
	if n, e, _ := g.GraphdimsGet(); n != size || e != len(edges) {
		fail("GraphdimsGet %d %d", n, e)
	}
	got := make([]int32, len(nb))
	mustOK("NeighborAllgather on a graph", mpi.NeighborAllgather(g, []int32{int32(rank)}, got))
	want32("graph allgather", got, nb...)
	gm, err := w.GraphMap(index, edges)
	mustOK("GraphMap", err)
	rg, err := mpi.GraphCreate(w, index, edges, true)
	mustOK("GraphCreate with reorder", err)
	if rg.Rank() != gm {
		fail("reordered graph rank %d, GraphMap said %d", rg.Rank(), gm)
	}
	mustOK("free", rg.Free())
	mustOK("free", g.Free())

	// A distributed graph, each rank giving its edges to the next two
	// (weighted 1 and 2); the neighbour collectives follow the order
	// DistGraphNeighbors reports.
	d, err := mpi.DistGraphCreate(w, []int{rank}, []int{2}, []int{(rank + 1) % size, (rank + 2) % size}, []int{1, 2}, nil, false)
	mustOK("DistGraphCreate", err)
	src, sw, dst, dw, err := d.DistGraphNeighbors()
	mustOK("DistGraphNeighbors", err)
	if !slices.Equal(dst, []int{(rank + 1) % size, (rank + 2) % size}) || !slices.Equal(dw, []int{1, 2}) || len(src) != 2 {
		fail("DistGraphNeighbors: %v %v %v %v", src, sw, dst, dw)
	}
	for j, s := range src {
		if !(s == (rank+size-1)%size && sw[j] == 1 || s == (rank+size-2)%size && sw[j] == 2) {
			fail("DistGraphNeighbors: sources %v weights %v", src, sw)
		}
	}
	got = make([]int32, 2)
	mustOK("NeighborAlltoall on a dist graph", mpi.NeighborAlltoall(d, []int32{int32(rank*10 + 1), int32(rank*10 + 2)}, got))
	for j, s := range src {
		if got[j] != int32(s*10+sw[j]) {
			fail("dist graph alltoall: %v from %v", got, src)
		}
	}
	mustOK("free", d.Free())

	// DistGraphCreateAdjacent: a chain.
	var in, out []int
	if rank > 0 {
		in = []int{rank - 1}
	}
	if rank < size-1 {
		out = []int{rank + 1}
	}
	a, err := mpi.DistGraphCreateAdjacent(w, in, nil, out, nil, nil, false)
	mustOK("DistGraphCreateAdjacent", err)
	buf := make([]int64, len(in))
	mustOK("NeighborAllgather on a chain", mpi.NeighborAllgather(a, []int64{int64(rank)}, buf))
	if rank > 0 && buf[0] != int64(rank-1) {
		fail("chain: %v", buf)
	}
	mustOK("free", a.Free())
}

// checkMismatch: arguments that differ between processes, or are bad on
// one, are an error on every process, and the world works after.
func checkMismatch(rank, size int) {
	w := mpi.World
	if size > 1 {
		c, err := mpi.CartCreate(w, []int{size}, []bool{rank == 0}, false)
		if c != nil || mpi.Class(err) != mpi.ErrArg {
			fail("periods that differ: %v %v", c, err)
		}
	}
	edges := []int{0}
	if rank == size-1 {
		edges = []int{size} // not a node
	}
	index := make([]int, size) // one edge, from node 0
	for i := range index {
		index[i] = 1
	}
	g, err := mpi.GraphCreate(w, index, edges, false)
	if g != nil || mpi.Class(err) != mpi.ErrArg {
		fail("a bad edge on rank %d: %v %v", size-1, g, err)
	}
	mustOK("Barrier after the errors", mpi.Barrier(w))
}
