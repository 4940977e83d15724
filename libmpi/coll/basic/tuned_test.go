package basic_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/coll/colltest"
)

// The size-chosen algorithms, each forced on and off by its parameter, at
// odd and power-of-two sizes: every collective against its serial
// reference (blocks of 1, 3 and 70 elements, in place, user ops).
func TestSuiteTuned(t *testing.T) {
	sets := map[string][]string{
		"small off": {"coll_base_small", "0", "coll_base_allgather_ring", "0",
			"coll_base_bcast_scatter", "0", "coll_base_alltoall_pairwise", "0"},
		"gather all": {"coll_base_small", "1M", "coll_base_reduce_crossover", "1M"},
		"gather all, no check": {"coll_base_small", "1M", "coll_base_reduce_crossover", "1M",
			"coll_base_check", "0", "coll_base_bcast_scatter", "0"},
		"binomial": {"coll_base_crossover", "1", "coll_base_small", "1M", "coll_base_reduce_crossover", "1M"},
	}
	for name, params := range sets {
		for n := 1; n <= 8; n++ {
			for _, k := range []int{1, 3, 70} {
				roots := []int{0}
				if n > 2 {
					roots = append(roots, n-1)
				}
				for _, root := range roots {
					if t.Failed() {
						return
					}
					t.Run(fmt.Sprintf("%s/n=%d/k=%d/root=%d", name, n, k, root), func(t *testing.T) {
						w := colltest.NewWorld(oneNode(n), 20*time.Second, params...)
						defer w.Close()
						errs := w.Each(func(r int) error { return colltest.Suite(w.Comm(r), k, root) })
						for r, err := range errs {
							if err != nil {
								t.Errorf("rank %d: %v", r, err)
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
}

// An Allreduce or Reduce that gathers gives the bits of lam_basic's
// reduction trees, for a float sum and for a non-commutative op, at every
// root.
func TestGatherSameBits(t *testing.T) {
	for _, n := range []int{2, 3, 4, 5, 7, 8} {
		for _, op := range []*coll.Op{&colltest.FSum, &colltest.MatMul} {
			for _, root := range []int{-1, 0, n - 1, n / 2} { // -1: Allreduce
				var results [2][]byte
				for i, params := range [][]string{{"coll_base_small", "0"}, {"coll_base_small", "64K", "coll_base_reduce_crossover", "64K"}} {
					const k = 9
					w := colltest.NewWorld(oneNode(n), 20*time.Second, params...)
					out := make([][]byte, n)
					errs := w.Each(func(r int) error {
						c := w.Comm(r)
						send := colltest.Floats(r, k)
						if op == &colltest.MatMul {
							send = colltest.Mats(r, k)
						}
						out[r] = coll.Buffer(len(send))
						if root < 0 {
							return c.Run(coll.Sig{Kind: coll.Allreduce, Send: int64(len(send)), Op: coll.UserOp}, func(a *coll.Actions) error {
								return a.Allreduce(c, send, out[r], op)
							})
						}
						return c.Run(coll.Sig{Kind: coll.Reduce, Root: root, Send: int64(len(send)), Op: coll.UserOp}, func(a *coll.Actions) error {
							return a.Reduce(c, send, out[r], op, root)
						})
					})
					w.Close()
					for r, err := range errs {
						if err != nil {
							t.Fatalf("n=%d rank %d: %v", n, r, err)
						}
						if root < 0 && string(out[r]) != string(out[0]) {
							t.Fatalf("n=%d %v: ranks 0 and %d differ", n, params, r)
						}
					}
					results[i] = out[max(root, 0)]
				}
				if string(results[0]) != string(results[1]) {
					t.Errorf("n=%d root=%d: gathering changed the bits", n, root)
				}
			}
		}
	}
}

// A process that calls another collective than the others, while they
// run an Allreduce that carries the argument check: an error on every
// process, never a hang, whichever of them checks separately
// (coll_base_check=2: at 1, a Bcast's root does not wait for the others).
func TestMismatchCarried(t *testing.T) {
	other := map[string]func(c *coll.Comm) error{
		"bcast": func(c *coll.Comm) error {
			buf := coll.Buffer(8)
			return c.Run(coll.Sig{Kind: coll.Bcast, Send: 8}, func(a *coll.Actions) error { return a.Bcast(c, buf, 0) })
		},
		"barrier": func(c *coll.Comm) error {
			return c.Run(coll.Sig{Kind: coll.Barrier}, func(a *coll.Actions) error { return a.Barrier(c) })
		},
		"bigger allreduce": func(c *coll.Comm) error {
			recv := coll.Buffer(64)
			return c.Run(coll.Sig{Kind: coll.Allreduce, Send: 64, Op: 1}, func(a *coll.Actions) error {
				return a.Allreduce(c, colltest.Ints(c.Rank(), 8), recv, &colltest.Sum)
			})
		},
		"own error": func(c *coll.Comm) error {
			recv := coll.Buffer(8)
			s := coll.Sig{Kind: coll.Allreduce, Send: 8, Op: 1, Err: coll.Errorf(coll.ErrBuffer, "bad buffer")}
			return c.Run(s, func(a *coll.Actions) error { return a.Allreduce(c, colltest.Ints(c.Rank(), 1), recv, &colltest.Sum) })
		},
	}
	for name, f := range other {
		for _, n := range []int{2, 3, 5, 8} {
			for _, bad := range []int{0, n - 1} {
				t.Run(fmt.Sprintf("%s/n=%d/bad=%d", name, n, bad), func(t *testing.T) {
					errs := colltest.Run(t, oneNode(n), 10*time.Second, checkAll, func(c *coll.Comm) error {
						if c.Rank() == bad {
							return f(c)
						}
						recv := coll.Buffer(8)
						return c.Run(coll.Sig{Kind: coll.Allreduce, Send: 8, Op: 1}, func(a *coll.Actions) error {
							return a.Allreduce(c, colltest.Ints(c.Rank(), 1), recv, &colltest.Sum)
						})
					})
					for r, err := range errs {
						if err == nil || errors.Is(err, colltest.ErrHang) {
							t.Errorf("rank %d: %v", r, err)
						}
					}
				})
			}
		}
	}
}

// A collective of zero bytes returns at once, sending nothing, when the
// process's own arguments are right; at coll_base_check=2 a process with
// an argument error
// whose size is unknown (0 bytes here, 4 for the others, as with a null
// datatype) takes part in the check, so that every process returns an
// error and nobody hangs.
func TestZeroSize(t *testing.T) {
	errs := colltest.Run(t, oneNode(3), 5*time.Second, checkAll, func(c *coll.Comm) error {
		if c.Rank() == 1 {
			// Alone: the others do not call it.
			if err := c.Run(coll.Sig{Kind: coll.Bcast, Send: 0}, func(a *coll.Actions) error { return a.Bcast(c, nil, 0) }); err != nil {
				return err
			}
		}
		sig := coll.Sig{Kind: coll.Bcast, Send: 4}
		if c.Rank() == 1 {
			sig = coll.Sig{Kind: coll.Bcast, Send: 0, Err: coll.Errorf(coll.ErrType, "bad type")}
		}
		err := c.Run(sig, func(a *coll.Actions) error { return a.Bcast(c, make([]byte, 4), 0) })
		switch {
		case err == nil:
			return errors.New("a Bcast with rank 1's argument error succeeded")
		case c.Rank() == 1 && classOf(err) != coll.ErrType:
			return fmt.Errorf("own error: %v", err)
		}
		return c.Run(coll.Sig{Kind: coll.Barrier}, func(a *coll.Actions) error { return a.Barrier(c) })
	})
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}
