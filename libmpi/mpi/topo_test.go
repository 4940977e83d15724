package mpi_test

import (
	"slices"
	"testing"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// The tests here run in a world of one process; the multi-process
// behaviours are testprog's "topo" suite (shared/integration).

func TestDimsCreate(t *testing.T) {
	tests := []struct {
		n       int
		in, out []int
		class   mpi.ErrorClass
	}{
		{6, []int{0, 0}, []int{3, 2}, mpi.Success},
		{7, []int{0, 0}, []int{7, 1}, mpi.Success},
		{6, []int{0, 3, 0}, []int{2, 3, 1}, mpi.Success},
		{7, []int{0, 3, 0}, nil, mpi.ErrDims},
		{12, []int{0, 0, 0}, []int{3, 2, 2}, mpi.Success},
		{0, []int{0}, nil, mpi.ErrArg},
	}
	for _, tt := range tests {
		dims := slices.Clone(tt.in)
		err := mpi.DimsCreate(tt.n, dims)
		if mpi.Class(err) != tt.class || tt.class == mpi.Success && !slices.Equal(dims, tt.out) {
			t.Errorf("DimsCreate(%d, %v) = %v, %v", tt.n, tt.in, dims, err)
		}
	}
}

func TestCartSingleton(t *testing.T) {
	if k, err := mpi.World.TopoTest(); k != mpi.Undefined || err != nil {
		t.Errorf("World's topology: %d %v", k, err)
	}
	if _, _, err := mpi.World.CartShift(0, 1); mpi.Class(err) != mpi.ErrTopology {
		t.Errorf("CartShift on World: %v", err)
	}
	if _, err := mpi.CartCreate(mpi.World, []int{2}, []bool{false}, false); mpi.Class(err) != mpi.ErrDims {
		t.Errorf("a grid of 2 on 1 process: %v", err)
	}
	if _, err := mpi.CartCreate(mpi.World, []int{1}, []bool{false, true}, false); mpi.Class(err) != mpi.ErrArg {
		t.Errorf("two periods for one dimension: %v", err)
	}
	c, err := mpi.CartCreate(mpi.World, []int{1, 1}, []bool{true, false}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free()
	c.SetErrhandler(mpi.ErrorsReturn)
	if k, _ := c.TopoTest(); k != mpi.Cart {
		t.Errorf("TopoTest %d", k)
	}
	dims, periods, coords, err := c.CartGet()
	if err != nil || !slices.Equal(dims, []int{1, 1}) || !slices.Equal(periods, []bool{true, false}) || !slices.Equal(coords, []int{0, 0}) {
		t.Errorf("CartGet: %v %v %v %v", dims, periods, coords, err)
	}
	if n, _ := c.CartdimGet(); n != 2 {
		t.Errorf("CartdimGet %d", n)
	}
	// Periodic: oneself both ways; not periodic: nobody.
	if s, d, err := c.CartShift(0, 1); s != 0 || d != 0 || err != nil {
		t.Errorf("periodic shift: %d %d %v", s, d, err)
	}
	if s, d, err := c.CartShift(1, 1); s != mpi.ProcNull || d != mpi.ProcNull || err != nil {
		t.Errorf("non-periodic shift: %d %d %v", s, d, err)
	}
	if _, _, err := c.CartShift(2, 1); mpi.Class(err) != mpi.ErrDims {
		t.Errorf("shift in dimension 2: %v", err)
	}
	if r, err := c.CartRank([]int{5, 0}); r != 0 || err != nil {
		t.Errorf("CartRank of a wrapped coordinate: %d %v", r, err)
	}
	if _, err := c.CartRank([]int{0, 1}); mpi.Class(err) != mpi.ErrRank {
		t.Errorf("CartRank beyond a non-periodic edge: %v", err)
	}
	if _, err := c.CartCoords(1); mpi.Class(err) != mpi.ErrRank {
		t.Errorf("CartCoords(1): %v", err)
	}
	if r, err := mpi.World.CartMap([]int{1}, []bool{false}); r != 0 || err != nil {
		t.Errorf("CartMap: %d %v", r, err)
	}
	// A duplicate keeps the topology; a sub-grid keeps the dimensions
	// asked for.
	d, err := c.Dup()
	if err != nil {
		t.Fatal(err)
	}
	if dims, _, _, err := d.CartGet(); err != nil || len(dims) != 2 {
		t.Errorf("the duplicate's grid: %v %v", dims, err)
	}
	d.Free()
	s, err := c.CartSub([]bool{false, true})
	if err != nil {
		t.Fatal(err)
	}
	if dims, periods, _, err := s.CartGet(); err != nil || !slices.Equal(dims, []int{1}) || !slices.Equal(periods, []bool{false}) {
		t.Errorf("sub-grid: %v %v %v", dims, periods, err)
	}
	s.Free()
	// Neighbour collectives on a periodic ring of one: both neighbours
	// are this process, and the tags keep the directions apart.
	ring, err := mpi.CartCreate(mpi.World, []int{1}, []bool{true}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer ring.Free()
	got := make([]int32, 4)
	if err := mpi.NeighborAllgather(ring, []int32{7, 8}, got); err != nil || !slices.Equal(got, []int32{7, 8, 7, 8}) {
		t.Errorf("NeighborAllgather: %v %v", got, err)
	}
	// Block 0 goes back and comes in forward: the blocks swap.
	if err := mpi.NeighborAlltoall(ring, []int32{1, 2}, got[:2]); err != nil || !slices.Equal(got[:2], []int32{2, 1}) {
		t.Errorf("NeighborAlltoall: %v %v", got[:2], err)
	}
	if err := mpi.NeighborAlltoallv(ring, []float64{1, 2, 3}, []int{1, 2}, []int{0, 1}, make([]float64, 3), []int{2, 1}, []int{0, 2}); err != nil {
		t.Errorf("NeighborAlltoallv: %v", err)
	}
	v := make([]int64, 5)
	if err := mpi.NeighborAllgatherv(ring, []int64{4, 5}, v, []int{2, 2}, []int{3, 0}); err != nil || !slices.Equal(v, []int64{4, 5, 0, 4, 5}) {
		t.Errorf("NeighborAllgatherv: %v %v", v, err)
	}
	if err := mpi.NeighborAllgather(ring, []int32{1}, got); mpi.Class(err) != mpi.ErrCount {
		t.Errorf("a receive buffer of the wrong size: %v", err)
	}
	if err := mpi.NeighborAllgather(mpi.World, []int32{1}, got); mpi.Class(err) != mpi.ErrTopology {
		t.Errorf("neighbours of World: %v", err)
	}
	// A non-periodic line of one has no neighbours: nothing moves.
	line, _ := mpi.CartCreate(mpi.World, []int{1}, []bool{false}, false)
	defer line.Free()
	keep := []int32{9, 9}
	if err := mpi.NeighborAllgather(line, []int32{1}, keep); err != nil || !slices.Equal(keep, []int32{9, 9}) {
		t.Errorf("a line of one: %v %v", keep, err)
	}
}

func TestGraphSingleton(t *testing.T) {
	// One node with two loops to itself.
	g, err := mpi.GraphCreate(mpi.World, []int{2}, []int{0, 0}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Free()
	if k, _ := g.TopoTest(); k != mpi.Graph {
		t.Errorf("TopoTest %d", k)
	}
	if n, e, err := g.GraphdimsGet(); n != 1 || e != 2 || err != nil {
		t.Errorf("GraphdimsGet %d %d %v", n, e, err)
	}
	if idx, edges, err := g.GraphGet(); !slices.Equal(idx, []int{2}) || !slices.Equal(edges, []int{0, 0}) || err != nil {
		t.Errorf("GraphGet %v %v %v", idx, edges, err)
	}
	if n, err := g.GraphNeighborsCount(0); n != 2 || err != nil {
		t.Errorf("GraphNeighborsCount %d %v", n, err)
	}
	if _, err := g.GraphNeighbors(1); mpi.Class(err) != mpi.ErrRank {
		t.Errorf("GraphNeighbors(1): %v", err)
	}
	got := make([]int16, 2)
	if err := mpi.NeighborAlltoall(g, []int16{3, 4}, got); err != nil || !slices.Equal(got, []int16{3, 4}) {
		t.Errorf("NeighborAlltoall on a graph: %v %v", got, err)
	}
	if _, err := mpi.GraphCreate(mpi.World, []int{1}, []int{1}, false); mpi.Class(err) != mpi.ErrArg {
		t.Errorf("an edge to node 1 of 1: %v", err)
	}
	if _, err := mpi.GraphCreate(mpi.World, []int{0, 0}, nil, false); mpi.Class(err) != mpi.ErrArg {
		t.Errorf("a graph of 2 nodes on 1 process: %v", err)
	}
	if r, err := mpi.World.GraphMap([]int{0}, nil); r != 0 || err != nil {
		t.Errorf("GraphMap %d %v", r, err)
	}
	if _, _, _, err := g.CartGet(); mpi.Class(err) != mpi.ErrTopology {
		t.Errorf("CartGet on a graph: %v", err)
	}
}

func TestDistGraphSingleton(t *testing.T) {
	d, err := mpi.DistGraphCreateAdjacent(mpi.World, []int{0}, []int{5}, []int{0}, []int{6}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Free()
	if k, _ := d.TopoTest(); k != mpi.DistGraph {
		t.Errorf("TopoTest %d", k)
	}
	if in, out, w, err := d.DistGraphNeighborsCount(); in != 1 || out != 1 || !w || err != nil {
		t.Errorf("counts %d %d %v %v", in, out, w, err)
	}
	s, sw, ds, dw, err := d.DistGraphNeighbors()
	if !slices.Equal(s, []int{0}) || !slices.Equal(sw, []int{5}) || !slices.Equal(ds, []int{0}) || !slices.Equal(dw, []int{6}) || err != nil {
		t.Errorf("neighbours %v %v %v %v %v", s, sw, ds, dw, err)
	}
	if _, err := mpi.DistGraphCreateAdjacent(mpi.World, []int{1}, nil, nil, nil, nil, false); mpi.Class(err) != mpi.ErrRank {
		t.Errorf("a source of rank 1: %v", err)
	}
	// DistGraphCreate: two edges 0→0 given at once, unweighted.
	g, err := mpi.DistGraphCreate(mpi.World, []int{0}, []int{2}, []int{0, 0}, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Free()
	if in, out, w, err := g.DistGraphNeighborsCount(); in != 2 || out != 2 || w || err != nil {
		t.Errorf("counts %d %d %v %v", in, out, w, err)
	}
	got := make([]float32, 2)
	if err := mpi.NeighborAllgather(g, []float32{1.5}, got); err != nil || !slices.Equal(got, []float32{1.5, 1.5}) {
		t.Errorf("NeighborAllgather on a dist graph: %v %v", got, err)
	}
	if _, err := mpi.DistGraphCreate(mpi.World, []int{0}, []int{2}, []int{0}, nil, nil, false); mpi.Class(err) != mpi.ErrArg {
		t.Errorf("degrees beyond the destinations: %v", err)
	}
}

// NeighborAlltoallw on a periodic ring of one: a strided block goes back
// (and comes in from the front), a contiguous one goes forward.
func TestNeighborAlltoallw(t *testing.T) {
	ring, err := mpi.CartCreate(mpi.World, []int{1}, []bool{true}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer ring.Free()
	ring.SetErrhandler(mpi.ErrorsReturn)
	vec, err := mpi.TypeVector(2, 1, 2, mpi.Byte) // bytes 0 and 2
	if err != nil {
		t.Fatal(err)
	}
	send := []byte{1, 2, 3, 4, 5, 6}
	recv := make([]byte, 8)
	// Back: the vector at 0 (1, 3); forward: 2 bytes at 4 (5, 6).
	// Block 0 (from the back) is what went forward, block 1 what went back.
	err = mpi.NeighborAlltoallw(ring, send, []int{1, 2}, []int{0, 4}, []*mpi.Datatype{vec, mpi.Byte},
		recv, []int{2, 1}, []int{0, 4}, []*mpi.Datatype{mpi.Byte, vec})
	if err != nil || !slices.Equal(recv, []byte{5, 6, 0, 0, 1, 0, 3, 0}) {
		t.Errorf("NeighborAlltoallw: %v %v", recv, err)
	}
	if err := mpi.NeighborAlltoallw(ring, send, []int{1}, []int{0}, []*mpi.Datatype{vec}, recv, nil, nil, nil); mpi.Class(err) != mpi.ErrArg {
		t.Errorf("one block for two neighbours: %v", err)
	}
}

// A receive buffer that is not one block per neighbour, each as long as
// the send buffer, is ErrCount even when it divides evenly.
func TestNeighborAllgatherCount(t *testing.T) {
	ring, err := mpi.CartCreate(mpi.World, []int{1}, []bool{true}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer ring.Free()
	ring.SetErrhandler(mpi.ErrorsReturn)
	for _, n := range []int{3, 4, 0} {
		if err := mpi.NeighborAllgather(ring, []int32{1}, make([]int32, n)); mpi.Class(err) != mpi.ErrCount {
			t.Errorf("%d elements for 2 blocks of 1: %v", n, err)
		}
	}
	got := make([]int32, 2)
	if err := mpi.NeighborAllgather(ring, []int32{5}, got); err != nil || got[0] != 5 || got[1] != 5 {
		t.Errorf("after the errors: %v %v", got, err)
	}
}

// The nonblocking neighbour collectives on a periodic ring of one give
// what the blocking ones give, several outstanding at once; an argument
// error comes at once, with no request; on a communicator without a
// topology, ErrTopology.
func TestNonblockingNeighbours(t *testing.T) {
	ring, err := mpi.CartCreate(mpi.World, []int{1}, []bool{true}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer ring.Free()
	ring.SetErrhandler(mpi.ErrorsReturn)
	type pair struct {
		name string
		nb   func(out []int32) (*mpi.Request, error)
		b    func(out []int32) error
	}
	send := []int32{7, 8, 9}
	pairs := []pair{
		{"allgather", func(o []int32) (*mpi.Request, error) { return mpi.IneighborAllgather(ring, send[:1], o[:2]) },
			func(o []int32) error { return mpi.NeighborAllgather(ring, send[:1], o[:2]) }},
		{"allgatherv", func(o []int32) (*mpi.Request, error) {
			return mpi.IneighborAllgatherv(ring, send[:1], o, []int{1, 1}, []int{2, 0})
		}, func(o []int32) error { return mpi.NeighborAllgatherv(ring, send[:1], o, []int{1, 1}, []int{2, 0}) }},
		{"alltoall", func(o []int32) (*mpi.Request, error) { return mpi.IneighborAlltoall(ring, send[:2], o[:2]) },
			func(o []int32) error { return mpi.NeighborAlltoall(ring, send[:2], o[:2]) }},
		{"alltoallv", func(o []int32) (*mpi.Request, error) {
			return mpi.IneighborAlltoallv(ring, send, []int{1, 2}, []int{0, 1}, o, []int{2, 1}, []int{1, 0})
		}, func(o []int32) error {
			return mpi.NeighborAlltoallv(ring, send, []int{1, 2}, []int{0, 1}, o, []int{2, 1}, []int{1, 0})
		}},
		{"alltoallw", func(o []int32) (*mpi.Request, error) {
			return mpi.IneighborAlltoallw(ring, i32b(send), []int{1, 1}, []int{0, 8}, []*mpi.Datatype{mpi.Int32, mpi.Int32},
				i32b(o), []int{1, 1}, []int{4, 0}, []*mpi.Datatype{mpi.Int32, mpi.Int32})
		}, func(o []int32) error {
			return mpi.NeighborAlltoallw(ring, i32b(send), []int{1, 1}, []int{0, 8}, []*mpi.Datatype{mpi.Int32, mpi.Int32},
				i32b(o), []int{1, 1}, []int{4, 0}, []*mpi.Datatype{mpi.Int32, mpi.Int32})
		}},
	}
	outs := make([][]int32, len(pairs))
	reqs := make([]*mpi.Request, len(pairs))
	for i, p := range pairs {
		outs[i] = []int32{-1, -1, -1, -1}
		r, err := p.nb(outs[i])
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		reqs[i] = r
	}
	if _, err := mpi.Waitall(reqs...); err != nil {
		t.Fatal(err)
	}
	for i, p := range pairs {
		want := []int32{-1, -1, -1, -1}
		if err := p.b(want); err != nil {
			t.Fatalf("%s (blocking): %v", p.name, err)
		}
		if !slices.Equal(outs[i], want) {
			t.Errorf("%s: %v, blocking %v", p.name, outs[i], want)
		}
	}
	if r, err := mpi.IneighborAllgather(ring, send[:1], make([]int32, 3)); r != nil || mpi.Class(err) != mpi.ErrCount {
		t.Errorf("a bad buffer: %v %v", r, err)
	}
	if r, err := mpi.IneighborAlltoall(mpi.World, send[:1], make([]int32, 1)); r != nil || mpi.Class(err) != mpi.ErrTopology {
		t.Errorf("no topology: %v %v", r, err)
	}
	// The ring still works after the error.
	got := make([]int32, 2)
	if err := mpi.NeighborAllgather(ring, send[:1], got); err != nil || got[0] != 7 || got[1] != 7 {
		t.Errorf("after the errors: %v %v", got, err)
	}
}

func i32b(s []int32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), 4*len(s))
}
