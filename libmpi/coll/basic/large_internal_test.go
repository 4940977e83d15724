package basic

import (
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/coll/colltest"
)

// TestLargeChoiceNodes: the choices that depend on the processes' nodes
// (one node: the rpis' single copy between their buffers): a large Bcast
// is linear, a large Alltoall starts every transfer at once and a large
// Allreduce reads every input at once on one node (when
// coll_base_allreduce_direct is on), and keep the tree, the
// pairwise exchange and recursive halving across nodes.
func TestLargeChoiceNodes(t *testing.T) {
	const n = 8
	two := []int32{0, 0, 0, 0, 1, 1, 1, 1}
	for _, tt := range []struct {
		nodes            []int32
		linear, pairwise bool
	}{
		{make([]int32, n), true, false},
		{two, false, true},
	} {
		// coll_base_allreduce_direct is off by default (docs/coll.md).
		w := colltest.NewWorld(tt.nodes, 5*time.Second, "coll_base_allreduce_direct", "256K")
		w.Check(t, w.Each(func(r int) error {
			c := w.Comm(r)
			// A first collective sets the communicator up (its Params).
			if err := c.Run(coll.Sig{Kind: coll.Barrier}, func(a *coll.Actions) error { return a.Barrier(c) }); err != nil {
				return err
			}
			if got := linearBcast(c, 4<<20); got != tt.linear {
				t.Errorf("nodes %v: a 4 MiB Bcast linear %v, want %v", tt.nodes, got, tt.linear)
			}
			if got := pairwiseAlltoall(c, 2<<20); got != tt.pairwise {
				t.Errorf("nodes %v: a 2 MiB-block Alltoall pairwise %v, want %v", tt.nodes, got, tt.pairwise)
			}
			if got := directAllreduce(c, 4<<20); got != tt.linear {
				t.Errorf("nodes %v: a 4 MiB Allreduce direct %v, want %v", tt.nodes, got, tt.linear)
			}
			if pairwiseAlltoall(c, 64<<10) || linearBcast(c, 1024) || directAllreduce(c, 1024) {
				t.Errorf("nodes %v: small calls took the large choices", tt.nodes)
			}
			return nil
		}))
		w.Close()
	}
}

// TestDirectAllreduceTwo: two processes on one node keep recursive
// halving, one exchange straight into the receive buffer.
func TestDirectAllreduceTwo(t *testing.T) {
	w := colltest.NewWorld(make([]int32, 2), 5*time.Second, "coll_base_allreduce_direct", "256K")
	defer w.Close()
	w.Check(t, w.Each(func(r int) error {
		c := w.Comm(r)
		if err := c.Run(coll.Sig{Kind: coll.Barrier}, func(a *coll.Actions) error { return a.Barrier(c) }); err != nil {
			return err
		}
		if directAllreduce(c, 4<<20) {
			t.Error("2 processes: a 4 MiB Allreduce direct")
		}
		return nil
	}))
}
