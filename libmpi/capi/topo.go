package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include "mpi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// Topologies (MPI-1 §6, MPI-2.2 §7.5) and the neighbour collectives
// (MPI-3 §7.6) over the Go API's. MPI_CART and MPI_GRAPH keep LAM's
// numbers, which are not the Go API's.

// cBools is n C ints at p as Go bools (nil for none).
func cBools(p *C.int, n int) []bool {
	if p == nil || n <= 0 {
		return nil
	}
	out := make([]bool, n)
	for i, v := range unsafe.Slice(p, n) {
		out[i] = v != 0
	}
	return out
}

// The special weight arrays of the distributed graph calls.
func isUnweighted(p *C.int) bool   { return uintptr(unsafe.Pointer(p)) == 2 }
func isWeightsEmpty(p *C.int) bool { return uintptr(unsafe.Pointer(p)) == 3 }

//export capi_Topo_test
func capi_Topo_test(comm C.MPI_Comm, status *C.int) C.int {
	c, rc := commOut(comm, status, "MPI_Topo_test", "status")
	if c == nil {
		return rc
	}
	k, err := c.TopoTest()
	if err != nil {
		return code(err)
	}
	switch k {
	case mpi.Cart:
		*status = C.MPI_CART
	case mpi.Graph:
		*status = C.MPI_GRAPH
	case mpi.DistGraph:
		*status = C.MPI_DIST_GRAPH
	default:
		*status = C.MPI_UNDEFINED
	}
	return C.MPI_SUCCESS
}

//export capi_Dims_create
func capi_Dims_create(nnodes, ndims C.int, dims *C.int) C.int {
	switch {
	case ndims < 0:
		return fail(nil, mpi.ErrDims, "MPI_Dims_create: negative ndims")
	case ndims > 0 && dims == nil:
		return fail(nil, mpi.ErrArg, "MPI_Dims_create: NULL dims")
	}
	d := ints(dims, int(ndims))
	if err := mpi.DimsCreate(int(nnodes), d); err != nil {
		return code(err)
	}
	putInts(dims, d)
	return C.MPI_SUCCESS
}

//export capi_Cart_create
func capi_Cart_create(comm C.MPI_Comm, ndims C.int, dims, periods *C.int, reorder C.int, newcomm *C.MPI_Comm) C.int {
	c, rc := commArg(comm, "MPI_Cart_create")
	if c == nil {
		return rc
	}
	switch {
	case ndims < 0:
		return fail(c, mpi.ErrDims, "MPI_Cart_create: negative ndims")
	case ndims > 0 && (dims == nil || periods == nil):
		return fail(c, mpi.ErrArg, "MPI_Cart_create: NULL dims or periods")
	case newcomm == nil:
		return fail(c, mpi.ErrArg, "MPI_Cart_create: NULL comm_cart")
	}
	n, err := mpi.CartCreate(c, ints(dims, int(ndims)), cBools(periods, int(ndims)), reorder != 0)
	if err != nil {
		*newcomm = C.MPI_COMM_NULL
		return code(err)
	}
	putComm(n, newcomm)
	return C.MPI_SUCCESS
}

//export capi_Cart_map
func capi_Cart_map(comm C.MPI_Comm, ndims C.int, dims, periods *C.int, newrank *C.int) C.int {
	c, rc := commArg(comm, "MPI_Cart_map")
	if c == nil {
		return rc
	}
	switch {
	case ndims < 0:
		return fail(c, mpi.ErrDims, "MPI_Cart_map: negative ndims")
	case ndims > 0 && (dims == nil || periods == nil):
		return fail(c, mpi.ErrArg, "MPI_Cart_map: NULL dims or periods")
	case newrank == nil:
		return fail(c, mpi.ErrArg, "MPI_Cart_map: NULL newrank")
	}
	r, err := c.CartMap(ints(dims, int(ndims)), cBools(periods, int(ndims)))
	if err != nil {
		return code(err)
	}
	*newrank = C.int(r)
	return C.MPI_SUCCESS
}

//export capi_Cartdim_get
func capi_Cartdim_get(comm C.MPI_Comm, ndims *C.int) C.int {
	c, rc := commOut(comm, ndims, "MPI_Cartdim_get", "ndims")
	if c == nil {
		return rc
	}
	n, err := c.CartdimGet()
	if err != nil {
		return code(err)
	}
	*ndims = C.int(n)
	return C.MPI_SUCCESS
}

