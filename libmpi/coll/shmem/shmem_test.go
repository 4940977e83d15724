package shmem_test

import (
	"fmt"
	"os"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/lamgo/lam/libmpi/coll"
	_ "github.com/lamgo/lam/libmpi/coll/basic"
	"github.com/lamgo/lam/libmpi/coll/colltest"
	_ "github.com/lamgo/lam/libmpi/coll/shmem"
	_ "github.com/lamgo/lam/libmpi/coll/smp"
)

// world makes a world whose communicators may share memory, with areas
// named under a prefix of the test's own, and checks at the end that no
// area's name is left.
func world(t *testing.T, nodes []int32, params ...string) *colltest.World {
	t.Helper()
	return colltest.NewSharedWorld(t, nodes, 20*time.Second, params...)
}

func TestChosen(t *testing.T) {
	for _, tt := range []struct {
		nodes  []int32
		params []string
		share  bool
		want   string
	}{
		{[]int32{0, 0}, nil, true, "shmem"},
		{[]int32{3, 3, 3, 3, 3}, nil, true, "shmem"},
		{[]int32{0, 0, 1, 1}, nil, true, "smp"},
		{[]int32{0, 1}, nil, true, "lam_basic"},
		{[]int32{0}, nil, true, "lam_basic"},
		{[]int32{0, 0, 0}, nil, false, "lam_basic"}, // no shared memory outside a job
		{[]int32{0, 0, 0}, []string{"coll", "lam_basic,smp"}, true, "lam_basic"},
	} {
		var w *colltest.World
		if tt.share {
			w = world(t, tt.nodes, tt.params...)
		} else {
			w = colltest.NewWorld(tt.nodes, 5*time.Second, tt.params...)
			defer w.Close()
		}
		if got := w.Comm(0).Module(); got != tt.want {
			t.Errorf("%v %v share=%v: chose %s, want %s", tt.nodes, tt.params, tt.share, got, tt.want)
		}
	}
	// An intercommunicator: shmem declines.
	w := world(t, []int32{0, 0, 0, 0})
	if got := w.Inter([]int{0, 1}, []int{2, 3}, 0).Module(); got == "shmem" {
		t.Errorf("an intercommunicator got shmem")
	}
}

