package shmem_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/coll/colltest"
	"github.com/lamgo/lam/libmpi/coll/shmem"
)

// lentWorld is n processes of one node whose shmem may copy between
// processes (the probe permits it) and lend, on cpus processors.
func lentWorld(t *testing.T, n, cpus int) *colltest.World {
	t.Helper()
	w := world(t, make([]int32, n), "coll_base_shmem_direct_size", "1000")
	w.Processors = cpus
	return w
}

// lentReduce starts process r's Iallreduce (root < 0) or Ireduce of k
// floats by op, in place or not, and returns its schedule, whether the
// board runs it, its receive buffer and where its outcome goes.
func lentReduce(c *coll.Comm, r, k, root int, op *coll.Op, inPlace bool, out *error) (*coll.Schedule, bool, []byte, error) {
	send, recv := colltest.Floats(r, k), coll.Buffer(8*k)
	if inPlace && (root < 0 || r == root) {
		copy(recv, send)
		send = nil
	}
	sig := coll.Sig{Kind: coll.Allreduce, Send: int64(8 * k), Op: 3}
	if root >= 0 {
		sig.Kind, sig.Root = coll.Reduce, root
	}
	s, quick, err := colltest.StartSchedule(c, sig, func(v *coll.Comm, a *coll.Actions) error {
		if root >= 0 {
			return a.Reduce(v, send, recv, op, root)
		}
		return a.Allreduce(v, send, recv, op)
	}, coll.NotifyFunc(func(err error) { *out = err }))
	return s, quick, recv, err
}

// Iallreduces and Ireduces too large for the outboard run on the board
// from three processes up, reduced slice by slice by whoever comes first
// (lentreduce.go), and give lam_basic's bits: floats summed, and an op
// neither commutative nor associative; sizes that the processes do not
// divide; in place and not; with processors to spare and oversubscribed.
func TestBoardLentReduce(t *testing.T) {
	for _, n := range []int{2, 3, 4, 5} {
		for _, cpus := range []int{64, 1} {
			t.Run(fmt.Sprintf("n=%d/cpus=%d", n, cpus), func(t *testing.T) {
				for _, k := range []int{shmem.BigBytes/8 + 1, 20001} {
					for _, op := range []*coll.Op{&colltest.FSum, &twist} {
						for _, root := range []int{-1, 0, n - 1} {
							ref := basicReduced(t, n, k, root, op)
							for _, inPlace := range []bool{false, true} {
								w := lentWorld(t, n, cpus)
								got := make([][]byte, n)
								w.Check(t, w.Each(func(r int) error {
									var out error
									s, quick, recv, err := lentReduce(w.Comm(r), r, k, root, op, inPlace, &out)
									if err != nil {
										return err
									}
									if quick != (n > 2) {
										return fmt.Errorf("on the board: %v, want %v", quick, n > 2)
									}
									if err := colltest.WaitFor(s, 20*time.Second); err != nil {
										return err
									}
									got[r] = recv
									return out
								}))
								for r := range n {
									if (root < 0 || r == root) && !slices.Equal(got[r], ref[r]) {
										t.Fatalf("k=%d root=%d commutative=%v in place=%v: rank %d's result differs from lam_basic's", k, root, op.Commutative, inPlace, r)
									}
								}
							}
						}
					}
				}
			})
		}
	}
}

// A lent reduction completes at a process that waits for it while the
// others, having started it, do not look at it until it has: the
// waiting process reduces every slice itself, and the others, when they
// look, find every slice done.
func TestBoardLentReduceAlone(t *testing.T) {
	const n, k = 4, 3 * shmem.BigBytes / 8
	w := lentWorld(t, n, 64)
	done := make(chan struct{})
	got := make([][]byte, n)
	w.Check(t, w.Each(func(r int) error {
		var out error
		s, quick, recv, err := lentReduce(w.Comm(r), r, k, -1, &colltest.FSum, false, &out)
		if err != nil || !quick {
			return fmt.Errorf("start: %v, on the board %v", err, quick)
		}
		if r == 0 {
			err := colltest.WaitFor(s, 10*time.Second)
			close(done)
			got[r] = recv
			return errors.Join(err, out)
		}
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			return errors.New("process 0 did not complete alone")
		}
		got[r] = recv
		return errors.Join(colltest.WaitFor(s, 10*time.Second), out)
	}))
	ref := basicReduced(t, n, k, -1, &colltest.FSum)
	for r := range n {
		if !slices.Equal(got[r], ref[r]) {
			first, last := -1, -1
			for i := range got[r] {
				if got[r][i] != ref[r][i] {
					if first < 0 {
						first = i
					}
					last = i
				}
			}
			t.Fatalf("rank %d's result differs from lam_basic's at bytes %d to %d of %d", r, first, last, len(got[r]))
		}
	}
}
