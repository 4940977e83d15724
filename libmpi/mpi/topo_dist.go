package mpi

import (
	"slices"

	"github.com/lamgo/lam/libmpi/internal/topo"
)

// Distributed graphs (MPI-2.2 §7.5.4). Weights of nil mean unweighted
// (MPI_UNWEIGHTED). The info argument of the C calls is left out.
//
// The vertices of the graph are the ranks of the new communicator: vertex
// i's edges are those given by (or, for DistGraphCreate, given for) rank
// i of c. With reorder true and processes on several nodes, the whole
// graph is gathered and placed as GraphCreate places a graph (see reorder
// in topo.go): the process that gets rank j takes vertex j's edges, as
// with GraphCreate, so a program must take its part of the data from its
// new rank.

// checkEdges validates a list of ranks of c and its weights.
func (c *Comm) checkEdges(what string, ranks, weights []int) error {
	for _, r := range ranks {
		if r < 0 || r >= len(c.group) {
			return errorf(ErrRank, "%s: rank %d is not in %s (size %d)", what, r, c.name, len(c.group))
		}
	}
	if weights != nil && len(weights) != len(ranks) {
		return errorf(ErrArg, "%s: %d weights for %d ranks", what, len(weights), len(ranks))
	}
	for _, w := range weights {
		if w < 0 {
			return errorf(ErrArg, "%s: negative weight %d", what, w)
		}
	}
	return nil
}

// DistGraphCreateAdjacent makes a duplicate of c with a distributed graph
// topology in which each process gives its own edges: the processes it
// receives from (sources) and sends to (dests), with weights or nil
// (MPI_Dist_graph_create_adjacent). The edges must agree: when a lists b
// among its dests, b lists a among its sources, as many times. info holds
// hints (none is read yet; nil is MPI_INFO_NULL). Collective over c.
func DistGraphCreateAdjacent(c *Comm, sources, sourceWeights, dests, destWeights []int, info *Info, reorder bool) (*Comm, error) {
	if err := topoCheck(c); err != nil {
		return nil, err
	}
	bad := c.checkEdges("sources", sources, sourceWeights)
	if bad == nil {
		bad = c.checkEdges("destinations", dests, destWeights)
	}
	ctx, err := c.agreeTopo(topoSig(DistGraph, reorder), bad)
	if err != nil {
		return nil, err
	}
	d := topo.Dist{Sources: slices.Clone(sources), SourceWeights: slices.Clone(sourceWeights),
		Dests: slices.Clone(dests), DestWeights: slices.Clone(destWeights), Weighted: sourceWeights != nil || destWeights != nil}
	if !reorder || !c.spansNodes() {
		return c.withTopology("dist graph", ctx, topo.Identity(len(c.group)), &topo.Topo{Kind: topo.DistKind, Dist: d}), nil
	}
	// Every process's lists, so that the process placed at position j
	// can take vertex j's.
	n := len(c.group)
	mine := encodeDist(d)
	counts := make([]int64, n)
	if err := Allgather(c, []int64{int64(len(mine))}, counts); err != nil {
		return nil, err
	}
	ic, displs := make([]int, n), make([]int, n)
	total := 0
	for r := range n {
		ic[r], displs[r] = int(counts[r]), total
		total += ic[r]
	}
	all := make([]int64, total)
	if err := Allgatherv(c, mine, all, ic, displs); err != nil {
		return nil, err
	}
	lists := make([]topo.Dist, n)
	var src, dst []int
	for r := range n {
		lists[r] = decodeDist(all[displs[r] : displs[r]+ic[r]])
		for _, x := range lists[r].Dests {
			src, dst = append(src, r), append(dst, x)
		}
	}
	perm := c.placement(n, true, topo.FromEdges(n, src, dst).BFS)
	me := topo.Inverse(perm)[c.rank]
	return c.withTopology("dist graph", ctx, perm, &topo.Topo{Kind: topo.DistKind, Dist: lists[me]}), nil
}

// encodeDist and decodeDist carry a process's lists in a collective:
// the lengths, flags (1: weighted, 2: source weights, 4: destination
// weights), then the lists.
func encodeDist(d topo.Dist) []int64 {
	out := []int64{int64(len(d.Sources)), int64(len(d.Dests)), 0}
	for bit, on := range []bool{d.Weighted, d.SourceWeights != nil, d.DestWeights != nil} {
		if on {
			out[2] |= 1 << bit
		}
	}
	for _, l := range [][]int{d.Sources, d.SourceWeights, d.Dests, d.DestWeights} {
		for _, x := range l {
			out = append(out, int64(x))
		}
	}
	return out
}

func decodeDist(v []int64) topo.Dist {
	ns, nd := int(v[0]), int(v[1])
	flags := v[2]
	d := topo.Dist{Weighted: flags&1 != 0}
	v = v[3:]
	take := func(k int) []int {
		out := make([]int, k)
		for i := range out {
			out[i] = int(v[i])
		}
		v = v[k:]
		return out
	}
	d.Sources = take(ns)
	if flags&2 != 0 {
		d.SourceWeights = take(ns)
	}
	d.Dests = take(nd)
	if flags&4 != 0 {
		d.DestWeights = take(nd)
	}
	return d
}

