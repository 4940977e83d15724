package smp_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/coll/colltest"
	_ "github.com/lamgo/lam/libmpi/coll/shmem"
)

// A process that calls another collective than the others, while they
// run a small Allreduce, Allgather or Alltoall that carries the argument
// check through smp's hierarchy: an error on every process, never a hang,
// whether the odd one carries the check too (another size or kind),
// checks alone (a Barrier, a large Alltoall, its own argument error), or
// sends its call (a small Bcast, at coll_base_check=2 only: at 1 its root
// does not wait). After it every process is still in step: a Barrier
// passes. bad is a leader or another process, on nodes whose ranks are
// consecutive or interleaved.
func TestMismatchCarried(t *testing.T) {
	allreduce := func(k int) func(c *coll.Comm) error {
		return func(c *coll.Comm) error {
			recv := coll.Buffer(8 * k)
			return c.Run(coll.Sig{Kind: coll.Allreduce, Send: int64(8 * k), Op: 1}, func(a *coll.Actions) error {
				return a.Allreduce(c, colltest.Ints(c.Rank(), k), recv, &colltest.Sum)
			})
		}
	}
	allgather := func(bs int) func(c *coll.Comm) error {
		return func(c *coll.Comm) error {
			recv := coll.Buffer(bs * c.Size())
			return c.Run(coll.Sig{Kind: coll.Allgather, Send: int64(bs)}, func(a *coll.Actions) error {
				return a.Allgather(c, coll.Buffer(bs), recv)
			})
		}
	}
	alltoall := func(bs int) func(c *coll.Comm) error {
		return func(c *coll.Comm) error {
			n := c.Size()
			return c.Run(coll.Sig{Kind: coll.Alltoall, Send: int64(bs)}, func(a *coll.Actions) error {
				return a.Alltoall(c, coll.Buffer(bs*n), coll.Buffer(bs*n))
			})
		}
	}
	others := map[string]func(c *coll.Comm) error{
		"barrier": func(c *coll.Comm) error {
			return c.Run(coll.Sig{Kind: coll.Barrier}, func(a *coll.Actions) error { return a.Barrier(c) })
		},
		"bigger allreduce": allreduce(8),
		"allgather":        allgather(8),
		"alltoall":         alltoall(8),
		"large alltoall":   alltoall(4096),
		"own error": func(c *coll.Comm) error {
			recv := coll.Buffer(8)
			s := coll.Sig{Kind: coll.Allreduce, Send: 8, Op: 1, Err: coll.Errorf(coll.ErrBuffer, "bad buffer")}
			return c.Run(s, func(a *coll.Actions) error { return a.Allreduce(c, colltest.Ints(c.Rank(), 1), recv, &colltest.Sum) })
		},
		"bcast": func(c *coll.Comm) error {
			buf := coll.Buffer(8)
			return c.Run(coll.Sig{Kind: coll.Bcast, Send: 8}, func(a *coll.Actions) error { return a.Bcast(c, buf, 0) })
		},
	}
	mains := map[string]func(c *coll.Comm) error{
		"allreduce": allreduce(1),
		"allgather": allgather(16),
		"alltoall":  alltoall(16),
	}
	for _, nodes := range [][]int32{{0, 0, 1, 1, 1}, {0, 1, 0, 1}} {
		for _, share := range []bool{false, true} {
			for mname, main := range mains {
				for oname, other := range others {
					for _, level := range []string{"1", "2"} {
						if oname == "bcast" && level == "1" {
							continue
						}
						if mname == oname {
							continue
						}
						for _, bad := range []int{1, 2} {
							name := fmt.Sprintf("%v/shared=%v/%s/%s/check=%s/bad=%d", nodes, share, mname, oname, level, bad)
							t.Run(name, func(t *testing.T) {
								w := world(t, nodes, share, "coll_base_check", level)
								errs := w.Each(func(r int) error {
									c := w.Comm(r)
									if m := c.Module(); m != "smp" {
										return fmt.Errorf("module %s", m)
									}
									var err error
									if r == bad {
										err = other(c)
									} else {
										err = main(c)
									}
									if err == nil {
										return errors.New("no error")
									}
									if errors.Is(err, colltest.ErrHang) {
										return err
									}
									if berr := c.Run(coll.Sig{Kind: coll.Barrier}, func(a *coll.Actions) error { return a.Barrier(c) }); berr != nil {
										return fmt.Errorf("the Barrier after %v: %w", err, berr)
									}
									return nil
								})
								for r, err := range errs {
									if err != nil {
										t.Errorf("rank %d: %v", r, err)
									}
								}
							})
						}
					}
				}
			}
		}
	}
}

// The carried collectives' results are the blocking ones' of lam_basic,
// bit for bit for a float sum (every process reduces all parts in
// lam_basic's order), on layouts with consecutive and interleaved
// ranks, at coll_base_check 1 and 2, with the nodes' steps through
// shmem or lam_basic.
func TestCarriedBits(t *testing.T) {
	for _, nodes := range [][]int32{{0, 0, 1, 1, 1}, {0, 1, 0, 1, 2}, {0, 0, 0, 1, 1, 1, 2, 2}} {
		want := allreduceFloats(t, nodes, 3, "coll", "lam_basic")
		for _, level := range []string{"1", "2"} {
			for _, share := range []bool{false, true} {
				t.Run(fmt.Sprintf("%v/check=%s/shared=%v", nodes, level, share), func(t *testing.T) {
					got := allreduceOn(t, world(t, nodes, share, "coll_base_check", level), nodes, 3)
					if string(got) != string(want) {
						t.Errorf("the carried Allreduce differs from lam_basic's")
					}
				})
			}
		}
	}
}

// world makes a world of processes on nodes; with share, the processes
// of a node share memory (their local communicators are shmem's), under
// area names of the test's own, none of which may be left at the end.
func world(t *testing.T, nodes []int32, share bool, params ...string) *colltest.World {
	t.Helper()
	if share {
		return colltest.NewSharedWorld(t, nodes, 10*time.Second, params...)
	}
	w := colltest.NewWorld(nodes, 10*time.Second, params...)
	t.Cleanup(w.Close)
	return w
}
