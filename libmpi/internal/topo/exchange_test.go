package topo

import (
	"fmt"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/coll"
	_ "github.com/lamgo/lam/libmpi/coll/basic" // the schedules' module
	"github.com/lamgo/lam/libmpi/coll/colltest"
)

// allgather runs a neighbour allgather of one byte per process (its rank
// plus 10) on every process of a world and returns what each received.
func allgather(t *testing.T, n int, topo func(rank int) *Topo) [][]byte {
	t.Helper()
	got := make([][]byte, n)
	errs := colltest.Run(t, make([]int32, n), 10*time.Second, nil, func(c *coll.Comm) error {
		r := c.Rank()
		in, out := topo(r).Edges(r)
		recv := make([][]byte, len(in))
		for j := range recv {
			recv[j] = []byte{0xff}
		}
		send := make([][]byte, len(out))
		for i := range send {
			send[i] = []byte{byte(r + 10)}
		}
		err := exchange(c, in, recv, out, send)
		for _, b := range recv {
			got[r] = append(got[r], b...)
		}
		return err
	})
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
	return got
}

func TestExchangeRing(t *testing.T) {
	for _, n := range []int{1, 2, 5} {
		c, _ := NewCart([]int{n}, []bool{true})
		got := allgather(t, n, func(int) *Topo { return &Topo{Kind: CartKind, Cart: c} })
		for r := range n {
			want := fmt.Sprint([]byte{byte((r+n-1)%n + 10), byte((r+1)%n + 10)})
			if fmt.Sprint(got[r]) != want {
				t.Errorf("ring of %d, rank %d: %v, want %s", n, r, got[r], want)
			}
		}
	}
}

// A 3x2 grid, periodic in its second dimension only (of size 2: both
// neighbours are the same process, the tags keep them apart), and an
// alltoall that says who sent which block in which direction.
func TestExchangeGrid(t *testing.T) {
	c, _ := NewCart([]int{3, 2}, []bool{false, true})
	errs := colltest.Run(t, make([]int32, 6), 10*time.Second, nil, func(cc *coll.Comm) error {
		r := cc.Rank()
		in, out := (&Topo{Kind: CartKind, Cart: c}).Edges(r)
		send := make([][]byte, len(out))
		for i := range send {
			send[i] = []byte{byte(r), byte(i)}
		}
		recv := make([][]byte, len(in))
		for j := range recv {
			recv[j] = []byte{0xff, 0xff}
		}
		if err := exchange(cc, in, recv, out, send); err != nil {
			return err
		}
		for d := range 2 {
			src, dst, _ := c.Shift(r, d, 1)
			// Block 2d comes from src, which sent it forward (its block
			// 2d+1); block 2d+1 from dst, sent back (its block 2d).
			for k, want := range [][]byte{{byte(src), byte(2*d + 1)}, {byte(dst), byte(2 * d)}} {
				peer := []int{src, dst}[k]
				if peer == ProcNull {
					want = []byte{0xff, 0xff}
				}
				if got := recv[2*d+k]; string(got) != string(want) {
					return fmt.Errorf("block %d: %v, want %v", 2*d+k, got, want)
				}
			}
		}
		return nil
	})
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

// A graph with a repeated edge, and a distributed graph that is a chain:
// blocks in the order of the edges.
func TestExchangeGraphs(t *testing.T) {
	sym, _ := NewGraph([]int{3, 5, 6}, []int{1, 1, 2, 0, 0, 0})
	got := allgather(t, 3, func(int) *Topo { return &Topo{Kind: GraphKind, Graph: sym} })
	for r, w := range []string{"[11 11 12]", "[10 10]", "[10]"} {
		if fmt.Sprint(got[r]) != w {
			t.Errorf("graph rank %d: %v, want %s", r, got[r], w)
		}
	}
	chain := func(r int) *Topo {
		d := Dist{}
		if r > 0 {
			d.Sources = []int{r - 1}
		}
		if r < 3 {
			d.Dests = []int{r + 1}
		}
		return &Topo{Kind: DistKind, Dist: d}
	}
	got = allgather(t, 4, chain)
	for r, w := range []string{"[]", "[10]", "[11]", "[12]"} {
		if fmt.Sprint(got[r]) != w {
			t.Errorf("chain rank %d: %v, want %s", r, got[r], w)
		}
	}
}

// A neighbour that sends a block of another size is an error, not a
// silent short block.
func TestExchangeShort(t *testing.T) {
	c, _ := NewCart([]int{2}, []bool{false})
	errs := colltest.Run(t, make([]int32, 2), 10*time.Second, nil, func(cc *coll.Comm) error {
		r := cc.Rank()
		in, out := (&Topo{Kind: CartKind, Cart: c}).Edges(r)
		size := 2
		if r == 1 {
			size = 1
		}
		mk := func(n, k int) [][]byte {
			b := make([][]byte, n)
			for i := range b {
				b[i] = make([]byte, k)
			}
			return b
		}
		return exchange(cc, in, mk(len(in), 2), out, mk(len(out), size))
	})
	if errs[0] == nil || errs[1] != nil {
		t.Errorf("errors %v", errs)
	}
}

// exchange runs one neighbour collective on c to its end: Exchange on a
// view of c, then the view's schedule.
func exchange(c *coll.Comm, in []Edge, recv [][]byte, out []Edge, send [][]byte) error {
	v, err := c.Reserve(coll.Alltoall)
	if err != nil {
		return err
	}
	if err := Exchange(v, in, recv, out, send); err != nil {
		return err
	}
	return v.RunBuilt(coll.Alltoall)
}

// Several neighbour collectives under way at once on one communicator,
// waited for in the reverse order: each view's sequence number keeps
// their messages apart.
func TestExchangeOutstanding(t *testing.T) {
	const n, k = 4, 5
	c, _ := NewCart([]int{n}, []bool{true})
	errs := colltest.Run(t, make([]int32, n), 10*time.Second, nil, func(cc *coll.Comm) error {
		r := cc.Rank()
		in, out := (&Topo{Kind: CartKind, Cart: c}).Edges(r)
		var views []*coll.Comm
		recvs := make([][][]byte, k)
		for i := range k {
			v, err := cc.Reserve(coll.Alltoall)
			if err != nil {
				return err
			}
			recvs[i] = [][]byte{{0}, {0}}
			if err := Exchange(v, in, recvs[i], out, [][]byte{{byte(10*i + r)}, {byte(10*i + r)}}); err != nil {
				return err
			}
			v.Launch(coll.Alltoall, nil)
			views = append(views, v)
		}
		for i := k - 1; i >= 0; i-- {
			if err := views[i].Schedule().Wait(); err != nil {
				return err
			}
			want := []byte{byte(10*i + (r+n-1)%n), byte(10*i + (r+1)%n)}
			if recvs[i][0][0] != want[0] || recvs[i][1][0] != want[1] {
				return fmt.Errorf("collective %d: got %v %v, want %v", i, recvs[i][0], recvs[i][1], want)
			}
		}
		return nil
	})
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}
