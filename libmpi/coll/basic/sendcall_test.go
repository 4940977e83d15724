package basic_test

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/coll/colltest"
)

// At coll_base_check=1 (the default) a small Bcast, Gather or Scatter
// sends the call with its data: the processes that receive a message of
// another call return the error, the ones that only send return nil, and
// nothing is left unreceived.
func TestMismatchSent(t *testing.T) {
	const n, bad = 5, 3
	size := func(c *coll.Comm) int {
		if c.Rank() == bad {
			return 16
		}
		return 8
	}
	bcastSize := func(c *coll.Comm) error {
		buf := coll.Buffer(size(c))
		return c.Run(coll.Sig{Kind: coll.Bcast, Send: int64(len(buf))}, func(a *coll.Actions) error { return a.Bcast(c, buf, 0) })
	}
	badCount := func(r int) coll.Class {
		if r == bad {
			return coll.ErrCount
		}
		return -1
	}
	tests := []struct {
		name   string
		params []string
		run    func(c *coll.Comm) error
		want   func(r int) coll.Class // -1: no error
	}{
		{"bcast size", nil, bcastSize, badCount},
		{"bcast size, tree", []string{"coll_base_crossover", "1"}, bcastSize, badCount},
		{"gather size", nil, func(c *coll.Comm) error {
			var recv []byte
			if c.Rank() == 0 {
				recv = coll.Buffer(n * 8)
			}
			k := size(c) / 8
			return c.Run(coll.Sig{Kind: coll.Gather, Send: int64(8 * k)}, func(a *coll.Actions) error {
				return a.Gather(c, colltest.Ints(c.Rank(), k), recv, 0)
			})
		}, func(r int) coll.Class {
			if r == 0 {
				return coll.ErrCount
			}
			return -1
		}},
		{"scatter op", nil, func(c *coll.Comm) error {
			var send []byte
			if c.Rank() == 0 {
				send = colltest.Ints(0, n)
			}
			s := coll.Sig{Kind: coll.Scatter, Send: 8}
			if c.Rank() == bad {
				s.Type = 2
			}
			return c.Run(s, func(a *coll.Actions) error { return a.Scatter(c, send, coll.Buffer(8), 0) })
		}, func(r int) coll.Class {
			if r == bad {
				return coll.ErrType
			}
			return -1
		}},
		{"own argument", nil, func(c *coll.Comm) error {
			// At a receiver of a Bcast: it returns its error at once
			// (the root's message stays unreceived); the others are
			// served. (At a sender, the receivers would wait for it.)
			s := coll.Sig{Kind: coll.Bcast, Send: 8}
			if c.Rank() == bad {
				s.Err = coll.Errorf(coll.ErrBuffer, "bad buffer")
			}
			return c.Run(s, func(a *coll.Actions) error { return a.Bcast(c, coll.Buffer(8), 0) })
		}, func(r int) coll.Class {
			if r == bad {
				return coll.ErrBuffer
			}
			return -1
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := colltest.NewWorld(oneNode(n), 10*time.Second, tt.params...)
			defer w.Close()
			errs := w.Each(func(r int) error { return tt.run(w.Comm(r)) })
			for r, err := range errs {
				want := tt.want(r)
				if want < 0 && err != nil || want >= 0 && classOf(err) != want {
					t.Errorf("rank %d: %v, want class %d", r, err, want)
				}
			}
			left := w.Leftover()
			if tt.name == "own argument" {
				left-- // the root's message to rank 3, which returned at once
			}
			if left != 0 {
				t.Errorf("%d messages nobody received", left)
			}
		})
	}
}

