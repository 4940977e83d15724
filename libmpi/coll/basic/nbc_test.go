package basic_test

import (
	"bytes"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/coll/colltest"
)

// twins is each collective as a function of the communicator and its
// functions, writing its result to out (n ranks, k int64s per block).
func twins(r, n, k int, op *coll.Op) map[coll.Kind]colltest.Twin {
	bs := 8 * k
	mine := colltest.Ints(r, k)
	root := n / 2
	return map[coll.Kind]colltest.Twin{
		coll.Barrier: func(c *coll.Comm, a *coll.Actions, out []byte) error { return a.Barrier(c) },
		coll.Bcast: func(c *coll.Comm, a *coll.Actions, out []byte) error {
			if r == root {
				copy(out, colltest.Ints(r, n*k))
			}
			return a.Bcast(c, out, root)
		},
		coll.Reduce: func(c *coll.Comm, a *coll.Actions, out []byte) error {
			return a.Reduce(c, mine, out[:bs], op, root)
		},
		coll.Allreduce: func(c *coll.Comm, a *coll.Actions, out []byte) error {
			return a.Allreduce(c, mine, out[:bs], op)
		},
		coll.Gather: func(c *coll.Comm, a *coll.Actions, out []byte) error {
			return a.Gather(c, mine, out, root)
		},
		coll.Gatherv: func(c *coll.Comm, a *coll.Actions, out []byte) error {
			var blocks [][]byte
			if r == root {
				for i := range n {
					blocks = append(blocks, out[i*bs:i*bs+8*(i%k+1)])
				}
			}
			return a.Gatherv(c, mine[:8*(r%k+1)], blocks, root)
		},
		coll.Scatter: func(c *coll.Comm, a *coll.Actions, out []byte) error {
			return a.Scatter(c, colltest.Ints(r, n*k), out[:bs], root)
		},
		coll.Scatterv: func(c *coll.Comm, a *coll.Actions, out []byte) error {
			all := colltest.Ints(r, n*k)
			var blocks [][]byte
			if r == root {
				for i := range n {
					blocks = append(blocks, all[i*bs:i*bs+8*(i%k+1)])
				}
			}
			return a.Scatterv(c, blocks, out[:8*(r%k+1)], root)
		},
		coll.Allgather: func(c *coll.Comm, a *coll.Actions, out []byte) error { return a.Allgather(c, mine, out) },
		coll.Allgatherv: func(c *coll.Comm, a *coll.Actions, out []byte) error {
			var blocks [][]byte
			for i := range n {
				blocks = append(blocks, out[i*bs:i*bs+8*(i%k+1)])
			}
			return a.Allgatherv(c, mine[:8*(r%k+1)], blocks)
		},
		coll.Alltoall: func(c *coll.Comm, a *coll.Actions, out []byte) error {
			return a.Alltoall(c, colltest.Ints(r, n*k), out)
		},
		coll.Alltoallv: func(c *coll.Comm, a *coll.Actions, out []byte) error {
			all := colltest.Ints(r, n*k)
			var s, v [][]byte
			for i := range n {
				s = append(s, all[i*bs:i*bs+8*((i+r)%k+1)])
				v = append(v, out[i*bs:i*bs+8*((i+r)%k+1)])
			}
			return a.Alltoallv(c, s, v)
		},
		coll.ReduceScatter: func(c *coll.Comm, a *coll.Actions, out []byte) error {
			counts := make([]int, n)
			for i := range counts {
				counts[i] = 8 * (i%k + 1)
			}
			total := 0
			for _, x := range counts {
				total += x
			}
			return a.ReduceScatter(c, colltest.Ints(r, n*k)[:total], out[:counts[r]], counts, op)
		},
		coll.ReduceScatterBlock: func(c *coll.Comm, a *coll.Actions, out []byte) error {
			return a.ReduceScatterBlock(c, colltest.Ints(r, n*k), out[:bs], op)
		},
		coll.Scan: func(c *coll.Comm, a *coll.Actions, out []byte) error { return a.Scan(c, mine, out[:bs], op) },
		coll.Exscan: func(c *coll.Comm, a *coll.Actions, out []byte) error {
			return a.Exscan(c, mine, out[:bs], op)
		},
	}
}

