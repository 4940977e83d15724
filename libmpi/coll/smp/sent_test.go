package smp_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/coll/colltest"
)

// smp's small Bcast and Reduce send the call with their data at
// coll_base_check=1: a process that receives a message of another call
// returns the error (a Reduce's root: the calls merged on their way),
// the others nil; at 2 every process returns it. So do the small
// Ireduce (its root) and Iallreduce (every process: the merged call
// comes back with the result), through the hierarchy.
func TestMismatchSent(t *testing.T) {
	nodes := []int32{0, 0, 1, 1, 1}
	const bad = 3 // not a leader
	bcast := func(root int) func(c *coll.Comm) error {
		return func(c *coll.Comm) error {
			size := 8
			if c.Rank() == bad {
				size = 16
			}
			buf := coll.Buffer(size)
			return c.Run(coll.Sig{Kind: coll.Bcast, Root: root, Send: int64(size)}, func(a *coll.Actions) error { return a.Bcast(c, buf, root) })
		}
	}
	reduce := func(root int) func(c *coll.Comm) error {
		return func(c *coll.Comm) error {
			s := coll.Sig{Kind: coll.Reduce, Root: root, Send: 16, Op: 1, Type: 1}
			if c.Rank() == bad {
				s.Op = 2
			}
			var recv []byte
			if c.Rank() == root {
				recv = coll.Buffer(16)
			}
			return c.Run(s, func(a *coll.Actions) error { return a.Reduce(c, colltest.Ints(c.Rank(), 2), recv, &colltest.Sum, root) })
		}
	}
	// The nonblocking Ireduce and Iallreduce: their buffers stay as they
	// were on an error.
	ireduce := func(kind coll.Kind, root int) func(c *coll.Comm) error {
		return func(c *coll.Comm) error {
			if m := c.Module(); m != "smp" {
				return fmt.Errorf("module %s", m)
			}
			s := coll.Sig{Kind: kind, Root: root, Send: 16, Op: 1, Type: 1}
			if c.Rank() == bad {
				s.Op = 2
			}
			recv := coll.Buffer(16)
			done, err := colltest.Start(c, s, func(v *coll.Comm, a *coll.Actions) error {
				if kind == coll.Allreduce {
					return a.Allreduce(v, colltest.Ints(c.Rank(), 2), recv, &colltest.Sum)
				}
				return a.Reduce(v, colltest.Ints(c.Rank(), 2), recv, &colltest.Sum, root)
			})
			if err == nil {
				err = <-done
			}
			if err != nil && !bytes.Equal(recv, coll.Buffer(16)) {
				return fmt.Errorf("%w (the buffer written: %v)", err, colltest.I64(recv))
			}
			return err
		}
	}
	at := func(rank int, class coll.Class) func(r int) coll.Class {
		return func(r int) coll.Class {
			if r == rank {
				return class
			}
			return -1
		}
	}
	every := func(int) coll.Class { return coll.ErrOp }
	tests := []struct {
		name  string
		run   func(c *coll.Comm) error
		level map[string]func(r int) coll.Class // -1: no error
	}{
		{"bcast size, leader root", bcast(0), map[string]func(int) coll.Class{
			"1": at(bad, coll.ErrCount), "2": func(int) coll.Class { return coll.ErrCount }}},
		{"bcast size, other root", bcast(1), map[string]func(int) coll.Class{
			"1": at(bad, coll.ErrCount), "2": func(int) coll.Class { return coll.ErrCount }}},
		{"reduce op, leader root", reduce(0), map[string]func(int) coll.Class{
			"1": at(0, coll.ErrOp), "2": func(int) coll.Class { return coll.ErrOp }}},
		{"reduce op, other root", reduce(4), map[string]func(int) coll.Class{
			"1": at(4, coll.ErrOp), "2": func(int) coll.Class { return coll.ErrOp }}},
		{"ireduce op, leader root", ireduce(coll.Reduce, 0), map[string]func(int) coll.Class{"1": at(0, coll.ErrOp), "2": every}},
		{"ireduce op, other root", ireduce(coll.Reduce, 4), map[string]func(int) coll.Class{"1": at(4, coll.ErrOp), "2": every}},
		{"iallreduce op", ireduce(coll.Allreduce, 0), map[string]func(int) coll.Class{"1": every, "2": every}},
	}
	for _, tt := range tests {
		for _, level := range []string{"1", "2"} {
			t.Run(fmt.Sprintf("%s/check=%s", tt.name, level), func(t *testing.T) {
				w := colltest.NewWorld(nodes, 10*time.Second, "coll_base_check", level)
				defer w.Close()
				errs := w.Each(func(r int) error { return tt.run(w.Comm(r)) })
				want := tt.level[level]
				for r, err := range errs {
					if w := want(r); w < 0 && err != nil || w >= 0 && colltest.ClassOf(err) != w {
						t.Errorf("rank %d: %v, want class %d", r, err, w)
					}
				}
				if left := w.Leftover(); left != 0 {
					t.Errorf("%d messages nobody received", left)
				}
			})
		}
	}
}

