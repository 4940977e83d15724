package smp_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/coll/colltest"
)

// rooted runs a small Gather or Scatter of 8 bytes per process from root
// on c, with size bytes per process on this process, and checks the
// blocks it receives.
func rooted(c *coll.Comm, kind coll.Kind, root, size int) error {
	n, r := c.Size(), c.Rank()
	s := coll.Sig{Kind: kind, Root: root, Send: int64(size)}
	switch kind {
	case coll.Gather:
		var all []byte
		if r == root {
			all = coll.Buffer(n * size)
		}
		if err := c.Run(s, func(a *coll.Actions) error { return a.Gather(c, colltest.Ints(r, size/8), all, root) }); err != nil {
			return err
		}
		for i := 0; r == root && i < n; i++ {
			if want := colltest.Ints(i, size/8); !bytes.Equal(all[i*size:(i+1)*size], want) {
				return colltest.Fail("gather", i, all[i*size:(i+1)*size], want)
			}
		}
	case coll.Scatter:
		var all []byte
		if r == root {
			all = coll.Buffer(n * size)
			for i := range n {
				copy(all[i*size:], colltest.Ints(i, size/8))
			}
		}
		block := coll.Buffer(size)
		if err := c.Run(s, func(a *coll.Actions) error { return a.Scatter(c, all, block, root) }); err != nil {
			return err
		}
		if want := colltest.Ints(r, size/8); !bytes.Equal(block, want) {
			return colltest.Fail("scatter", r, block, want)
		}
	}
	return nil
}

// At coll_base_check=1 and 0 smp's small Gather and Scatter from a root
// that leads its node cross between the nodes once per node: the root sends
// (Scatter) or receives (Gather) one message per other node and one per
// other process of its own node; lam_basic's linear ones one per other
// process. From a root that does not lead its node they are lam_basic's.
func TestRootedMessages(t *testing.T) {
	six, four := []int32{0, 0, 1, 1, 1, 2}, []int32{0, 0, 1, 1}
	for _, tt := range []struct {
		level string
		nodes []int32
		kind  coll.Kind
		root  int
		want  int // messages the root sends or receives per call
	}{
		{"1", six, coll.Gather, 0, 3}, {"1", six, coll.Scatter, 0, 3},
		{"1", six, coll.Gather, 2, 4}, {"1", six, coll.Scatter, 2, 4}, // 2 leads node 1 (3 processes): 2 members + 2 nodes
		{"1", six, coll.Gather, 1, 5}, {"1", six, coll.Scatter, 1, 5}, // 1 does not lead: linear
		// At level 0 lam_basic is linear up to coll_base_crossover (4)
		// processes.
		{"0", four, coll.Gather, 0, 2}, {"0", four, coll.Scatter, 0, 2},
		{"0", four, coll.Gather, 2, 2}, {"0", four, coll.Scatter, 2, 2},
		{"0", four, coll.Gather, 1, 3}, {"0", four, coll.Scatter, 1, 3},
	} {
		t.Run(fmt.Sprintf("%v/%s/root=%d/check=%s", tt.nodes, tt.kind, tt.root, tt.level), func(t *testing.T) {
			w := colltest.NewWorld(tt.nodes, 10*time.Second, "coll_base_check", tt.level)
			defer w.Close()
			w.Check(t, w.Each(func(r int) error {
				c := w.Comm(r)
				return c.Run(coll.Sig{Kind: coll.Barrier}, func(a *coll.Actions) error { return a.Barrier(c) })
			}))
			count := func() int {
				s, rc := w.Messages(tt.root)
				if tt.kind == coll.Gather {
					return rc
				}
				return s
			}
			const calls = 10 // fewer than coll_base_sent_sync's 64
			before := count()
			w.Check(t, w.Each(func(r int) error {
				for range calls {
					if err := rooted(w.Comm(r), tt.kind, tt.root, 8); err != nil {
						return err
					}
				}
				return nil
			}))
			if got := (count() - before) / calls; got != tt.want {
				t.Errorf("%d messages per call at the root, want %d", got, tt.want)
			}
			if left := w.Leftover(); left != 0 {
				t.Errorf("%d messages nobody received", left)
			}
		})
	}
}

// A mismatch in smp's hierarchical Gather and Scatter: the process that
// receives the data of another call returns the error (a Gather's root,
// for any process's; a Scatter's process, for its own), at level 1;
// at level 2 every process does; a Scatter's leader's processes get it
// when the leader's call differs. bad is the root's node's other process,
// the other node's leader or one of its other processes.
func TestMismatchRooted(t *testing.T) {
	nodes := []int32{0, 0, 1, 1, 1}
	for _, kind := range []coll.Kind{coll.Gather, coll.Scatter} {
		for _, bad := range []int{1, 2, 3} {
			for _, level := range []string{"1", "2"} {
				t.Run(fmt.Sprintf("%s/bad=%d/check=%s", kind, bad, level), func(t *testing.T) {
					w := colltest.NewWorld(nodes, 10*time.Second, "coll_base_check", level)
					defer w.Close()
					errs := w.Each(func(r int) error {
						size := 8
						if r == bad {
							size = 16
						}
						return rooted(w.Comm(r), kind, 0, size)
					})
					for r, err := range errs {
						want := level == "2" || kind == coll.Gather && r == 0 || kind == coll.Scatter && r == bad
						if kind == coll.Scatter && bad == 2 && r > 2 {
							want = true // behind their leader
						}
						if want && colltest.ClassOf(err) != coll.ErrCount || !want && err != nil {
							t.Errorf("rank %d: %v (want an error: %v)", r, err, want)
						}
					}
					if left := w.Leftover(); left != 0 {
						t.Errorf("%d messages nobody received", left)
					}
				})
			}
		}
	}
}