//export capi_Cart_get
func capi_Cart_get(comm C.MPI_Comm, maxdims C.int, dims, periods, coords *C.int) C.int {
	c, rc := commArg(comm, "MPI_Cart_get")
	if c == nil {
		return rc
	}
	d, p, x, err := c.CartGet()
	if err != nil {
		return code(err)
	}
	n := min(int(maxdims), len(d))
	if n > 0 && (dims == nil || periods == nil || coords == nil) {
		return fail(c, mpi.ErrArg, "MPI_Cart_get: NULL dims, periods or coords")
	}
	if n > 0 {
		cp := unsafe.Slice(periods, n)
		for i := range n {
			cp[i] = cBool(p[i])
		}
		putInts(dims, d[:n])
		putInts(coords, x[:n])
	}
	return C.MPI_SUCCESS
}

//export capi_Cart_rank
func capi_Cart_rank(comm C.MPI_Comm, coords *C.int, rank *C.int) C.int {
	c, rc := commArg(comm, "MPI_Cart_rank")
	if c == nil {
		return rc
	}
	n, err := c.CartdimGet()
	if err != nil {
		return code(err)
	}
	switch {
	case n > 0 && coords == nil:
		return fail(c, mpi.ErrArg, "MPI_Cart_rank: NULL coords")
	case rank == nil:
		return fail(c, mpi.ErrArg, "MPI_Cart_rank: NULL rank")
	}
	r, err := c.CartRank(ints(coords, n))
	if err != nil {
		return code(err)
	}
	*rank = C.int(r)
	return C.MPI_SUCCESS
}

//export capi_Cart_coords
func capi_Cart_coords(comm C.MPI_Comm, rank, maxdims C.int, coords *C.int) C.int {
	c, rc := commArg(comm, "MPI_Cart_coords")
	if c == nil {
		return rc
	}
	x, err := c.CartCoords(int(rank))
	if err != nil {
		return code(err)
	}
	n := min(int(maxdims), len(x))
	if n > 0 && coords == nil {
		return fail(c, mpi.ErrArg, "MPI_Cart_coords: NULL coords")
	}
	putInts(coords, x[:max(n, 0)])
	return C.MPI_SUCCESS
}

//export capi_Cart_shift
func capi_Cart_shift(comm C.MPI_Comm, direction, disp C.int, source, dest *C.int) C.int {
	c, rc := commArg(comm, "MPI_Cart_shift")
	if c == nil {
		return rc
	}
	if source == nil || dest == nil {
		return fail(c, mpi.ErrArg, "MPI_Cart_shift: NULL rank_source or rank_dest")
	}
	s, d, err := c.CartShift(int(direction), int(disp))
	if err != nil {
		return code(err)
	}
	*source, *dest = C.int(s), C.int(d) // mpi.ProcNull is MPI_PROC_NULL
	return C.MPI_SUCCESS
}

//export capi_Cart_sub
func capi_Cart_sub(comm C.MPI_Comm, remain *C.int, newcomm *C.MPI_Comm) C.int {
	c, rc := commArg(comm, "MPI_Cart_sub")
	if c == nil {
		return rc
	}
	n, err := c.CartdimGet()
	if err != nil {
		return code(err)
	}
	switch {
	case n > 0 && remain == nil:
		return fail(c, mpi.ErrArg, "MPI_Cart_sub: NULL remain_dims")
	case newcomm == nil:
		return fail(c, mpi.ErrArg, "MPI_Cart_sub: NULL newcomm")
	}
	s, err := c.CartSub(cBools(remain, n))
	if err != nil {
		*newcomm = C.MPI_COMM_NULL
		return code(err)
	}
	putComm(s, newcomm)
	return C.MPI_SUCCESS
}

// graphArgs reads MPI_Graph_create's and MPI_Graph_map's index and edges.
func graphArgs(c *mpi.Comm, nnodes C.int, index, edges *C.int, fn string) (ix, es []int, rc C.int) {
	switch {
	case nnodes < 0:
		return nil, nil, fail(c, mpi.ErrArg, fn+": negative nnodes")
	case nnodes > 0 && index == nil:
		return nil, nil, fail(c, mpi.ErrArg, fn+": NULL index")
	}
	ix = ints(index, int(nnodes))
	ne := 0
	if len(ix) > 0 {
		ne = ix[len(ix)-1]
	}
	switch {
	case ne < 0:
		return nil, nil, fail(c, mpi.ErrArg, fn+": negative edge count")
	case ne > 0 && edges == nil:
		return nil, nil, fail(c, mpi.ErrArg, fn+": NULL edges")
	}
	return ix, ints(edges, ne), C.MPI_SUCCESS
}