// At coll_base_check=1 a process that only sends returns without a round
// back: a Bcast's and a Scatter's root, a Gather's other processes finish
// before the others have called (a wait for them would hang here).
func TestSentReturns(t *testing.T) {
	for _, n := range []int{2, 3, 5, 8} {
		for _, kind := range []coll.Kind{coll.Bcast, coll.Gather, coll.Scatter} {
			t.Run(fmt.Sprintf("%s/n=%d", kind, n), func(t *testing.T) {
				const root = 1
				w := colltest.NewWorld(oneNode(n), 10*time.Second)
				defer w.Close()
				sends := func(r int) bool { return r == root != (kind == coll.Gather) }
				errs := w.SendersFirst(sends, 10*time.Second, func(r int) error {
					c := w.Comm(r)
					var err error
					switch kind {
					case coll.Bcast:
						buf := coll.Buffer(8)
						if r == root {
							copy(buf, colltest.Ints(root, 1))
						}
						err = c.Run(coll.Sig{Kind: coll.Bcast, Root: root, Send: 8}, func(a *coll.Actions) error { return a.Bcast(c, buf, root) })
						if err == nil && r != root && colltest.I64(buf)[0] != colltest.Val(root, 0) {
							err = fmt.Errorf("got %d", colltest.I64(buf)[0])
						}
					case coll.Gather:
						var recv []byte
						if r == root {
							recv = coll.Buffer(8 * n)
						}
						err = c.Run(coll.Sig{Kind: coll.Gather, Root: root, Send: 8}, func(a *coll.Actions) error {
							return a.Gather(c, colltest.Ints(r, 1), recv, root)
						})
						for i := 0; err == nil && r == root && i < n; i++ {
							if colltest.I64(recv)[i] != colltest.Val(i, 0) {
								err = fmt.Errorf("block %d: got %d", i, colltest.I64(recv)[i])
							}
						}
					case coll.Scatter:
						var send []byte
						if r == root {
							send = coll.Buffer(8 * n)
							for i := range n {
								colltest.I64(send)[i] = colltest.Val(i, 0)
							}
						}
						recv := coll.Buffer(8)
						err = c.Run(coll.Sig{Kind: coll.Scatter, Root: root, Send: 8}, func(a *coll.Actions) error { return a.Scatter(c, send, recv, root) })
						if err == nil && colltest.I64(recv)[0] != colltest.Val(r, 0) {
							err = fmt.Errorf("got %d", colltest.I64(recv)[0])
						}
					}
					return err
				})
				w.Check(t, errs)
			})
		}
	}
}

// The messages of a small rooted collective per process and operation,
// at coll_base_check=1 and 2: at 1, a process that only sends posts no
// receive (it does not wait for anyone), up to coll_base_small bytes and
// above it up to coll_base_sent_size; where neither applies it checks
// first, and so receives.
func TestSentMessages(t *testing.T) {
	const n, root, ops = 4, 0, 10
	for _, kind := range []coll.Kind{coll.Bcast, coll.Gather, coll.Scatter} {
		for _, level := range []string{"1", "2"} {
			// 2 KiB blocks: above coll_base_small, within
			// coll_base_sent_size (Gather, Scatter: the n blocks), unless
			// that is 0.
			for _, tt := range []struct {
				bs       int
				sentSize string
			}{{8, "16384"}, {2048, "16384"}, {2048, "0"}} {
				bs := tt.bs
				w := colltest.NewWorld(oneNode(n), 10*time.Second, "coll_base_check", level, "coll_base_sent_size", tt.sentSize)
				errs := w.Each(func(r int) error {
					c := w.Comm(r)
					for range ops {
						var err error
						switch kind {
						case coll.Bcast:
							err = c.Run(coll.Sig{Kind: kind, Send: int64(bs)}, func(a *coll.Actions) error { return a.Bcast(c, coll.Buffer(bs), root) })
						case coll.Gather:
							var recv []byte
							if r == root {
								recv = coll.Buffer(bs * n)
							}
							err = c.Run(coll.Sig{Kind: kind, Send: int64(bs)}, func(a *coll.Actions) error { return a.Gather(c, coll.Buffer(bs), recv, root) })
						case coll.Scatter:
							var send []byte
							if r == root {
								send = coll.Buffer(bs * n)
							}
							err = c.Run(coll.Sig{Kind: kind, Send: int64(bs)}, func(a *coll.Actions) error { return a.Scatter(c, send, coll.Buffer(bs), root) })
						}
						if err != nil {
							return err
						}
					}
					return nil
				})
				w.Close()
				for r, err := range errs {
					if err != nil {
						t.Fatalf("%s level %s bs %d rank %d: %v", kind, level, bs, r, err)
					}
				}
				sent := level == "1" && (bs == 8 || tt.sentSize != "0")
				var line string
				for r := range n {
					s, rc := w.Messages(r)
					line += fmt.Sprintf(" rank %d: %.1f sent %.1f received", r, float64(s)/ops, float64(rc)/ops)
					sends := r == root != (kind == coll.Gather)
					if sent && sends && rc != 0 {
						t.Errorf("%s bs %d rank %d only sends, yet posted %d receives", kind, bs, r, rc)
					}
					if !sent && sends && rc == 0 {
						t.Errorf("%s level %s bs %d sent_size %s rank %d posted no receive: it did not check", kind, level, bs, tt.sentSize, r)
					}
				}
				t.Logf("%s n=%d coll_base_check=%s bs=%d coll_base_sent_size=%s, per op:%s", kind, n, level, bs, tt.sentSize, line)
			}
		}
	}
}

