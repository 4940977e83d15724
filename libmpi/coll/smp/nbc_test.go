package smp_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/coll/colltest"
)

// smp's nonblocking Barrier, Bcast, Reduce and Allreduce (integer sums,
// which it regroups by node, and a non-commutative product, which it
// regroups only when the nodes' ranks are consecutive), all outstanding
// at once, give what the blocking forms give, on every layout.
func TestNonblocking(t *testing.T) {
	for _, nodes := range layouts {
		for _, params := range [][]string{nil, {"coll_base_crossover", "1"}} {
			for _, k := range []int{1, 70} {
				t.Run(fmt.Sprintf("%v/%v/k=%d", nodes, params, k), func(t *testing.T) {
					n := len(nodes)
					w := colltest.NewWorld(nodes, 5*time.Second, params...)
					defer w.Close()
					errs := w.Each(func(r int) error {
						c := w.Comm(r)
						if m := c.Module(); m != "smp" {
							return fmt.Errorf("module %s", m)
						}
						type op struct {
							sig coll.Sig
							f   func(c *coll.Comm, a *coll.Actions, out []byte) error
						}
						var ops []op
						mine := colltest.Ints(r, k)
						for _, root := range []int{0, n - 1, 1} {
							ops = append(ops,
								op{coll.Sig{Kind: coll.Bcast, Root: root, Send: int64(8 * k)}, func(c *coll.Comm, a *coll.Actions, out []byte) error {
									if r == root {
										copy(out, mine)
									}
									return a.Bcast(c, out, root)
								}},
								op{coll.Sig{Kind: coll.Reduce, Root: root, Send: int64(8 * k), Op: 1}, func(c *coll.Comm, a *coll.Actions, out []byte) error {
									return a.Reduce(c, mine, out, &colltest.Sum, root)
								}},
								op{coll.Sig{Kind: coll.Reduce, Root: root, Send: int64(32 * k), Op: 2}, func(c *coll.Comm, a *coll.Actions, out []byte) error {
									return a.Reduce(c, colltest.Mats(r, k), out, &colltest.MatMul, root)
								}})
						}
						ops = append(ops,
							op{coll.Sig{Kind: coll.Barrier}, func(c *coll.Comm, a *coll.Actions, out []byte) error { return a.Barrier(c) }},
							op{coll.Sig{Kind: coll.Allreduce, Send: int64(8 * k), Op: 1}, func(c *coll.Comm, a *coll.Actions, out []byte) error {
								return a.Allreduce(c, mine, out, &colltest.Sum)
							}},
							op{coll.Sig{Kind: coll.Allreduce, Send: int64(32 * k), Op: 2}, func(c *coll.Comm, a *coll.Actions, out []byte) error {
								return a.Allreduce(c, colltest.Mats(r, k), out, &colltest.MatMul)
							}},
							op{coll.Sig{Kind: coll.Allreduce, Send: int64(8 * k), Op: 1}, func(c *coll.Comm, a *coll.Actions, out []byte) error {
								copy(out, mine)
								return a.Allreduce(c, nil, out, &colltest.Sum) // in place
							}})
						outs := make([][]byte, len(ops))
						dones := make([]<-chan error, len(ops))
						for i, o := range ops {
							outs[i] = coll.Buffer(int(max(o.sig.Send, 0)))
							var err error
							if dones[i], err = colltest.Start(c, o.sig, func(v *coll.Comm, a *coll.Actions) error { return o.f(v, a, outs[i]) }); err != nil {
								return err
							}
						}
						for i := len(ops) - 1; i >= 0; i-- {
							if err := <-dones[i]; err != nil {
								return fmt.Errorf("%s (%d): %w", ops[i].sig.Kind, i, err)
							}
						}
						for i, o := range ops {
							want := coll.Buffer(int(max(o.sig.Send, 0)))
							if err := c.Run(o.sig, func(a *coll.Actions) error { return o.f(c, a, want) }); err != nil {
								return fmt.Errorf("%s (%d) blocking: %w", o.sig.Kind, i, err)
							}
							if !bytes.Equal(outs[i], want) {
								return colltest.Fail(fmt.Sprintf("%s (%d)", o.sig.Kind, i), r, outs[i], want)
							}
						}
						return nil
					})
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

// With coll_base_associative=1, a nonblocking float sum is regrouped by
// node as the blocking one is: their bits agree, where lam_basic's (one
// node) may differ.
func TestNonblockingRegrouped(t *testing.T) {
	const k = 200
	nodes := []int32{0, 1, 0, 1, 0, 1, 0}
	w := colltest.NewWorld(nodes, 20*time.Second, "coll_base_associative", "1")
	defer w.Close()
	errs := w.Each(func(r int) error {
		c := w.Comm(r)
		sig := coll.Sig{Kind: coll.Allreduce, Send: 8 * k, Op: 3}
		got, want := coll.Buffer(8*k), coll.Buffer(8*k)
		done, err := colltest.Start(c, sig, func(v *coll.Comm, a *coll.Actions) error {
			return a.Allreduce(v, colltest.Floats(r, k), got, &colltest.FSum)
		})
		if err != nil {
			return err
		}
		if err := <-done; err != nil {
			return err
		}
		if err := c.Run(sig, func(a *coll.Actions) error { return a.Allreduce(c, colltest.Floats(r, k), want, &colltest.FSum) }); err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			return colltest.Fail("regrouped Iallreduce", r, got, want)
		}
		return nil
	})
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

// As lam_basic's test (colltest.ManyOutstanding), over two layouts of
// nodes; each communicator's module is set up by a blocking Barrier first.
func TestNonblockingMany(t *testing.T) {
	kinds := []coll.Kind{coll.Allreduce, coll.Bcast, coll.Barrier, coll.Reduce}
	fs := func(c *coll.Comm, k int) (map[coll.Kind]colltest.Twin, int) {
		return colltest.SumTwins(c.Rank(), k), 8 * k
	}
	layouts := [][]int32{{0, 0, 1, 1}, {0, 1, 0, 1, 1}}
	for _, params := range [][]string{nil, {"coll_base_check", "0"}} {
		for _, nodes := range layouts {
			t.Run(fmt.Sprintf("%v/%v", nodes, params), func(t *testing.T) {
				w := colltest.NewWorld(nodes, 20*time.Second, params...)
				defer w.Close()
				w.Check(t, w.Each(func(r int) error { return colltest.ManyOutstanding(w.Comm(r), r, kinds, fs, true) }))
			})
		}
	}
}
