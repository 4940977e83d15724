package colltest

import (
	"testing"
	"time"
)

// A communicator's processes that make their Splits again (new views of
// the world, as a test that runs them twice does) get a Split of their
// own colors and keys, on a context of its own, not the first one's.
func TestSplitGenerations(t *testing.T) {
	const n = 4
	w := NewWorld(make([]int32, n), 10*time.Second)
	defer w.Close()
	type got struct{ size, rank, ctx int }
	run := func(color, key func(r int) int) []got {
		out := make([]got, n)
		for r, err := range w.Each(func(r int) error {
			c, err := w.Comm(r).T.Split(color(r), key(r))
			if err != nil {
				return err
			}
			out[r] = got{c.Size(), c.Rank(), contextOf(c.T)}
			return nil
		}) {
			if err != nil {
				t.Fatalf("rank %d: %v", r, err)
			}
		}
		return out
	}
	first := run(func(r int) int { return r % 2 }, func(r int) int { return r })
	second := run(func(int) int { return 0 }, func(r int) int { return -r })
	for r := range n {
		if want := (got{2, r / 2, first[r].ctx}); first[r] != want {
			t.Errorf("first Split, rank %d: %+v, want %+v", r, first[r], want)
		}
		if second[r].size != n || second[r].rank != n-1-r {
			t.Errorf("second Split, rank %d: size %d rank %d, want %d and %d", r, second[r].size, second[r].rank, n, n-1-r)
		}
		if second[r].ctx == first[r].ctx {
			t.Errorf("rank %d: the second Split has the first one's context %d", r, first[r].ctx)
		}
	}
	if len(w.splits) != 0 {
		t.Errorf("%d split tables kept after every member read them", len(w.splits))
	}
}

// contextOf is the context of a world communicator's transport.
func contextOf(t any) int {
	switch x := t.(type) {
	case *transport:
		return x.ctx
	case receiving:
		return x.ctx
	}
	return -1
}