// The small nonblocking Ibcast, Igather and Iscatter send the call with
// their data at coll_base_check=1, as the blocking ones do: the
// receivers of a message of another call end with the error, the others
// with nil, the data right where the calls agree; at 2 every process
// ends with it. So do Ireduce (the root compares the merged calls) and
// Iallreduce (every process does), their buffers untouched on an error.
// Linear (crossover 8) and binomial (n = 5 is above 4 and 1).
func TestNonblockingSent(t *testing.T) {
	const n, bad, root = 5, 3, 1
	start := func(c *coll.Comm, sig coll.Sig, f func(v *coll.Comm, a *coll.Actions) error) error {
		done, err := colltest.Start(c, sig, f)
		if err != nil {
			return err
		}
		return <-done
	}
	tests := []struct {
		name string
		run  func(c *coll.Comm) error
		want map[string]func(r int) coll.Class // -1: no error
	}{
		{"ibcast size", func(c *coll.Comm) error {
			size := 8
			if c.Rank() == bad {
				size = 16
			}
			buf := coll.Buffer(size)
			if c.Rank() == root {
				copy(buf, colltest.Ints(root, 1))
			}
			err := start(c, coll.Sig{Kind: coll.Bcast, Root: root, Send: int64(size)}, func(v *coll.Comm, a *coll.Actions) error { return a.Bcast(v, buf, root) })
			if err == nil && colltest.I64(buf)[0] != colltest.Val(root, 0) {
				return fmt.Errorf("got %d", colltest.I64(buf)[0])
			}
			return err
		}, map[string]func(int) coll.Class{"1": only(bad, coll.ErrCount), "2": every(coll.ErrCount)}},
		{"igather size", func(c *coll.Comm) error {
			var recv []byte
			if c.Rank() == root {
				recv = coll.Buffer(n * 8)
			}
			k := 1
			if c.Rank() == bad {
				k = 2
			}
			err := start(c, coll.Sig{Kind: coll.Gather, Root: root, Send: int64(8 * k)}, func(v *coll.Comm, a *coll.Actions) error {
				return a.Gather(v, colltest.Ints(c.Rank(), k), recv, root)
			})
			for i := 0; !c.Params.CheckAll && i < n; i++ { // at 2 nothing is written
				if c.Rank() == root && i != bad && colltest.I64(recv)[i] != colltest.Val(i, 0) {
					return fmt.Errorf("block %d: got %d (%v)", i, colltest.I64(recv)[i], err)
				}
			}
			return err
		}, map[string]func(int) coll.Class{"1": only(root, coll.ErrCount), "2": every(coll.ErrCount)}},
		{"iscatter type", func(c *coll.Comm) error {
			var send []byte
			if c.Rank() == root {
				send = coll.Buffer(8 * n)
				for i := range n {
					colltest.I64(send)[i] = colltest.Val(i, 0)
				}
			}
			s := coll.Sig{Kind: coll.Scatter, Root: root, Send: 8}
			if c.Rank() == bad {
				s.Type = 2
			}
			recv := coll.Buffer(8)
			err := start(c, s, func(v *coll.Comm, a *coll.Actions) error { return a.Scatter(v, send, recv, root) })
			if err == nil && colltest.I64(recv)[0] != colltest.Val(c.Rank(), 0) {
				return fmt.Errorf("got %d", colltest.I64(recv)[0])
			}
			return err
		}, map[string]func(int) coll.Class{"1": only(bad, coll.ErrType), "2": every(coll.ErrType)}},
		{"ireduce op", func(c *coll.Comm) error {
			s := coll.Sig{Kind: coll.Reduce, Root: root, Send: 16, Op: 1, Type: 1}
			if c.Rank() == bad {
				s.Op = 2
			}
			recv := coll.Buffer(16)
			err := start(c, s, func(v *coll.Comm, a *coll.Actions) error {
				return a.Reduce(v, colltest.Ints(c.Rank(), 2), recv, &colltest.Sum, root)
			})
			if err != nil && (c.Rank() != root || !bytes.Equal(recv, coll.Buffer(16))) {
				return fmt.Errorf("%w (the buffer written: %v)", err, colltest.I64(recv))
			}
			return err
		}, map[string]func(int) coll.Class{"1": only(root, coll.ErrOp), "2": every(coll.ErrOp)}},
		{"ireduce size", func(c *coll.Comm) error {
			k := 1
			if c.Rank() == bad {
				k = 2
			}
			recv := coll.Buffer(8 * k)
			return start(c, coll.Sig{Kind: coll.Reduce, Root: root, Send: int64(8 * k), Op: 1, Type: 1}, func(v *coll.Comm, a *coll.Actions) error {
				return a.Reduce(v, colltest.Ints(c.Rank(), k), recv, &colltest.Sum, root)
			})
		}, map[string]func(int) coll.Class{"1": only(root, coll.ErrCount), "1/binomial": func(r int) coll.Class {
			// The root, and the bad process, which receives rank 4's
			// message on the way (it is its parent in the tree).
			if r == root || r == bad {
				return coll.ErrCount
			}
			return -1
		}, "2": every(coll.ErrCount)}},
		{"iallreduce op", func(c *coll.Comm) error {
			s := coll.Sig{Kind: coll.Allreduce, Send: 16, Op: 1, Type: 1}
			if c.Rank() == bad {
				s.Op = 2
			}
			recv := coll.Buffer(16)
			err := start(c, s, func(v *coll.Comm, a *coll.Actions) error {
				return a.Allreduce(v, colltest.Ints(c.Rank(), 2), recv, &colltest.Sum)
			})
			if err != nil && !bytes.Equal(recv, coll.Buffer(16)) {
				return fmt.Errorf("%w (the buffer written: %v)", err, colltest.I64(recv))
			}
			return err
		}, map[string]func(int) coll.Class{"1": every(coll.ErrOp), "2": every(coll.ErrOp)}},
	}
	for _, tt := range tests {
		for _, level := range []string{"1", "2"} {
			for _, cross := range []string{"8", "4", "1"} {
				t.Run(fmt.Sprintf("%s/check=%s/crossover=%s", tt.name, level, cross), func(t *testing.T) {
					w := colltest.NewWorld(oneNode(n), 10*time.Second, "coll_base_check", level, "coll_base_crossover", cross)
					defer w.Close()
					errs := w.Each(func(r int) error { return tt.run(w.Comm(r)) })
					wants := tt.want[level]
					if f := tt.want[level+"/binomial"]; f != nil && cross != "8" {
						wants = f
					}
					for r, err := range errs {
						if want := wants(r); want < 0 && err != nil || want >= 0 && classOf(err) != want {
							t.Errorf("rank %d: %v, want class %d", r, err, want)
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

func only(rank int, class coll.Class) func(r int) coll.Class {
	return func(r int) coll.Class {
		if r == rank {
			return class
		}
		return -1
	}
}

func every(class coll.Class) func(int) coll.Class { return func(int) coll.Class { return class } }

// The cost of a small Ireduce and Iallreduce per operation on 4
// processes, counted (so independent of load): messages sent and
// receives posted per process, and allocations per operation (every
// process's, the fake world's copies included), at coll_base_check=1
// and 2, linear and binomial. At 1 (linear), a process other than the
// root sends one message and receives none (Ireduce: but the flow
// control's acknowledgement every 64) or one (Iallreduce).
func TestNonblockingReduceCost(t *testing.T) {
	const n, root, ops = 4, 0, 200
	for _, kind := range []coll.Kind{coll.Reduce, coll.Allreduce} {
		for _, level := range []string{"1", "2"} {
			for _, cross := range []string{"4", "1"} {
				w := colltest.NewWorld(oneNode(n), 20*time.Second, "coll_base_check", level, "coll_base_crossover", cross)
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				errs := w.Each(func(r int) error {
					c := w.Comm(r)
					in, out := colltest.Ints(r, 1), coll.Buffer(8)
					for range ops {
						done, err := colltest.Start(c, coll.Sig{Kind: kind, Root: root, Send: 8, Op: 1, Type: 1}, func(v *coll.Comm, a *coll.Actions) error {
							if kind == coll.Reduce {
								return a.Reduce(v, in, out, &colltest.Sum, root)
							}
							return a.Allreduce(v, in, out, &colltest.Sum)
						})
						if err != nil {
							return err
						}
						if err := <-done; err != nil {
							return err
						}
					}
					return nil
				})
				runtime.ReadMemStats(&after)
				w.Close()
				w.Check(t, errs)
				var line string
				for r := range n {
					s, rc := w.Messages(r)
					line += fmt.Sprintf(" %d: %.1f/%.1f", r, float64(s)/ops, float64(rc)/ops)
					switch {
					case level == "2" || cross == "1":
					case kind == coll.Reduce && r != root && (s != ops || rc != ops/64):
						// The receives are the flow control's
						// acknowledgements (coll_base_sent_sync, 64).
						t.Errorf("%s rank %d: %d sends and %d receives in %d ops, want a send each and a receive every 64", kind, r, s, rc, ops)
					case kind == coll.Allreduce && r != root && (s != ops || rc != ops):
						t.Errorf("%s rank %d: %d sends and %d receives in %d ops, want one each per op", kind, r, s, rc, ops)
					}
				}
				t.Logf("%s check=%s crossover=%s: sent/received per op by rank%s; %.1f allocs/op",
					kind, level, cross, line, float64(after.Mallocs-before.Mallocs)/ops)
			}
		}
	}
}

// A process that receives the data of a small rooted collective at
// coll_base_check=1 (a Gather's root, a Bcast's or Scatter's other
// processes; an Ireduce's root) and is slower than the processes that
// only send has at most coll_base_sent_sync calls' messages from each of
// them queued: every so many calls they wait for its acknowledgement.
// Without it (0) the senders run as far ahead as they like. Blocking and
// nonblocking, at coll_base_check 1 (the calls sent with the data) and
// 0 (no check: the senders' eager sends return as soon).
func TestSentSync(t *testing.T) {
	const n, root, ops, k = 4, 1, 2000, 16
	type test struct {
		kind coll.Kind
		nb   bool
	}
	var tests []test
	for _, kind := range []coll.Kind{coll.Gather, coll.Bcast, coll.Scatter} {
		tests = append(tests, test{kind, false}, test{kind, true})
	}
	tests = append(tests, test{coll.Reduce, true})
	for _, tt := range tests {
		kind := tt.kind
		for _, c := range []struct{ check, sync int }{{1, k}, {1, 0}, {0, k}, {0, 0}} {
			sync := c.sync
			cross := "4"
			if kind == coll.Bcast && sync > 0 {
				cross = "1" // down the binomial tree; the others are linear
			}
			t.Run(fmt.Sprintf("%s/nonblocking=%v/check=%d/sync=%d", kind, tt.nb, c.check, sync), func(t *testing.T) {
				w := colltest.NewWorld(oneNode(n), 20*time.Second, "coll_base_sent_sync", fmt.Sprint(sync), "coll_base_crossover", cross,
					"coll_base_check", fmt.Sprint(c.check))
				defer w.Close()
				toRoot := kind == coll.Gather || kind == coll.Reduce
				receives := func(r int) bool { return r == root == toRoot }
				errs := w.Each(func(r int) error {
					c := w.Comm(r)
					send, recv := coll.Buffer(8*n), coll.Buffer(8*n)
					f := func(c *coll.Comm, a *coll.Actions) error {
						switch kind {
						case coll.Gather:
							return a.Gather(c, send[:8], recv, root)
						case coll.Bcast:
							return a.Bcast(c, recv[:8], root)
						case coll.Scatter:
							return a.Scatter(c, send, recv[:8], root)
						}
						return a.Reduce(c, send[:8], recv[:8], &colltest.Sum, root)
					}
					for i := range ops {
						if receives(r) && i%100 == 0 {
							time.Sleep(time.Millisecond) // slower than the senders
						}
						sig := coll.Sig{Kind: kind, Root: root, Send: 8, Op: 1, Type: 1}
						var err error
						if tt.nb {
							var done <-chan error
							if done, err = colltest.Start(c, sig, f); err == nil {
								err = <-done
							}
						} else {
							err = c.Run(sig, func(a *coll.Actions) error { return f(c, a) })
						}
						if err != nil {
							return fmt.Errorf("call %d: %w", i, err)
						}
					}
					return nil
				})
				w.Check(t, errs)
				most := 0
				for r := range n {
					if receives(r) {
						most = max(most, w.MostQueued(r))
					}
				}
				bound := k // from its one sender (Bcast, Scatter: the root)
				if toRoot {
					bound = (n - 1) * k
				}
				switch {
				case sync > 0 && most > bound:
					t.Errorf("%d messages queued at a receiver, more than %d", most, bound)
				case sync == 0 && most <= bound:
					t.Errorf("without flow control only %d messages queued: the test does not show the bound", most)
				}
				t.Logf("most queued at a receiver: %d (bound %d)", most, bound)
			})
		}
	}
}

// A process whose own arguments are wrong at a call that ends with the
// flow control's acknowledgement (here every call: coll_base_sent_sync
// 1) still sends its acknowledgements: a Gather's root with a bad
// buffer lets its senders go, and a Bcast's receiver with one its root.
// Blocking and nonblocking; the bad process returns its error, the
// others nil.
func TestSentSyncOwnError(t *testing.T) {
	const n, root, bad = 4, 1, 2
	for _, kind := range []coll.Kind{coll.Gather, coll.Bcast} {
		for _, nb := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/nonblocking=%v", kind, nb), func(t *testing.T) {
				w := colltest.NewWorld(oneNode(n), 10*time.Second, "coll_base_sent_sync", "1")
				defer w.Close()
				culprit := root
				if kind == coll.Bcast {
					culprit = bad
				}
				errs := w.Each(func(r int) error {
					c := w.Comm(r)
					sig := coll.Sig{Kind: kind, Root: root, Send: 8}
					if r == culprit {
						sig.Err = coll.Errorf(coll.ErrBuffer, "bad buffer")
					}
					recv := coll.Buffer(8 * n)
					f := func(c *coll.Comm, a *coll.Actions) error {
						if kind == coll.Gather {
							return a.Gather(c, recv[:8], recv, root)
						}
						return a.Bcast(c, recv[:8], root)
					}
					if nb {
						done, err := colltest.Start(c, sig, f)
						if err != nil {
							return err
						}
						return <-done
					}
					return c.Run(sig, func(a *coll.Actions) error { return f(c, a) })
				})
				for r, err := range errs {
					if want := only(culprit, coll.ErrBuffer)(r); want < 0 && err != nil || want >= 0 && classOf(err) != want {
						t.Errorf("rank %d: %v, want class %d", r, err, want)
					}
				}
				want := 1 // the root's message to the bad receiver
				if kind == coll.Gather {
					want = n - 1 // the senders' messages to the bad root
				}
				if left := w.Leftover(); left != want {
					t.Errorf("%d messages nobody received, want %d", left, want)
				}
			})
		}
	}
}