func TestSuite(t *testing.T) {
	small := []string{"coll_base_shmem_message_pool_size", "2048", "coll_base_shmem_num_segments", "2"}
	for _, n := range []int{2, 3, 4, 5, 8} {
		for _, params := range [][]string{nil, {"coll_base_crossover", "1"}, {"coll_base_check", "0"}, {"coll_base_associative", "1"}, small,
			{"coll_base_shmem_num_segments", "1", "coll_base_shmem_message_pool_size", "4096"},
			// Rounds of two buffers past one (spans), some skipping the
			// pool's last buffer.
			{"coll_base_shmem_num_segments", "20", "coll_base_shmem_message_pool_size", "20480"},
			// Spans of 8 KiB: a reduction of k=700 takes one, its slices
			// in the span of output buffers.
			{"coll_base_shmem_num_segments", "16", "coll_base_shmem_message_pool_size", "65536"},
			// k=700 crosses to lam_basic, k=70 does not: the two alternate
			// (Bcast and Allgather only with the copy size as low, the
			// reductions with the copy size or the reduce size).
			{"coll_base_shmem_large_size", "1000"}, {"coll_base_shmem_large_size", "1000", "coll_base_shmem_copy_size", "1000"},
			{"coll_base_shmem_reduce_size", "1000"},
			{"coll_base_shmem_large_size", "0"}} {
			for _, k := range []int{1, 70, 700} {
				for _, root := range []int{0, n - 1, 1} {
					if t.Failed() {
						return
					}
					t.Run(fmt.Sprintf("n=%d/%v/k=%d/root=%d", n, params, k, root), func(t *testing.T) {
						w := world(t, make([]int32, n), params...)
						errs := w.Each(func(r int) error {
							c := w.Comm(r)
							if m := c.Module(); m != "shmem" {
								return fmt.Errorf("module %s", m)
							}
							if err := colltest.Suite(c, k, root); err != nil {
								return err
							}
							return c.Free()
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
}

// smp over nodes whose local communicators are shmem's.
func TestUnderSmp(t *testing.T) {
	for _, nodes := range [][]int32{{0, 0, 1, 1}, {0, 1, 0, 1, 1}, {2, 2, 2, 0, 0, 1}} {
		for _, params := range [][]string{nil, {"coll_base_associative", "1"}} {
			w := world(t, nodes, params...)
			errs := w.Each(func(r int) error {
				c := w.Comm(r)
				if m := c.Module(); m != "smp" {
					return fmt.Errorf("module %s", m)
				}
				return colltest.Suite(c, 33, len(nodes)-1)
			})
			for r, err := range errs {
				if err != nil {
					t.Errorf("%v %v rank %d: %v", nodes, params, r, err)
				}
			}
		}
	}
}

// twist is a float op that is neither commutative nor associative:
// inout = in·¾ + inout.
var twist = coll.Op{Size: 8, Apply: func(in, inout []byte) {
	a, b := colltest.F64(in), colltest.F64(inout)
	for i := range b {
		b[i] = a[i]*0.75 + b[i]
	}
}}

// reduced runs an Allreduce (root < 0) or a Reduce of floats and returns
// every process's result.
func reduced(t *testing.T, w *colltest.World, n, k, root int, op *coll.Op) [][]byte {
	t.Helper()
	out := make([][]byte, n)
	errs := w.Each(func(r int) error {
		c := w.Comm(r)
		out[r] = coll.Buffer(8 * k)
		if root < 0 {
			return c.Run(coll.Sig{Kind: coll.Allreduce, Send: int64(8 * k), Op: 3}, func(a *coll.Actions) error {
				return a.Allreduce(c, colltest.Floats(r, k), out[r], op)
			})
		}
		return c.Run(coll.Sig{Kind: coll.Reduce, Root: root, Send: int64(8 * k), Op: 3}, func(a *coll.Actions) error {
			return a.Reduce(c, colltest.Floats(r, k), out[r], op, root)
		})
	})
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	return out
}

// basicReduced is reduced on n processes of lam_basic (no shared area):
// the results every module must give bit for bit.
func basicReduced(t *testing.T, n, k, root int, op *coll.Op, params ...string) [][]byte {
	t.Helper()
	w := colltest.NewWorld(make([]int32, n), 10*time.Second, params...)
	defer w.Close()
	return reduced(t, w, n, k, root, op)
}

// Float reductions give lam_basic's bits, for every process count, size
// (linear, binomial, recursive halving; one round or many) and root.
func TestSameBitsAsBasic(t *testing.T) {
	for _, n := range []int{2, 3, 4, 5, 6, 7, 8, 9} {
		// The last: k=65 and 5000 are lam_basic's, k=1 shmem's.
		for _, params := range [][]string{nil, {"coll_base_crossover", "2"}, {"coll_base_shmem_large_size", "200"}} {
			for _, k := range []int{1, 65, 5000} {
				for _, op := range []*coll.Op{&colltest.FSum, &twist} {
					for _, root := range []int{-1, 0, n - 1} {
						ref := basicReduced(t, n, k, root, op, params...)
						got := reduced(t, world(t, make([]int32, n), params...), n, k, root, op)
						for r := range n {
							if (root < 0 || r == root) && !slices.Equal(got[r], ref[r]) {
								t.Fatalf("n=%d %v k=%d root=%d commutative=%v: rank %d's result differs from lam_basic's", n, params, k, root, op.Commutative, r)
							}
						}
					}
				}
			}
		}
	}
}

// Many communicators at once, each with its own area, made and freed.
func TestManyComms(t *testing.T) {
	const n = 4
	w := world(t, make([]int32, n))
	errs := w.Each(func(r int) error {
		c := w.Comm(r)
		var subs []*coll.Comm
		for i := range 6 {
			s, err := c.T.Split(i%2, -r)
			if err != nil {
				return err
			}
			subs = append(subs, s)
		}
		for round := range 3 {
			for i, s := range subs {
				buf := coll.Buffer(8)
				if s.Rank() == 0 {
					*(*int64)(unsafe.Pointer(&buf[0])) = int64(100*i + round)
				}
				if err := s.Run(coll.Sig{Kind: coll.Bcast, Send: 8}, func(a *coll.Actions) error { return a.Bcast(s, buf, 0) }); err != nil {
					return err
				}
				if got := *(*int64)(unsafe.Pointer(&buf[0])); got != int64(100*i+round) {
					return fmt.Errorf("comm %d round %d: got %d", i, round, got)
				}
				if m := s.Module(); m != "shmem" {
					return fmt.Errorf("comm %d: module %s", i, m)
				}
			}
		}
		for _, s := range subs {
			if err := s.Free(); err != nil {
				return err
			}
		}
		return nil
	})
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

// Mismatched arguments are still reported with the check on: at
// coll_base_check=2 by every process, at 1 (a small Bcast sends its call
// with its data) by the process that received a call other than its own.
func TestCheck(t *testing.T) {
	for _, level := range []string{"1", "2"} {
		w := world(t, make([]int32, 3), "coll_base_check", level)
		errs := w.Each(func(r int) error {
			c := w.Comm(r)
			buf := coll.Buffer(8 * (1 + r%2))
			return c.Run(coll.Sig{Kind: coll.Bcast, Send: int64(len(buf))}, func(a *coll.Actions) error { return a.Bcast(c, buf, 0) })
		})
		for r, err := range errs {
			var ce *coll.Error
			if level == "1" && r != 1 {
				if err != nil {
					t.Errorf("level %s rank %d: %v, want no error", level, r, err)
				}
			} else if err == nil || !asColl(err, &ce) || ce.Class != coll.ErrCount {
				t.Errorf("level %s rank %d: %v, want a count mismatch", level, r, err)
			}
		}
	}
}

// Calls that differ, some carrying the check in their one round and some
// checking first (larger, or a Barrier), fail on every process at
// coll_base_check=2, leave the buffers of a carried call untouched, and
// leave the processes in step: a matching collective after them works.
// (At 1 a Bcast's root returns at once, and a process that waits for a
// post the others' calls do not make waits: TestMismatchSent.)
func TestCheckMixed(t *testing.T) {
	const pool = "4096" // buffers of 2048 bytes (2 segments)
	bcast := func(size int) func(c *coll.Comm) ([]byte, error) {
		return func(c *coll.Comm) ([]byte, error) {
			buf := coll.Buffer(size)
			for i := range buf {
				buf[i] = 7
			}
			err := c.Run(coll.Sig{Kind: coll.Bcast, Send: int64(size)}, func(a *coll.Actions) error { return a.Bcast(c, buf, 0) })
			return buf, err
		}
	}
	allreduce := func(c *coll.Comm) ([]byte, error) {
		send, recv := colltest.Ints(c.Rank(), 1), coll.Buffer(8)
		err := c.Run(coll.Sig{Kind: coll.Allreduce, Send: 8, Op: 1}, func(a *coll.Actions) error { return a.Allreduce(c, send, recv, &colltest.Sum) })
		return recv, err
	}
	barrier := func(c *coll.Comm) ([]byte, error) {
		return nil, c.Run(coll.Sig{Kind: coll.Barrier}, func(a *coll.Actions) error { return a.Barrier(c) })
	}
	for _, tt := range []struct {
		name  string
		calls []func(c *coll.Comm) ([]byte, error) // by rank
	}{
		{"carried sizes", []func(c *coll.Comm) ([]byte, error){bcast(8), bcast(16), bcast(8)}},
		{"carried and checked", []func(c *coll.Comm) ([]byte, error){bcast(8), bcast(8), bcast(3000)}},
		{"carried and barrier", []func(c *coll.Comm) ([]byte, error){bcast(8), barrier, allreduce}},
		{"kinds", []func(c *coll.Comm) ([]byte, error){allreduce, bcast(8), allreduce}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := world(t, make([]int32, len(tt.calls)), "coll_base_shmem_message_pool_size", pool, "coll_base_shmem_num_segments", "2", "coll_base_check", "2")
			errs := w.Each(func(r int) error {
				c := w.Comm(r)
				for round := range 3 { // the buffers' ring turns over
					buf, err := tt.calls[r](c)
					if err == nil {
						return fmt.Errorf("round %d: no error", round)
					}
					if r > 0 && len(buf) > 0 && buf[0] != 7 && buf[0] != 0 {
						return fmt.Errorf("round %d: a failed call wrote its buffer", round)
					}
					got, err := allreduce(c)
					if err != nil {
						return fmt.Errorf("round %d: the matching call after: %w", round, err)
					}
					want := int64(0)
					for q := range tt.calls {
						want += colltest.Val(q, 0)
					}
					if colltest.I64(got)[0] != want {
						return fmt.Errorf("round %d: sum %d, want %d", round, colltest.I64(got)[0], want)
					}
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

func asColl(err error, ce **coll.Error) bool {
	e, ok := err.(*coll.Error)
	*ce = e
	return ok
}

// BenchmarkAllreduce is an 8-byte (with the argument check and without)
// and a 64 KiB Allreduce between two
// goroutine "processes" (allocations per operation matter here; times do
// not stand for two processes).
func BenchmarkAllreduce(b *testing.B) {
	for _, bench := range []struct {
		size  int
		check string
	}{{8, "0"}, {8, "1"}, {64 << 10, "0"}} {
		size := bench.size
		b.Run(fmt.Sprintf("%d/check=%s", size, bench.check), func(b *testing.B) {
			w := colltest.NewWorld(make([]int32, 2), time.Minute, "coll_base_check", bench.check)
			w.Share(fmt.Sprintf("/dev/shm/lam-bench-%d-", os.Getpid()))
			defer w.Close()
			comms := []*coll.Comm{w.Comm(0), w.Comm(1)}
			b.ReportAllocs()
			b.SetBytes(int64(size))
			errs := w.Each(func(r int) error {
				c := comms[r]
				send, recv := coll.Buffer(size), coll.Buffer(size)
				sig := coll.Sig{Kind: coll.Allreduce, Send: int64(size), Op: 1}
				f := func(a *coll.Actions) error { return a.Allreduce(c, send, recv, &colltest.Sum) }
				if err := c.Run(sig, f); err != nil { // set up outside the timing
					return err
				}
				if r == 0 {
					b.ResetTimer()
				}
				for range b.N {
					if err := c.Run(sig, f); err != nil {
						return err
					}
				}
				return c.Free()
			})
			for _, err := range errs {
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// An element larger than a buffer: lam_basic reduces it.
func TestHugeElements(t *testing.T) {
	big := coll.Op{Size: 4096, Commutative: true, Exact: true, Apply: colltest.Sum.Apply}
	w := world(t, make([]int32, 3), "coll_base_shmem_message_pool_size", "2048", "coll_base_shmem_num_segments", "2")
	errs := w.Each(func(r int) error {
		c := w.Comm(r)
		send, recv := colltest.Ints(r, 1024), coll.Buffer(8192)
		if err := c.Run(coll.Sig{Kind: coll.Allreduce, Send: 8192, Op: 1}, func(a *coll.Actions) error { return a.Allreduce(c, send, recv, &big) }); err != nil {
			return err
		}
		want := coll.Clone(colltest.Ints(2, 1024))
		colltest.Sum.Apply(colltest.Ints(1, 1024), want)
		colltest.Sum.Apply(colltest.Ints(0, 1024), want)
		if !slices.Equal(recv, want) {
			return fmt.Errorf("wrong sum")
		}
		return nil
	})
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}
