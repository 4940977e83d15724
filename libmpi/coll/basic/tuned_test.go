package basic_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/coll/colltest"
)

// The size-chosen algorithms, each forced on and off by its parameter, at
// odd and power-of-two sizes: every collective against its serial
// reference (blocks of 1, 3 and 70 elements, in place, user ops). With
// coll_base_small 0, coll_base_sent_size is 0 too, so that the small
// rooted calls take the algorithms, not the call sent with the data.
func TestSuiteTuned(t *testing.T) {
	sets := map[string][]string{
		"small off": {"coll_base_small", "0", "coll_base_sent_size", "0", "coll_base_allgather_ring", "0",
			"coll_base_bcast_scatter", "0", "coll_base_alltoall_pairwise", "0"},
		"gather all": {"coll_base_small", "1M", "coll_base_reduce_crossover", "1M"},
		"gather all, no check": {"coll_base_small", "1M", "coll_base_reduce_crossover", "1M",
			"coll_base_check", "0", "coll_base_bcast_scatter", "0"},
		"binomial": {"coll_base_crossover", "1", "coll_base_small", "1M", "coll_base_reduce_crossover", "1M"},
		"whole, linear blocks": {"coll_base_small", "0", "coll_base_sent_size", "0", "coll_base_bcast_scatter", "0", "coll_base_bcast_whole", "1",
			"coll_base_linear_block", "1"},
		"scatter, binomial blocks": {"coll_base_small", "0", "coll_base_sent_size", "0", "coll_base_bcast_scatter", "0", "coll_base_bcast_whole", "0",
			"coll_base_linear_block", "0"},
		"allreduce direct": {"coll_base_small", "0", "coll_base_sent_size", "0", "coll_base_reduce_crossover", "0", "coll_base_allreduce_direct", "1"},
		// Two nodes (the first half, the rest): the choices made
		// between nodes only (Allgather's ring, Alltoall's pairs, a
		// large Bcast's tree).
		"small off, two nodes": {"coll_base_small", "0", "coll_base_sent_size", "0", "coll_base_allgather_ring", "0",
			"coll_base_bcast_scatter", "0", "coll_base_alltoall_pairwise", "0"},
		"whole, two nodes": {"coll_base_small", "0", "coll_base_sent_size", "0", "coll_base_bcast_scatter", "0", "coll_base_bcast_whole", "1",
			"coll_base_crossover", "1"},
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
						nodes := oneNode(n)
						if strings.HasSuffix(name, "two nodes") {
							for i := range nodes {
								nodes[i] = int32(2 * i / n)
							}
						}
						w := colltest.NewWorld(nodes, 20*time.Second, params...)
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

// The one-node Allreduce that reads every process's input at once
// (coll_base_allreduce_direct) gives recursive halving's bits, for a
// float sum, in place and not, on every process.
func TestAllreduceDirectSameBits(t *testing.T) {
	for _, n := range []int{2, 3, 4, 5, 6, 7, 8, 11} {
		for _, inPlace := range []bool{false, true} {
			var results [2][]byte
			for i, direct := range []string{"0", "1"} {
				const k = 37
				w := colltest.NewWorld(oneNode(n), 20*time.Second,
					"coll_base_small", "0", "coll_base_reduce_crossover", "0", "coll_base_allreduce_direct", direct)
				out := make([][]byte, n)
				errs := w.Each(func(r int) error {
					c := w.Comm(r)
					send := colltest.Floats(r, k)
					out[r] = coll.Buffer(len(send))
					if inPlace {
						copy(out[r], send)
						send = nil
					}
					return c.Run(coll.Sig{Kind: coll.Allreduce, Send: int64(len(out[r])), Op: coll.UserOp}, func(a *coll.Actions) error {
						return a.Allreduce(c, send, out[r], &colltest.FSum)
					})
				})
				w.Close()
				for r, err := range errs {
					if err != nil {
						t.Fatalf("n=%d direct=%s rank %d: %v", n, direct, r, err)
					}
					if string(out[r]) != string(out[0]) {
						t.Fatalf("n=%d direct=%s in place %v: ranks 0 and %d differ", n, direct, inPlace, r)
					}
				}
				results[i] = out[0]
			}
			if string(results[0]) != string(results[1]) {
				t.Errorf("n=%d in place %v: the direct Allreduce changed the bits", n, inPlace)
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

// The large-message choices, seen in the messages each process sends
// (coll_base_check=0: no check's messages): past coll_base_bcast_whole a
// Bcast sends the message whole, from the root to each process (linear;
// on one node at any number of processes) or along the binomial tree
// (across nodes), instead of scattering and ringing it; past
// coll_base_linear_block the root of a Scatter sends every block itself
// (each process of a Gather sends its own to the root), at any number of
// processes; at the thresholds, the algorithms below them. The
// nonblocking forms choose alike (they have no scatter and ring: a
// binomial tree there).
func TestLargeChoice(t *testing.T) {
	const mib = 1 << 20
	const linearBlock = 4096 // coll_base_linear_block's default
	tests := []struct {
		name   string
		kind   coll.Kind
		n      int
		root   int
		size   int // the message, or a Gather's or Scatter's block
		params []string
		sent   func(v, n int) int // messages sent by virtual rank v
		nodes  []int32            // the processes' nodes (nil: one node)
	}{
		{"bcast whole 8", coll.Bcast, 8, 3, 256<<10 + 1, nil, rootSends, nil},
		{"bcast whole 8 on two nodes", coll.Bcast, 8, 3, 256<<10 + 1, nil, binomialSends, []int32{0, 0, 0, 0, 1, 1, 1, 1}},
		{"bcast binomial at the threshold", coll.Bcast, 8, 3, 256 << 10, []string{"coll_base_bcast_scatter", "1M"}, binomialSends, nil},
		{"bcast whole 3", coll.Bcast, 3, 0, 4 * mib, nil, rootSends, nil},
		{"bcast scatter without whole", coll.Bcast, 5, 1, mib + 1, []string{"coll_base_bcast_whole", "0"}, scatterRing, nil},
		{"bcast whole by parameter", coll.Bcast, 4, 2, 4096, []string{"coll_base_bcast_scatter", "1K", "coll_base_bcast_whole", "2K"}, rootSends, nil},
		{"bcast scatter by parameter", coll.Bcast, 4, 2, 4096, []string{"coll_base_bcast_scatter", "1K", "coll_base_bcast_whole", "4K"}, scatterRing, nil},
		{"scatter linear 8", coll.Scatter, 8, 2, linearBlock + 1, nil, rootSends, nil},
		{"scatter binomial at the threshold", coll.Scatter, 8, 0, linearBlock, nil, binomialSends, nil},
		{"gather linear 8", coll.Gather, 8, 5, linearBlock + 1, nil, func(v, n int) int { return map[bool]int{true: 0, false: 1}[v == 0] }, nil},
		{"scatter linear by parameter", coll.Scatter, 6, 1, 100, []string{"coll_base_linear_block", "99"}, rootSends, nil},
		{"scatter binomial without linear", coll.Scatter, 6, 1, mib, []string{"coll_base_linear_block", "0"}, binomialSends, nil},
	}
	// Where the nonblocking forms differ: they have no scatter and ring
	// (a binomial tree past coll_base_crossover processes, linear up to
	// it).
	nbSent := map[string]func(v, n int) int{
		"bcast scatter without whole": binomialSends,
		"bcast scatter by parameter":  rootSends,
	}
	for _, tt := range tests {
		for _, nb := range []bool{false, true} {
			name, want := tt.name, tt.sent
			if nb {
				name = "nonblocking " + name
				if f, ok := nbSent[tt.name]; ok {
					want = f
				}
			}
			t.Run(name, func(t *testing.T) {
				params := append([]string{"coll_base_check", "0"}, tt.params...)
				nodes := tt.nodes
				if nodes == nil {
					nodes = oneNode(tt.n)
				}
				w := colltest.NewWorld(nodes, 20*time.Second, params...)
				n, root, size := tt.n, tt.root, tt.size
				errs := w.Each(func(r int) error {
					c := w.Comm(r)
					run := func(sig coll.Sig, f func(v *coll.Comm, a *coll.Actions) error) error {
						if !nb {
							return c.Run(sig, func(a *coll.Actions) error { return f(c, a) })
						}
						done, err := colltest.Start(c, sig, f)
						if err != nil {
							return err
						}
						return <-done
					}
					switch tt.kind {
					case coll.Bcast:
						buf := coll.Buffer(size)
						if r == root {
							for i := range buf {
								buf[i] = byte(i * 7)
							}
						}
						if err := run(coll.Sig{Kind: coll.Bcast, Root: root, Send: int64(size)}, func(v *coll.Comm, a *coll.Actions) error { return a.Bcast(v, buf, root) }); err != nil {
							return err
						}
						for i := range buf {
							if buf[i] != byte(i*7) {
								return fmt.Errorf("byte %d is %d", i, buf[i])
							}
						}
					case coll.Scatter:
						var send []byte
						if r == root {
							send = coll.Buffer(n * size)
							for i := range send {
								send[i] = byte(i / size)
							}
						}
						recv := coll.Buffer(size)
						if err := run(coll.Sig{Kind: coll.Scatter, Root: root, Send: int64(size)}, func(v *coll.Comm, a *coll.Actions) error { return a.Scatter(v, send, recv, root) }); err != nil {
							return err
						}
						if recv[0] != byte(r) || recv[size-1] != byte(r) {
							return fmt.Errorf("rank %d got block %d", r, recv[0])
						}
					case coll.Gather:
						var recv []byte
						if r == root {
							recv = coll.Buffer(n * size)
						}
						send := bytes.Repeat([]byte{byte(r)}, size)
						if err := run(coll.Sig{Kind: coll.Gather, Root: root, Send: int64(size)}, func(v *coll.Comm, a *coll.Actions) error { return a.Gather(v, send, recv, root) }); err != nil {
							return err
						}
						for i := 0; r == root && i < n; i++ {
							if recv[i*size] != byte(i) || recv[(i+1)*size-1] != byte(i) {
								return fmt.Errorf("block %d is rank %d's", i, recv[i*size])
							}
						}
					}
					return nil
				})
				checkSent(t, w, errs, func(r int) int { return want((r-root+n)%n, n) })
			})
		}
	}
}

// rootSends: the root sends to every other process, which sends nothing.
func rootSends(v, n int) int {
	if v == 0 {
		return n - 1
	}
	return 0
}

// scatterRing: the root sends a piece to every other process, then each
// process passes n-1 pieces around the ring.
func scatterRing(v, n int) int {
	if v == 0 {
		return 2 * (n - 1)
	}
	return n - 1
}

// binomialSends: virtual rank v sends to its children in the binomial
// tree.
func binomialSends(v, n int) int {
	k := 0
	for m := 1; m < n && v&m == 0; m <<= 1 {
		if v|m < n {
			k++
		}
	}
	return k
}

// checkSent closes w, fails on any process's error, and checks the
// messages each process sent: want(r) for rank r.
func checkSent(t *testing.T, w *colltest.World, errs []error, want func(r int) int) {
	t.Helper()
	w.Close()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	for r := range errs {
		if s, _ := w.Messages(r); s != want(r) {
			t.Errorf("rank %d sent %d messages, want %d", r, s, want(r))
		}
	}
}
