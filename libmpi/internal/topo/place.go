package topo

import "slices"

// Place chooses which process takes which position of a topology when
// reorder is asked for: nodes[i] is the node of the process of old rank i
// (one per position), order lists the positions so that neighbours come
// close together (row-major order for a grid, breadth-first order for a
// graph). The processes, grouped by node (nodes in the order they first
// appear, ranks in order within a node), take the positions in that
// order, so each node holds a run of neighbouring positions and most
// edges stay inside a node. It returns perm, perm[position] = old rank.
// On one node, or when the processes are already grouped by node and the
// order is the identity, nothing moves.
func Place(nodes []int32, order []int) []int {
	n := len(nodes)
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	first := map[int32]int{}
	for i, x := range nodes {
		if _, ok := first[x]; !ok {
			first[x] = i
		}
	}
	if len(first) <= 1 || len(order) != n {
		return perm
	}
	byNode := slices.Clone(perm)
	slices.SortStableFunc(byNode, func(a, b int) int { return first[nodes[a]] - first[nodes[b]] })
	for k, pos := range order {
		perm[pos] = byNode[k]
	}
	return perm
}

// Identity is the order 0..n-1 (a grid's row-major order).
func Identity(n int) []int {
	o := make([]int, n)
	for i := range o {
		o[i] = i
	}
	return o
}

// BFS is a breadth-first order of the nodes of a graph, its edges taken
// both ways, from node 0 and then from each node not yet reached.
func (g Graph) BFS() []int {
	n := g.Size()
	adj := make([][]int, n)
	for v := range n {
		nb, _ := g.Neighbors(v)
		for _, w := range nb {
			adj[v] = append(adj[v], w)
			adj[w] = append(adj[w], v)
		}
	}
	seen := make([]bool, n)
	var order []int
	for s := range n {
		if seen[s] {
			continue
		}
		seen[s] = true
		queue := []int{s}
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			order = append(order, v)
			for _, w := range adj[v] {
				if !seen[w] {
					seen[w] = true
					queue = append(queue, w)
				}
			}
		}
	}
	return order
}

// FromEdges is the graph of n nodes with an edge from src[i] to dst[i]
// for every i (a distributed graph made whole, for Place).
func FromEdges(n int, src, dst []int) Graph {
	adj := make([][]int, n)
	for i, s := range src {
		adj[s] = append(adj[s], dst[i])
	}
	g := Graph{Index: make([]int, n)}
	for v := range n {
		g.Edges = append(g.Edges, adj[v]...)
		g.Index[v] = len(g.Edges)
	}
	return g
}

// Inverse is the inverse of a permutation: inv[perm[i]] = i.
func Inverse(perm []int) []int {
	inv := make([]int, len(perm))
	for i, p := range perm {
		inv[p] = i
	}
	return inv
}

// Translate maps ranks through a permutation's inverse (old rank → new).
func Translate(ranks, inv []int) []int {
	if ranks == nil {
		return nil
	}
	out := make([]int, len(ranks))
	for i, r := range ranks {
		out[i] = inv[r]
	}
	return out
}

// Order is an order of the grid's positions for Place in which every run
// of consecutive positions is a compact block of the grid: the grid is
// cut in two across its longest dimension, and each half in turn, down to
// single positions (recursive bisection). A run of k positions, the
// processes of a node, is then close to a k-cell tile, which has fewer
// edges leaving it than k cells of a row. A one-dimensional grid keeps
// its order.
func (c Cart) Order() []int {
	n := c.Size()
	order := make([]int, 0, n)
	lo := make([]int, len(c.Dims))
	hi := slices.Clone(c.Dims)
	var cut func(lo, hi []int)
	cut = func(lo, hi []int) {
		d, ext := -1, 1
		for i := range lo {
			if hi[i]-lo[i] > ext {
				d, ext = i, hi[i]-lo[i]
			}
		}
		if d < 0 {
			r, _ := c.Rank(lo)
			order = append(order, r)
			return
		}
		mid := lo[d] + ext/2
		h1, l2 := slices.Clone(hi), slices.Clone(lo)
		h1[d], l2[d] = mid, mid
		cut(lo, h1)
		cut(l2, hi)
	}
	if n > 0 {
		cut(lo, hi)
	}
	return order
}