//export capi_Graph_create
func capi_Graph_create(comm C.MPI_Comm, nnodes C.int, index, edges *C.int, reorder C.int, newcomm *C.MPI_Comm) C.int {
	c, rc := commOut(comm, newcomm, "MPI_Graph_create", "comm_graph")
	if c == nil {
		return rc
	}
	ix, es, rc := graphArgs(c, nnodes, index, edges, "MPI_Graph_create")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	n, err := mpi.GraphCreate(c, ix, es, reorder != 0)
	if err != nil {
		*newcomm = C.MPI_COMM_NULL
		return code(err)
	}
	putComm(n, newcomm)
	return C.MPI_SUCCESS
}

//export capi_Graph_map
func capi_Graph_map(comm C.MPI_Comm, nnodes C.int, index, edges *C.int, newrank *C.int) C.int {
	c, rc := commOut(comm, newrank, "MPI_Graph_map", "newrank")
	if c == nil {
		return rc
	}
	ix, es, rc := graphArgs(c, nnodes, index, edges, "MPI_Graph_map")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	r, err := c.GraphMap(ix, es)
	if err != nil {
		return code(err)
	}
	*newrank = C.int(r)
	return C.MPI_SUCCESS
}

//export capi_Graphdims_get
func capi_Graphdims_get(comm C.MPI_Comm, nnodes, nedges *C.int) C.int {
	c, rc := commArg(comm, "MPI_Graphdims_get")
	if c == nil {
		return rc
	}
	if nnodes == nil || nedges == nil {
		return fail(c, mpi.ErrArg, "MPI_Graphdims_get: NULL nnodes or nedges")
	}
	n, e, err := c.GraphdimsGet()
	if err != nil {
		return code(err)
	}
	*nnodes, *nedges = C.int(n), C.int(e)
	return C.MPI_SUCCESS
}

//export capi_Graph_get
func capi_Graph_get(comm C.MPI_Comm, maxindex, maxedges C.int, index, edges *C.int) C.int {
	c, rc := commArg(comm, "MPI_Graph_get")
	if c == nil {
		return rc
	}
	ix, es, err := c.GraphGet()
	if err != nil {
		return code(err)
	}
	ix, es = ix[:max(0, min(int(maxindex), len(ix)))], es[:max(0, min(int(maxedges), len(es)))]
	if len(ix) > 0 && index == nil || len(es) > 0 && edges == nil {
		return fail(c, mpi.ErrArg, "MPI_Graph_get: NULL index or edges")
	}
	putInts(index, ix)
	putInts(edges, es)
	return C.MPI_SUCCESS
}

//export capi_Graph_neighbors_count
func capi_Graph_neighbors_count(comm C.MPI_Comm, rank C.int, n *C.int) C.int {
	c, rc := commOut(comm, n, "MPI_Graph_neighbors_count", "nneighbors")
	if c == nil {
		return rc
	}
	k, err := c.GraphNeighborsCount(int(rank))
	if err != nil {
		return code(err)
	}
	*n = C.int(k)
	return C.MPI_SUCCESS
}

//export capi_Graph_neighbors
func capi_Graph_neighbors(comm C.MPI_Comm, rank, maxneighbors C.int, neighbors *C.int) C.int {
	c, rc := commArg(comm, "MPI_Graph_neighbors")
	if c == nil {
		return rc
	}
	nb, err := c.GraphNeighbors(int(rank))
	if err != nil {
		return code(err)
	}
	nb = nb[:max(0, min(int(maxneighbors), len(nb)))]
	if len(nb) > 0 && neighbors == nil {
		return fail(c, mpi.ErrArg, "MPI_Graph_neighbors: NULL neighbors")
	}
	putInts(neighbors, nb)
	return C.MPI_SUCCESS
}

// weightsArg reads a weights array of n entries: nil for MPI_UNWEIGHTED,
// empty for MPI_WEIGHTS_EMPTY (weighted, no edges).
func weightsArg(p *C.int, n int) []int {
	switch {
	case p == nil || isUnweighted(p):
		return nil
	case isWeightsEmpty(p) || n == 0:
		return []int{}
	}
	return ints(p, n)
}

