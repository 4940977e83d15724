package mpi

import (
	"slices"

	"github.com/lamgo/lam/libmpi/internal/topo"
)

// Distributed graphs (MPI-2.2 §7.5.4). Weights of nil mean unweighted
// (MPI_UNWEIGHTED). The info argument of the C calls is left out; reorder
// is accepted and ignored (see the topology section in topo.go).

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
// among its dests, b lists a among its sources, as many times. Collective
// over c.
func DistGraphCreateAdjacent(c *Comm, sources, sourceWeights, dests, destWeights []int, reorder bool) (*Comm, error) {
	if err := topoCheck(c); err != nil {
		return nil, err
	}
	if err := c.checkEdges("sources", sources, sourceWeights); err != nil {
		return nil, c.fail(err)
	}
	if err := c.checkEdges("destinations", dests, destWeights); err != nil {
		return nil, c.fail(err)
	}
	d := topo.Dist{Sources: slices.Clone(sources), SourceWeights: slices.Clone(sourceWeights),
		Dests: slices.Clone(dests), DestWeights: slices.Clone(destWeights), Weighted: sourceWeights != nil || destWeights != nil}
	return c.withTopology("dist graph", topo.Identity(len(c.group)), &topo.Topo{Kind: topo.DistKind, Dist: d})
}

// DistGraphCreate makes a duplicate of c with a distributed graph
// topology of which each process gives any edges (MPI_Dist_graph_create):
// for each i, edges from sources[i] to the next degrees[i] entries of
// dests, with as many weights (weights nil: unweighted). Every process
// then learns its own incoming and outgoing edges; two edges between the
// same pair keep their relative order on both sides. Collective over c.
func DistGraphCreate(c *Comm, sources, degrees, dests, weights []int, reorder bool) (*Comm, error) {
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
	if bad != nil {
		return nil, c.fail(bad)
	}
	d := topo.Dist{Weighted: weighted}
	for i := 0; i+2 < len(edges); i += 3 {
		s, t, w := int(edges[i]), int(edges[i+1]), int(edges[i+2])
		if t == c.rank {
			d.Sources = append(d.Sources, s)
			d.SourceWeights = append(d.SourceWeights, w)
		}
		if s == c.rank {
			d.Dests = append(d.Dests, t)
			d.DestWeights = append(d.DestWeights, w)
		}
	}
	if !weighted {
		d.SourceWeights, d.DestWeights = nil, nil
	}
	return c.withTopology("dist graph", topo.Identity(n), &topo.Topo{Kind: topo.DistKind, Dist: d})
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
