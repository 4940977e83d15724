package topo

import (
	"errors"
	"slices"
	"testing"
)

// MPI_Dims_create as the standard's examples and the test suites have it.
func TestDimsCreate(t *testing.T) {
	tests := []struct {
		n       int
		in, out []int
		err     error
	}{
		{6, []int{0, 0}, []int{3, 2}, nil},
		{7, []int{0, 0}, []int{7, 1}, nil},
		{6, []int{0, 3, 0}, []int{2, 3, 1}, nil},
		{7, []int{0, 3, 0}, nil, ErrDims},
		{1, []int{0, 0, 0}, []int{1, 1, 1}, nil},
		{16, []int{0, 0, 0}, []int{4, 2, 2}, nil},
		{36, []int{0, 0}, []int{6, 6}, nil},
		{24, []int{0, 0, 0}, []int{4, 3, 2}, nil},
		{12, []int{2, 0, 0}, []int{2, 3, 2}, nil},
		{8, []int{2, 4}, []int{2, 4}, nil},
		{8, []int{2, 3}, nil, ErrDims},
		{8, []int{}, nil, ErrDims},
		{5, []int{-1, 0}, nil, ErrDims},
		{0, []int{0}, nil, ErrArg},
		{30, []int{0}, []int{30}, nil},
	}
	for _, tt := range tests {
		dims := slices.Clone(tt.in)
		err := DimsCreate(tt.n, dims)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("DimsCreate(%d, %v): %v, want %v", tt.n, tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(dims, tt.out) {
			t.Errorf("DimsCreate(%d, %v) = %v, %v; want %v", tt.n, tt.in, dims, err, tt.out)
		}
	}
}

func TestCartRankCoords(t *testing.T) {
	c, err := NewCart([]int{3, 4, 2}, []bool{false, true, false})
	if err != nil {
		t.Fatal(err)
	}
	for r := range c.Size() {
		x, err := c.Coords(r)
		if err != nil {
			t.Fatal(err)
		}
		back, err := c.Rank(x)
		if err != nil || back != r {
			t.Errorf("rank %d → %v → %d %v", r, x, back, err)
		}
	}
	if x, _ := c.Coords(11); !slices.Equal(x, []int{1, 1, 1}) {
		t.Errorf("coords of 11: %v", x)
	}
	// Periodic dimensions wrap; the others do not.
	if r, err := c.Rank([]int{1, -3, 1}); err != nil || r != 11 {
		t.Errorf("rank of (1,-3,1): %d %v", r, err)
	}
	if _, err := c.Rank([]int{3, 0, 0}); !errors.Is(err, ErrRank) {
		t.Errorf("rank of (3,0,0): %v", err)
	}
	if _, err := c.Rank([]int{0, 0}); !errors.Is(err, ErrArg) {
		t.Errorf("two coordinates: %v", err)
	}
	if _, err := c.Coords(24); !errors.Is(err, ErrRank) {
		t.Errorf("coords of 24: %v", err)
	}
	if _, err := NewCart([]int{2, 0}, []bool{false, false}); !errors.Is(err, ErrDims) {
		t.Errorf("a zero dimension: %v", err)
	}
}

// Cart_shift at the edges of periodic and non-periodic grids.
func TestCartShift(t *testing.T) {
	c, _ := NewCart([]int{4, 3}, []bool{false, true})
	tests := []struct {
		rank, dir, disp, src, dst int
	}{
		{0, 0, 1, ProcNull, 3}, // top edge, non-periodic
		{9, 0, 1, 6, ProcNull}, // bottom edge
		{3, 0, 2, ProcNull, 9}, // (1,0) two steps
		{4, 0, -1, 7, 1},       // negative displacement swaps
		{0, 1, 1, 2, 1},        // periodic: (0,0) ← (0,2), → (0,1)
		{2, 1, 1, 1, 0},        // periodic wrap forward
		{5, 1, 3, 5, 5},        // a full turn
		{0, 0, 4, ProcNull, ProcNull},
		{6, 1, 0, 6, 6},
	}
	for _, tt := range tests {
		src, dst, err := c.Shift(tt.rank, tt.dir, tt.disp)
		if err != nil || src != tt.src || dst != tt.dst {
			t.Errorf("Shift(%d, %d, %d) = %d, %d, %v; want %d, %d", tt.rank, tt.dir, tt.disp, src, dst, err, tt.src, tt.dst)
		}
	}
	if _, _, err := c.Shift(0, 2, 1); !errors.Is(err, ErrDims) {
		t.Errorf("direction 2 of 2: %v", err)
	}
}

func TestCartSub(t *testing.T) {
	c, _ := NewCart([]int{2, 3, 4}, []bool{true, false, true})
	seen := map[[2]int]bool{}
	for r := range c.Size() {
		color, key, sub, err := c.Sub(r, []bool{true, false, true})
		if err != nil {
			t.Fatal(err)
		}
		x, _ := c.Coords(r)
		if color != x[1] || key != x[0]*4+x[2] {
			t.Errorf("rank %d %v: color %d key %d", r, x, color, key)
		}
		if !slices.Equal(sub.Dims, []int{2, 4}) || !slices.Equal(sub.Periods, []bool{true, true}) {
			t.Errorf("sub grid %+v", sub)
		}
		if seen[[2]int{color, key}] {
			t.Errorf("color %d key %d twice", color, key)
		}
		seen[[2]int{color, key}] = true
	}
	// Keeping nothing: every process alone, a grid of no dimensions.
	color, key, sub, _ := c.Sub(13, []bool{false, false, false})
	if color != 13 || key != 0 || len(sub.Dims) != 0 || sub.Size() != 1 {
		t.Errorf("nothing kept: %d %d %+v", color, key, sub)
	}
}

func TestGraph(t *testing.T) {
	// MPI-1's example: 4 nodes, 0-1, 0-3, 1-0, 2-3, 3-0, 3-2.
	g, err := NewGraph([]int{2, 3, 4, 6}, []int{1, 3, 0, 3, 0, 2})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int{{1, 3}, {0}, {3}, {0, 2}}
	for r, w := range want {
		nb, err := g.Neighbors(r)
		if err != nil || !slices.Equal(nb, w) {
			t.Errorf("neighbours of %d: %v %v", r, nb, err)
		}
	}
	if _, err := g.Neighbors(4); !errors.Is(err, ErrRank) {
		t.Errorf("rank 4: %v", err)
	}
	for _, bad := range [][2][]int{
		{{2, 1}, {0, 1}},  // decreasing index
		{{1, 2}, {1}},     // index ends past the edges
		{{1, 2}, {0, 2}},  // edge to a node that is not there
		{{1, 2}, {-1, 0}}, // negative edge
	} {
		if _, err := NewGraph(bad[0], bad[1]); !errors.Is(err, ErrEdges) {
			t.Errorf("NewGraph(%v, %v): %v", bad[0], bad[1], err)
		}
	}
	if o := g.BFS(); !slices.Equal(o, []int{0, 1, 3, 2}) {
		t.Errorf("BFS %v", o)
	}
}

// Cart edges: block 2d comes from the neighbour back with the tag it
// used to send forward.
func TestCartEdges(t *testing.T) {
	c, _ := NewCart([]int{2, 3}, []bool{true, false})
	in, out := (&Topo{Kind: CartKind, Cart: c}).Edges(0)
	if !slices.Equal(in, []Edge{{3, 1}, {3, 0}, {ProcNull, 3}, {1, 2}}) || !slices.Equal(out, []Edge{{3, 0}, {3, 1}, {ProcNull, 2}, {1, 3}}) {
		t.Errorf("edges of 0: in %v out %v", in, out)
	}
}

// cut counts the edges between processes of different nodes.
func cut(g Graph, perm []int, nodes []int32) int {
	n := 0
	for v := range g.Size() {
		nb, _ := g.Neighbors(v)
		for _, w := range nb {
			if nodes[perm[v]] != nodes[perm[w]] {
				n++
			}
		}
	}
	return n
}

func TestPlace(t *testing.T) {
	// One node, or processes already grouped: nothing moves.
	for _, nodes := range [][]int32{{0, 0, 0, 0}, {3, 3, 1, 1}} {
		if p := Place(nodes, Identity(4)); !slices.Equal(p, []int{0, 1, 2, 3}) {
			t.Errorf("Place(%v) = %v", nodes, p)
		}
	}
	// A ring of 8 on 2 nodes dealt round robin: every edge crosses nodes
	// as it is; placed, only 2 do.
	ring := Graph{Index: make([]int, 8), Edges: make([]int, 16)}
	for v := range 8 {
		ring.Index[v] = 2 * (v + 1)
		ring.Edges[2*v], ring.Edges[2*v+1] = (v+7)%8, (v+1)%8
	}
	nodes := []int32{0, 1, 0, 1, 0, 1, 0, 1}
	if c := cut(ring, Identity(8), nodes); c != 16 {
		t.Errorf("identity cuts %d", c)
	}
	p := Place(nodes, Identity(8))
	if c := cut(ring, p, nodes); c != 4 {
		t.Errorf("placed %v cuts %d edges", p, c)
	}
	if s := slices.Sorted(slices.Values(p)); !slices.Equal(s, Identity(8)) {
		t.Errorf("not a permutation: %v", p)
	}
	// A graph placed in BFS order: a star of two nodes' worth.
	bp := Place(nodes, ring.BFS())
	if s := slices.Sorted(slices.Values(bp)); !slices.Equal(s, Identity(8)) {
		t.Errorf("not a permutation: %v", bp)
	}
	if c := cut(ring, bp, nodes); c > 8 {
		t.Errorf("BFS placement %v cuts %d edges", bp, c)
	}
}

func TestFromEdges(t *testing.T) {
	g := FromEdges(3, []int{2, 0, 2}, []int{0, 1, 1})
	if !slices.Equal(g.Index, []int{1, 1, 3}) || !slices.Equal(g.Edges, []int{1, 0, 1}) {
		t.Errorf("FromEdges: %+v", g)
	}
	inv := Inverse([]int{2, 0, 1})
	if !slices.Equal(inv, []int{1, 2, 0}) || !slices.Equal(Translate([]int{0, 0, 2}, inv), []int{1, 1, 0}) || Translate(nil, inv) != nil {
		t.Errorf("Inverse %v", inv)
	}
}

// cartCut counts the grid's edges between processes of different nodes
// when position i is held by process perm[i].
func cartCut(c Cart, perm []int, nodes []int32) int {
	n := 0
	for r := range c.Size() {
		for d := range c.Dims {
			_, dst, _ := c.Shift(r, d, 1)
			if dst != ProcNull && nodes[perm[r]] != nodes[perm[dst]] {
				n++
			}
		}
	}
	return n
}

func TestCartOrder(t *testing.T) {
	c, _ := NewCart([]int{4, 4}, []bool{false, false})
	o := c.Order()
	if s := slices.Sorted(slices.Values(o)); !slices.Equal(s, Identity(16)) {
		t.Fatalf("not a permutation: %v", o)
	}
	// 4 nodes of 4 processes, in rank order: rows cut 12 edges, the
	// bisection's 2x2 tiles 8.
	nodes := []int32{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}
	if n := cartCut(c, Identity(16), nodes); n != 12 {
		t.Errorf("row-major cuts %d", n)
	}
	if n := cartCut(c, Place(nodes, o), nodes); n != 8 {
		t.Errorf("bisection order %v cuts %d", o, n)
	}
	// Dealt round robin: every edge crosses; placed, 8 again.
	rr := []int32{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}
	if n := cartCut(c, Place(rr, o), rr); n != 8 {
		t.Errorf("round robin placed cuts %d", n)
	}
	// One dimension, or odd sizes: still a permutation; 1-D in order.
	line, _ := NewCart([]int{7}, []bool{true})
	if o := line.Order(); !slices.Equal(o, Identity(7)) {
		t.Errorf("1-D order %v", o)
	}
	odd, _ := NewCart([]int{3, 5, 2}, []bool{false, true, false})
	if s := slices.Sorted(slices.Values(odd.Order())); !slices.Equal(s, Identity(30)) {
		t.Errorf("3x5x2 order not a permutation")
	}
	none, _ := NewCart([]int{}, []bool{})
	if o := none.Order(); !slices.Equal(o, []int{0}) {
		t.Errorf("0-D order %v", o)
	}
}