// Every nonblocking collective gives what its blocking twin gives, on 1
// to 5 processes, linear and binomial, and with the Allgather of one node
// sending every block at once (past coll_base_allgather_ring).
func TestNonblockingMatchesBlocking(t *testing.T) {
	for _, params := range [][]string{nil, {"coll_base_crossover", "1"}, {"coll_base_allgather_ring", "8"}} {
		for n := 1; n <= 5; n++ {
			for _, k := range []int{1, 3, 100, 4, 200} {
				op, opName := &colltest.Sum, "sum"
				if k%4 == 0 {
					op, opName = &colltest.MatMul, "matmul" // not commutative: the order of ranks shows
				}
				t.Run(fmt.Sprintf("n=%d/k=%d/%s/%v", n, k, opName, params), func(t *testing.T) {
					w := colltest.NewWorld(oneNode(n), 20*time.Second, params...)
					defer w.Close()
					errs := w.Each(func(r int) error {
						c := w.Comm(r)
						c2, err := c.T.Split(0, r)
						if err != nil {
							return err
						}
						fs := twins(r, n, k, op)
						for kind := coll.Barrier; kind < coll.Check; kind++ {
							f := fs[kind]
							if f == nil {
								continue
							}
							want, got := coll.Buffer(8*n*k), coll.Buffer(8*n*k)
							sig := coll.Sig{Kind: kind, Send: -1, Recv: -1}
							if kind == coll.Reduce || kind == coll.Allreduce {
								// Their size chooses the algorithm: small ones
								// send the call with the data.
								sig.Send = int64(8 * k)
							}
							// The blocking twin, on a duplicate.
							if err := c2.Run(sig, func(a *coll.Actions) error { return f(c2, a, want) }); err != nil {
								return fmt.Errorf("%s blocking: %w", kind, err)
							}
							done, err := colltest.Start(c, sig, func(v *coll.Comm, a *coll.Actions) error { return f(v, a, got) })
							if err != nil {
								return fmt.Errorf("%s: start: %w", kind, err)
							}
							if err := <-done; err != nil {
								return fmt.Errorf("%s: %w", kind, err)
							}
							if !bytes.Equal(got, want) {
								return colltest.Fail(kind.String(), r, got, want)
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

// Two nonblocking Allreduces outstanding on one communicator, waited for
// in the opposite order (and on rank 0 only after a blocking Allreduce on
// the same communicator and one on a duplicate), each get their own
// result: their messages never cross.
func TestNonblockingOutstanding(t *testing.T) {
	for n := 1; n <= 5; n++ {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			w := colltest.NewWorld(oneNode(n), 20*time.Second, "coll_base_check", "0")
			defer w.Close()
			const k = 1000
			errs := w.Each(func(r int) error {
				c := w.Comm(r)
				dup, err := c.T.Split(0, r)
				if err != nil {
					return err
				}
				in1, in2 := colltest.Ints(r, k), colltest.Ints(r+7, k)
				out1, out2 := coll.Buffer(8*k), coll.Buffer(8*k)
				d1, err := colltest.Start(c, coll.Sig{Kind: coll.Allreduce, Send: -1, Recv: -1}, func(v *coll.Comm, a *coll.Actions) error { return a.Allreduce(v, in1, out1, &colltest.Sum) })
				if err != nil {
					return err
				}
				d2, err := colltest.Start(c, coll.Sig{Kind: coll.Allreduce, Send: -1, Recv: -1}, func(v *coll.Comm, a *coll.Actions) error { return a.Allreduce(v, in2, out2, &colltest.Sum) })
				if err != nil {
					return err
				}
				if r == 0 {
					time.Sleep(20 * time.Millisecond) // the others' messages arrive first
				}
				// Blocking ones, while both are under way.
				b, bd := coll.Buffer(8*k), coll.Buffer(8*k)
				if err := c.Run(coll.Sig{Kind: coll.Allreduce, Send: 8 * k}, func(a *coll.Actions) error { return a.Allreduce(c, in2, b, &colltest.Sum) }); err != nil {
					return fmt.Errorf("blocking: %w", err)
				}
				if err := dup.Run(coll.Sig{Kind: coll.Allreduce, Send: 8 * k}, func(a *coll.Actions) error { return a.Allreduce(dup, in1, bd, &colltest.Sum) }); err != nil {
					return fmt.Errorf("blocking on the duplicate: %w", err)
				}
				if err := <-d2; err != nil {
					return fmt.Errorf("second: %w", err)
				}
				if err := <-d1; err != nil {
					return fmt.Errorf("first: %w", err)
				}
				if !bytes.Equal(out1, bd) {
					return colltest.Fail("first", r, out1, bd)
				}
				if !bytes.Equal(out2, b) {
					return colltest.Fail("second", r, out2, b)
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

// On intercommunicators (groups of 1-3 and 1-2 processes), nonblocking
// Barrier, Bcast, Allreduce, Gather and Allgather, two at a time
// outstanding, give what the blocking forms give.
func TestNonblockingInter(t *testing.T) {
	for na := 1; na <= 3; na++ {
		for nb := 1; nb <= 2; nb++ {
			t.Run(fmt.Sprintf("%d+%d", na, nb), func(t *testing.T) {
				n := na + nb
				var a, b []int
				for i := range n {
					if i < na {
						a = append(a, i)
					} else {
						b = append(b, i)
					}
				}
				w := colltest.NewWorld(oneNode(n), 20*time.Second)
				defer w.Close()
				const k = 50
				errs := w.Each(func(r int) error {
					c := w.Inter(a, b, r)
					isA := r < na
					l, nr := c.Rank(), c.T.RemoteSize()
					root := coll.ProcNull // A's rank 0 is the root of the Bcast
					switch {
					case isA && l == 0:
						root = coll.Root
					case !isA:
						root = 0
					}
					mine := colltest.Ints(r, k)
					type op struct {
						kind coll.Kind
						sig  coll.Sig
						f    func(c *coll.Comm, a *coll.Actions, out []byte) error
					}
					ops := []op{
						{coll.Barrier, coll.Sig{Kind: coll.Barrier}, func(c *coll.Comm, a *coll.Actions, out []byte) error { return a.Barrier(c) }},
						{coll.Bcast, coll.Sig{Kind: coll.Bcast, Root: root}, func(c *coll.Comm, a *coll.Actions, out []byte) error {
							if root == coll.Root {
								copy(out, mine)
							}
							if root == coll.ProcNull {
								return a.Bcast(c, nil, root)
							}
							return a.Bcast(c, out[:8*k], root)
						}},
						{coll.Allreduce, coll.Sig{Kind: coll.Allreduce, Send: 8 * k, Recv: 8 * k}, func(c *coll.Comm, a *coll.Actions, out []byte) error {
							return a.Allreduce(c, mine, out[:8*k], &colltest.Sum)
						}},
						{coll.Allgather, coll.Sig{Kind: coll.Allgather, Send: 8 * k, Recv: 8 * k}, func(c *coll.Comm, a *coll.Actions, out []byte) error {
							return a.Allgather(c, mine, out[:8*k*nr])
						}},
					}
					outs := make([][]byte, len(ops))
					dones := make([]<-chan error, len(ops))
					for i, o := range ops {
						outs[i] = coll.Buffer(8 * k * 3)
						var err error
						dones[i], err = colltest.Start(c, o.sig, func(v *coll.Comm, a *coll.Actions) error { return o.f(v, a, outs[i]) })
						if err != nil {
							return err
						}
					}
					for i := len(ops) - 1; i >= 0; i-- {
						if err := <-dones[i]; err != nil {
							return fmt.Errorf("%s: %w", ops[i].kind, err)
						}
					}
					for i, o := range ops {
						want := coll.Buffer(8 * k * 3)
						if err := c.Run(o.sig, func(a *coll.Actions) error { return o.f(c, a, want) }); err != nil {
							return fmt.Errorf("%s blocking: %w", o.kind, err)
						}
						if !bytes.Equal(outs[i], want) {
							return colltest.Fail(o.kind.String(), r, outs[i], want)
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

// With coll_base_check on, a nonblocking collective's processes compare
// their signatures on the view before it runs: a size that differs on
// rank 0 is ErrCount everywhere, a root that differs ErrRoot, while a
// matching one outstanding beside them, and a blocking one (whose own
// check runs meanwhile), give their results.
func TestNonblockingCheck(t *testing.T) {
	for n := 2; n <= 5; n++ {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			w := colltest.NewWorld(oneNode(n), 20*time.Second, "coll_base_check", "1", "coll_base_sent_size", "0")
			defer w.Close()
			const k = 100
			errs := w.Each(func(r int) error {
				c := w.Comm(r)
				in := colltest.Ints(r, k)
				size := int64(8 * k)
				if r == 0 {
					size--
				}
				bad, err := colltest.Start(c, coll.Sig{Kind: coll.Allreduce, Send: size}, func(v *coll.Comm, a *coll.Actions) error {
					v.Schedule().Do(func() error { return fmt.Errorf("ran despite the mismatch") })
					return nil
				})
				if err != nil {
					return err
				}
				root := 0
				if r == n-1 {
					root = 1
				}
				// Above coll_base_small (and coll_base_sent_size 0): a
				// smaller one sends the call with its data
				// (TestNonblockingSent).
				badRoot, err := colltest.Start(c, coll.Sig{Kind: coll.Bcast, Root: root, Send: 8 * k}, func(v *coll.Comm, a *coll.Actions) error {
					v.Schedule().Do(func() error { return fmt.Errorf("ran despite the mismatch") })
					return nil
				})
				if err != nil {
					return err
				}
				out := coll.Buffer(8 * k)
				good, err := colltest.Start(c, coll.Sig{Kind: coll.Allreduce, Send: 8 * k}, func(v *coll.Comm, a *coll.Actions) error {
					return a.Allreduce(v, in, out, &colltest.Sum)
				})
				if err != nil {
					return err
				}
				b := coll.Buffer(8 * k)
				if err := c.Run(coll.Sig{Kind: coll.Allreduce, Send: 8 * k}, func(a *coll.Actions) error { return a.Allreduce(c, in, b, &colltest.Sum) }); err != nil {
					return fmt.Errorf("blocking: %w", err)
				}
				var ce *coll.Error
				if err := <-bad; !errors.As(err, &ce) || ce.Class != coll.ErrCount {
					return fmt.Errorf("other sizes: %v, want ErrCount", err)
				}
				if err := <-badRoot; !errors.As(err, &ce) || ce.Class != coll.ErrRoot {
					return fmt.Errorf("other roots: %v, want ErrRoot", err)
				}
				if err := <-good; err != nil {
					return fmt.Errorf("matching: %w", err)
				}
				if !bytes.Equal(out, b) {
					return colltest.Fail("matching", r, out, b)
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

// Many nonblocking collectives outstanding at once on three
// communicators (the world, a duplicate, the halves by parity), started
// in an order across them that differs from rank to rank, with a
// blocking Allreduce on a fourth after each round, linear and binomial:
// each gives what its blocking twin gives afterwards.
func TestNonblockingMany(t *testing.T) {
	kinds := []coll.Kind{coll.Allreduce, coll.Bcast, coll.Barrier, coll.Allgather, coll.Alltoall, coll.Scan}
	fs := func(c *coll.Comm, k int) (map[coll.Kind]colltest.Twin, int) {
		return twins(c.Rank(), c.Size(), k, &colltest.Sum), 8 * c.Size() * k
	}
	for _, params := range [][]string{nil, {"coll_base_crossover", "1"}, {"coll_base_check", "0"}} {
		for _, n := range []int{3, 7} {
			t.Run(fmt.Sprintf("n=%d/%v", n, params), func(t *testing.T) {
				w := colltest.NewWorld(oneNode(n), 20*time.Second, params...)
				defer w.Close()
				w.Check(t, w.Each(func(r int) error { return colltest.ManyOutstanding(w.Comm(r), r, kinds, fs, false) }))
			})
		}
	}
}

// A nonblocking Barrier at coll_base_check=1 is its argument check, as
// the blocking one is: it sends no more messages than the check alone
// (Start with no collective), and still completes on no process before
// the last one has started it (that one starts late on purpose).
func TestNonblockingBarrierIsCheck(t *testing.T) {
	for _, n := range []int{2, 3, 4, 5} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			w := colltest.NewWorld(oneNode(n), 20*time.Second)
			defer w.Close()
			var lastStarted atomic.Bool
			errs := w.Each(func(r int) error {
				c := w.Comm(r)
				barrier := coll.Sig{Kind: coll.Barrier}
				if err := c.Run(barrier, func(a *coll.Actions) error { return a.Barrier(c) }); err != nil {
					return err // sets the communicator up
				}
				if !c.Params.Check {
					return errors.New("coll_base_check is off")
				}
				s0, _ := w.Messages(r)
				v, err := c.Reserve(coll.Barrier)
				if err != nil {
					return err
				}
				if err := v.RunView(barrier, nil); err != nil {
					return fmt.Errorf("the check alone: %w", err)
				}
				s1, _ := w.Messages(r)
				if r == n-1 {
					time.Sleep(20 * time.Millisecond)
					lastStarted.Store(true)
				}
				done, err := colltest.Start(c, barrier, func(v *coll.Comm, a *coll.Actions) error { return a.Barrier(v) })
				if err != nil {
					return err
				}
				if err := <-done; err != nil {
					return err
				}
				if !lastStarted.Load() {
					return errors.New("the Ibarrier completed before the last process started it")
				}
				s2, _ := w.Messages(r)
				if check, ibarrier := s1-s0, s2-s1; ibarrier > check {
					return fmt.Errorf("the Ibarrier sent %d messages, its check alone %d", ibarrier, check)
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

// Past coll_base_allgather_ring on one node, a nonblocking Allgather
// sends each process's block to every other at once (n-1 messages a
// process, as the blocking one), in place and not, instead of a gather
// to rank 0 and a broadcast.
func TestNonblockingAllgatherAtOnce(t *testing.T) {
	const n, k = 4, 40 // int64s a block: past the ring size below
	for _, inPlace := range []bool{false, true} {
		t.Run(fmt.Sprint("in place ", inPlace), func(t *testing.T) {
			w := colltest.NewWorld(oneNode(n), 20*time.Second, "coll_base_check", "0", "coll_base_allgather_ring", "64")
			errs := w.Each(func(r int) error {
				c := w.Comm(r)
				out := coll.Buffer(8 * n * k)
				send := colltest.Ints(r, k)
				if inPlace {
					copy(out[r*8*k:], send)
					send = nil
				}
				done, err := colltest.Start(c, coll.Sig{Kind: coll.Allgather, Send: 8 * k, Recv: 8 * k}, func(v *coll.Comm, a *coll.Actions) error {
					return a.Allgather(v, send, out)
				})
				if err != nil {
					return err
				}
				if err := <-done; err != nil {
					return err
				}
				for q := range n {
					if !bytes.Equal(out[q*8*k:(q+1)*8*k], colltest.Ints(q, k)) {
						return fmt.Errorf("block %d is not process %d's", q, q)
					}
				}
				return nil
			})
			checkSent(t, w, errs, func(int) int { return n - 1 })
		})
	}
}