// spansNodes reports whether c's processes run on more than one node
// (the same answer on every process).
func (c *Comm) spansNodes() bool {
	for _, w := range c.group {
		if w < len(st.nodes) && st.nodes[w] != st.nodes[c.group[0]] {
			return true
		}
	}
	return false
}

// DistGraphCreate makes a duplicate of c with a distributed graph
// topology of which each process gives any edges (MPI_Dist_graph_create):
// for each i, edges from sources[i] to the next degrees[i] entries of
// dests, with as many weights (weights nil: unweighted). Every process
// then learns its own incoming and outgoing edges; two edges between the
// same pair keep their relative order on both sides. info holds hints
// (none is read yet; nil is MPI_INFO_NULL). Collective over c.
func DistGraphCreate(c *Comm, sources, degrees, dests, weights []int, info *Info, reorder bool) (*Comm, error) {
	if err := topoCheck(c); err != nil {
		return nil, err
	}
	var bad error
	if len(degrees) != len(sources) {
		bad = errorf(ErrArg, "%d degrees for %d sources", len(degrees), len(sources))
	}
	total := 0
	for _, d := range degrees {
		if d < 0 && bad == nil {
			bad = errorf(ErrArg, "negative degree %d", d)
		}
		total += max(d, 0)
	}
	if bad == nil && total != len(dests) {
		bad = errorf(ErrArg, "degrees add up to %d for %d destinations", total, len(dests))
	}
	if bad == nil {
		bad = c.checkEdges("sources", sources, nil)
	}
	if bad == nil {
		bad = c.checkEdges("destinations", dests, weights)
	}
	// This process's edges as (source, destination, weight) triples; a
	// process with bad arguments takes part with none and fails after.
	var mine []int64
	if bad == nil {
		k := 0
		for i, s := range sources {
			for range degrees[i] {
				w := int64(-1)
				if weights != nil {
					w = int64(weights[k])
				}
				mine = append(mine, int64(s), int64(dests[k]), w)
				k++
			}
		}
	}
	flag := int64(0)
	if weights != nil {
		flag = 1
	}
	n := len(c.group)
	heads := make([]int64, 2*n)
	if err := Allgather(c, []int64{int64(len(mine)), flag}, heads); err != nil {
		return nil, err
	}
	counts, displs := make([]int, n), make([]int, n)
	all, weighted := 0, false
	for r := range n {
		counts[r], displs[r] = int(heads[2*r]), all
		all += counts[r]
		weighted = weighted || heads[2*r+1] == 1
	}
	edges := make([]int64, all)
	if err := Allgatherv(c, mine, edges, counts, displs); err != nil {
		return nil, err
	}
	perm := topo.Identity(n)
	if reorder && c.spansNodes() {
		var src, dst []int
		for i := 0; i+2 < len(edges); i += 3 {
			src, dst = append(src, int(edges[i])), append(dst, int(edges[i+1]))
		}
		perm = c.placement(n, true, topo.FromEdges(n, src, dst).BFS)
	}
	// The process placed at position me takes vertex me's edges.
	me := topo.Inverse(perm)[c.rank]
	d := topo.Dist{Weighted: weighted}
	for i := 0; i+2 < len(edges); i += 3 {
		s, t, w := int(edges[i]), int(edges[i+1]), int(edges[i+2])
		if t == me {
			d.Sources = append(d.Sources, s)
			d.SourceWeights = append(d.SourceWeights, w)
		}
		if s == me {
			d.Dests = append(d.Dests, t)
			d.DestWeights = append(d.DestWeights, w)
		}
	}
	if !weighted {
		d.SourceWeights, d.DestWeights = nil, nil
	}
	ctx, err := c.agreeTopo(topoSig(DistGraph, reorder), bad)
	if err != nil {
		return nil, err
	}
	return c.withTopology("dist graph", ctx, perm, &topo.Topo{Kind: topo.DistKind, Dist: d}), nil
}

// DistGraphNeighborsCount is the number of edges into and out of this
// process in c's distributed graph, and whether they are weighted
// (MPI_Dist_graph_neighbors_count).
func (c *Comm) DistGraphNeighborsCount() (indegree, outdegree int, weighted bool, err error) {
	t, err := c.topoOf(topo.DistKind, "DistGraphNeighborsCount")
	if err != nil {
		return 0, 0, false, err
	}
	return len(t.Dist.Sources), len(t.Dist.Dests), t.Dist.Weighted, nil
}

// DistGraphNeighbors are this process's sources and destinations in c's
// distributed graph, with their weights (nil when unweighted), in the
// order of the neighbour collectives' blocks (MPI_Dist_graph_neighbors).
func (c *Comm) DistGraphNeighbors() (sources, sourceWeights, dests, destWeights []int, err error) {
	t, err := c.topoOf(topo.DistKind, "DistGraphNeighbors")
	if err != nil {
		return nil, nil, nil, nil, err
	}
	d := t.Dist
	return slices.Clone(d.Sources), slices.Clone(d.SourceWeights), slices.Clone(d.Dests), slices.Clone(d.DestWeights), nil
}