//export capi_Dist_graph_create
func capi_Dist_graph_create(comm C.MPI_Comm, n C.int, sources, degrees, dests, weights *C.int, info C.MPI_Info, reorder C.int, newcomm *C.MPI_Comm) C.int {
	c, rc := commArg(comm, "MPI_Dist_graph_create")
	if c == nil {
		return rc
	}
	in, rc := infoArg(c, info, true, "MPI_Dist_graph_create")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	switch {
	case n < 0:
		return fail(c, mpi.ErrArg, "MPI_Dist_graph_create: negative n")
	case n > 0 && (sources == nil || degrees == nil):
		return fail(c, mpi.ErrArg, "MPI_Dist_graph_create: NULL sources or degrees")
	case newcomm == nil:
		return fail(c, mpi.ErrArg, "MPI_Dist_graph_create: NULL comm_dist_graph")
	}
	src, deg := ints(sources, int(n)), ints(degrees, int(n))
	ne := 0
	for _, d := range deg {
		if d < 0 {
			return fail(c, mpi.ErrArg, "MPI_Dist_graph_create: negative degree")
		}
		ne += d
	}
	if ne > 0 && dests == nil {
		return fail(c, mpi.ErrArg, "MPI_Dist_graph_create: NULL destinations")
	}
	nc, err := mpi.DistGraphCreate(c, src, deg, ints(dests, ne), weightsArg(weights, ne), in, reorder != 0)
	if err != nil {
		*newcomm = C.MPI_COMM_NULL
		return code(err)
	}
	putComm(nc, newcomm)
	return C.MPI_SUCCESS
}

//export capi_Dist_graph_create_adjacent
func capi_Dist_graph_create_adjacent(comm C.MPI_Comm, indegree C.int, sources, sourceweights *C.int, outdegree C.int, dests, destweights *C.int, info C.MPI_Info, reorder C.int, newcomm *C.MPI_Comm) C.int {
	c, rc := commArg(comm, "MPI_Dist_graph_create_adjacent")
	if c == nil {
		return rc
	}
	in, rc := infoArg(c, info, true, "MPI_Dist_graph_create_adjacent")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	switch {
	case indegree < 0 || outdegree < 0:
		return fail(c, mpi.ErrArg, "MPI_Dist_graph_create_adjacent: negative degree")
	case indegree > 0 && sources == nil || outdegree > 0 && dests == nil:
		return fail(c, mpi.ErrArg, "MPI_Dist_graph_create_adjacent: NULL sources or destinations")
	case newcomm == nil:
		return fail(c, mpi.ErrArg, "MPI_Dist_graph_create_adjacent: NULL comm_dist_graph")
	}
	nc, err := mpi.DistGraphCreateAdjacent(c, ints(sources, int(indegree)), weightsArg(sourceweights, int(indegree)),
		ints(dests, int(outdegree)), weightsArg(destweights, int(outdegree)), in, reorder != 0)
	if err != nil {
		*newcomm = C.MPI_COMM_NULL
		return code(err)
	}
	putComm(nc, newcomm)
	return C.MPI_SUCCESS
}

//export capi_Dist_graph_neighbors_count
func capi_Dist_graph_neighbors_count(comm C.MPI_Comm, indegree, outdegree, weighted *C.int) C.int {
	c, rc := commArg(comm, "MPI_Dist_graph_neighbors_count")
	if c == nil {
		return rc
	}
	if indegree == nil || outdegree == nil || weighted == nil {
		return fail(c, mpi.ErrArg, "MPI_Dist_graph_neighbors_count: NULL argument")
	}
	i, o, w, err := c.DistGraphNeighborsCount()
	if err != nil {
		return code(err)
	}
	*indegree, *outdegree, *weighted = C.int(i), C.int(o), cBool(w)
	return C.MPI_SUCCESS
}

//export capi_Dist_graph_neighbors
func capi_Dist_graph_neighbors(comm C.MPI_Comm, maxindegree C.int, sources, sourceweights *C.int, maxoutdegree C.int, dests, destweights *C.int) C.int {
	c, rc := commArg(comm, "MPI_Dist_graph_neighbors")
	if c == nil {
		return rc
	}
	src, sw, dst, dw, err := c.DistGraphNeighbors()
	if err != nil {
		return code(err)
	}
	ni, no := max(0, min(int(maxindegree), len(src))), max(0, min(int(maxoutdegree), len(dst)))
	if ni > 0 && sources == nil || no > 0 && dests == nil {
		return fail(c, mpi.ErrArg, "MPI_Dist_graph_neighbors: NULL sources or destinations")
	}
	putInts(sources, src[:ni])
	putInts(dests, dst[:no])
	if sw != nil && sourceweights != nil && !isUnweighted(sourceweights) && !isWeightsEmpty(sourceweights) {
		putInts(sourceweights, sw[:min(ni, len(sw))])
	}
	if dw != nil && destweights != nil && !isUnweighted(destweights) && !isWeightsEmpty(destweights) {
		putInts(destweights, dw[:min(no, len(dw))])
	}
	return C.MPI_SUCCESS
}
