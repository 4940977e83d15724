package shmem_test

import (
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/coll/colltest"
)

// watched is what a communicator's watcher (coll.Comm.Watch) was told.
type watched struct {
	kind  coll.Kind
	root  int
	begin bool
}

// TestWatch checks what Run tells a communicator's watcher (mpitask's
// record of a blocking collective): under shmem, a process that waits for
// a late one is told that it waits, in which collective and at which root,
// and then that it stopped (once per wait: a check round and the
// collective's are two); a collective that shmem leaves to lam_basic is
// watched while lam_basic runs it, waiting or not; every collective under
// lam_basic from start to end. Every begin has its end.
func TestWatch(t *testing.T) {
	const late = 30 * time.Millisecond
	size := func(b int) func(c *coll.Comm, r int) error {
		return func(c *coll.Comm, r int) error {
			buf := coll.Buffer(b)
			return c.Run(coll.Sig{Kind: coll.Bcast, Root: 1, Send: int64(b)}, func(a *coll.Actions) error { return a.Bcast(c, buf, 1) })
		}
	}
	barrier := func(c *coll.Comm, r int) error {
		return c.Run(coll.Sig{Kind: coll.Barrier}, func(a *coll.Actions) error { return a.Barrier(c) })
	}
	allreduce := func(c *coll.Comm, r int) error {
		s, d := colltest.Ints(r, 1), coll.Buffer(8)
		return c.Run(coll.Sig{Kind: coll.Allreduce, Send: 8, Op: 1}, func(a *coll.Actions) error { return a.Allreduce(c, s, d, &colltest.Sum) })
	}
	for _, tt := range []struct {
		name   string
		params []string
		call   func(c *coll.Comm, r int) error
		kind   coll.Kind
		root   int
		always bool // watched from start to end, on every process
	}{
		{"barrier", nil, barrier, coll.Barrier, 0, false},
		{"barrier check=0", []string{"coll_base_check", "0"}, barrier, coll.Barrier, 0, false},
		{"bcast 8", nil, size(8), coll.Bcast, 1, false},
		{"bcast 8 check=2", []string{"coll_base_check", "2"}, size(8), coll.Bcast, 1, false},
		{"allreduce", nil, allreduce, coll.Allreduce, 0, false},
		{"bcast to lam_basic", []string{"coll_base_shmem_large_size", "64", "coll_base_shmem_copy_size", "64"}, size(4096), coll.Bcast, 1, true},
		{"lam_basic", []string{"coll", "lam_basic"}, barrier, coll.Barrier, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := world(t, []int32{0, 0}, tt.params...)
			seen := make([][]watched, 2)
			errs := w.Each(func(r int) error {
				c := w.Comm(r)
				c.Watch(func(kind coll.Kind, root int, begin bool) {
					seen[r] = append(seen[r], watched{kind, root, begin})
				})
				if err := c.Setup(); err != nil {
					return err
				}
				seen[r] = nil
				if r == 1 {
					time.Sleep(late)
				}
				return tt.call(c, r)
			})
			for r, err := range errs {
				if err != nil {
					t.Fatalf("rank %d: %v", r, err)
				}
			}
			for r, got := range seen {
				waits := 0
				for i, x := range got {
					if x.kind != tt.kind || x.root != tt.root || x.begin != (i%2 == 0) {
						t.Errorf("rank %d was told %v: want begins and ends of %s at root %d in turn", r, got, tt.kind, tt.root)
						break
					}
					if !x.begin {
						waits++
					}
				}
				switch {
				case len(got)%2 != 0:
					t.Errorf("rank %d was told %v: a begin without its end", r, got)
				case waits == 0 && (r == 0 || tt.always):
					t.Errorf("rank %d was told of no wait", r)
				}
			}
		})
	}
}