// At coll_base_check=1 the processes of smp's small Bcast and Reduce that
// only send return before the others call: a Bcast's root, a Reduce's
// other processes (a wait for a round back would hang here). The results
// are right. (A Reduce's root that does not lead its node is waited for
// by its leader, which reduces the node's contributions.)
func TestSentReturns(t *testing.T) {
	for _, tt := range []struct {
		nodes   []int32
		leaders []int
	}{{[]int32{0, 0, 1, 1, 1}, []int{0, 2}}, {[]int32{0, 1, 0, 1}, []int{0, 1}}} {
		nodes := tt.nodes
		for _, kind := range []coll.Kind{coll.Bcast, coll.Reduce} {
			roots := []int{0, 1, len(nodes) - 1}
			if kind == coll.Reduce {
				roots = tt.leaders
			}
			for _, root := range roots {
				t.Run(fmt.Sprintf("%v/%s/root=%d", nodes, kind, root), func(t *testing.T) {
					n := len(nodes)
					w := colltest.NewWorld(nodes, 10*time.Second)
					defer w.Close()
					sends := func(r int) bool { return r == root == (kind == coll.Bcast) }
					// The module's setup waits for every process: the
					// communicators are set up first (a Barrier), and used
					// after.
					comms := make([]*coll.Comm, n)
					for r, err := range w.Each(func(r int) error {
						c := w.Comm(r)
						comms[r] = c
						return c.Run(coll.Sig{Kind: coll.Barrier}, func(a *coll.Actions) error { return a.Barrier(c) })
					}) {
						if err != nil {
							t.Fatalf("rank %d: barrier: %v", r, err)
						}
					}
					errs := w.SendersFirst(sends, 10*time.Second, func(r int) error {
						c := comms[r]
						var err error
						switch kind {
						case coll.Bcast:
							buf := coll.Buffer(8)
							if r == root {
								copy(buf, colltest.Ints(root, 1))
							}
							err = c.Run(coll.Sig{Kind: kind, Root: root, Send: 8}, func(a *coll.Actions) error { return a.Bcast(c, buf, root) })
							if err == nil && colltest.I64(buf)[0] != colltest.Val(root, 0) {
								err = fmt.Errorf("got %d", colltest.I64(buf)[0])
							}
						case coll.Reduce:
							var recv []byte
							if r == root {
								recv = coll.Buffer(8)
							}
							err = c.Run(coll.Sig{Kind: kind, Root: root, Send: 8, Op: 1, Type: 1}, func(a *coll.Actions) error {
								return a.Reduce(c, colltest.Ints(r, 1), recv, &colltest.Sum, root)
							})
							want := int64(0)
							for i := range n {
								want += colltest.Val(i, 0)
							}
							if err == nil && r == root && colltest.I64(recv)[0] != want {
								err = fmt.Errorf("got %d, want %d", colltest.I64(recv)[0], want)
							}
						}
						return err
					})
					w.Check(t, errs)
				})
			}
		}
	}
}
