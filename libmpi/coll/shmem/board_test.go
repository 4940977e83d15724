package shmem_test

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/coll/colltest"
	"github.com/lamgo/lam/libmpi/coll/shmem"
)

// quickStart starts a nonblocking collective as the mpi package does
// (colltest.StartSchedule) and returns its schedule; its outcome goes to
// *out.
func quickStart(c *coll.Comm, sig coll.Sig, f func(v *coll.Comm, a *coll.Actions) error, out *error) (*coll.Schedule, error) {
	s, _, err := colltest.StartSchedule(c, sig, f, coll.NotifyFunc(func(err error) { *out = err }))
	return s, err
}

func BenchmarkIbarrier(b *testing.B) {
	w := colltest.NewWorld(make([]int32, 2), time.Minute)
	w.Share(fmt.Sprintf("/dev/shm/lam-bench-%d-", os.Getpid()))
	defer w.Close()
	b.ReportAllocs()
	errs := w.Each(func(r int) error {
		c := w.Comm(r)
		sig := coll.Sig{Kind: coll.Barrier}
		f := func(v *coll.Comm, a *coll.Actions) error { return a.Barrier(v) }
		var out error
		if r == 0 {
			b.ResetTimer()
		}
		for range b.N {
			s, err := quickStart(c, sig, f, &out)
			if err != nil {
				return err
			}
			s.Wait()
			if out != nil {
				return out
			}
		}
		return nil
	})
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
}

// ended waits for s (colltest.WaitFor, 10 s) and returns its outcome, which its
// notifier left in *out.
func ended(s *coll.Schedule, out *error) error {
	if err := colltest.WaitFor(s, 10*time.Second); err != nil {
		return err
	}
	return *out
}

// Small Ibarriers and Iallreduces run on the board, the others as
// schedules, interleaved with blocking collectives on other
// communicators: each gives what its blocking twin gives.
func TestBoardMany(t *testing.T) {
	kinds := []coll.Kind{coll.Allreduce, coll.Bcast, coll.Barrier, coll.Reduce}
	fs := func(c *coll.Comm, k int) (map[coll.Kind]colltest.Twin, int) {
		return colltest.SumTwins(c.Rank(), k), 8 * k
	}
	for _, n := range []int{2, 3, 5} {
		for _, params := range [][]string{nil, {"coll_base_check", "0"}} {
			t.Run(fmt.Sprintf("%d/%v", n, params), func(t *testing.T) {
				w := world(t, make([]int32, n), params...)
				w.Check(t, w.Each(func(r int) error { return colltest.ManyOutstanding(w.Comm(r), r, kinds, fs, true) }))
			})
		}
	}
}

// More collectives outstanding than the board has lines, and than its
// outboard has slots: a start waits until every process has read the
// number that last used its lines or its slot, moving its own board on
// meanwhile. Sizes in the entry's line (up to 104 bytes), in the
// outboard (up to 64 KiB) and above (a schedule). Waited for in reverse
// order, each gives its sum; in place and not.
func TestBoardDepth(t *testing.T) {
	const count = 3*shmem.BoardSlots + 5
	sizes := []int{1, 7, 13, 14, 100, 1024, 8192, 8193, 3, 5000} // 8-byte elements
	for _, n := range []int{2, 3} {
		for _, inPlace := range []bool{false, true} {
			w := world(t, make([]int32, n))
			w.Check(t, w.Each(func(r int) error {
				c := w.Comm(r)
				scheds := make([]*coll.Schedule, count)
				outs := make([][]byte, count)
				errs := make([]error, count)
				for i := range count {
					k := sizes[i%len(sizes)]
					mine := colltest.Ints(r+i, k)
					send := mine
					if inPlace {
						send = nil
					}
					outs[i] = mine
					if !inPlace {
						outs[i] = coll.Buffer(len(mine))
					}
					sig := coll.Sig{Kind: coll.Allreduce, Send: int64(len(mine)), Op: 1}
					if i%4 == 3 {
						sig = coll.Sig{Kind: coll.Barrier}
					}
					var err error
					scheds[i], err = quickStart(c, sig, func(v *coll.Comm, a *coll.Actions) error {
						if sig.Kind == coll.Barrier {
							return a.Barrier(v)
						}
						return a.Allreduce(v, send, outs[i], &colltest.Sum)
					}, &errs[i])
					if err != nil {
						return fmt.Errorf("start %d: %w", i, err)
					}
				}
				for i := count - 1; i >= 0; i-- {
					if err := colltest.WaitFor(scheds[i], 10*time.Second); err != nil {
						return fmt.Errorf("collective %d: %w", i, err)
					}
					if errs[i] != nil {
						return fmt.Errorf("collective %d: %w", i, errs[i])
					}
					if i%4 == 3 {
						continue
					}
					want := colltest.I64(coll.Buffer(len(outs[i])))
					for q := range n {
						for j, v := range colltest.I64(colltest.Ints(q+i, len(want))) {
							want[j] += v
						}
					}
					if got := colltest.I64(outs[i]); !slices.Equal(got, want) {
						return fmt.Errorf("collective %d: got %v, want %v", i, got, want)
					}
				}
				return nil
			}))
		}
	}
}

// A process reads a number it completed early (an Ibcast's or Iscatter's
// other process once it took the root's data; a process that only gives)
// without waiting for the others' entries, so that a root runs ahead of
// its slowest reader by the board's depth and no further: Ibcasts,
// Iscatters and Igathers, roots in turn, data in the line and in the
// outboard, more outstanding than the board has lines, one process
// starting late; every process's data checked after its lines were
// written again.
func TestBoardEarlyRead(t *testing.T) {
	const count = 3*shmem.BoardSlots + 5
	kinds := []coll.Kind{coll.Bcast, coll.Scatter, coll.Gather}
	ks := []int{1, 13, 1000, 8192} // int64s a block
	for _, n := range []int{3, 5} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			w := world(t, make([]int32, n))
			w.Check(t, w.Each(func(r int) error {
				if r == n-1 {
					time.Sleep(30 * time.Millisecond) // the others run ahead
				}
				c := w.Comm(r)
				scheds := make([]*coll.Schedule, count)
				outs := make([][]byte, count)
				errs := make([]error, count)
				for i := range count {
					kind, k, root := kinds[i%len(kinds)], ks[i/len(kinds)%len(ks)], i%n
					var send []byte
					switch {
					case kind == coll.Bcast:
						outs[i] = coll.Buffer(8 * k)
						if r == root {
							outs[i] = colltest.Ints(root+i, k)
						}
					case kind == coll.Scatter:
						outs[i] = coll.Buffer(8 * k)
						if r == root {
							send = colltest.Ints(root+i, n*k)
						}
					default:
						send = colltest.Ints(r+i, k)
						if r == root {
							outs[i] = coll.Buffer(8 * n * k)
						}
					}
					out := outs[i]
					sig := coll.Sig{Kind: kind, Send: int64(8 * k), Root: root}
					var err error
					scheds[i], err = quickStart(c, sig, func(v *coll.Comm, a *coll.Actions) error {
						switch kind {
						case coll.Bcast:
							return a.Bcast(v, out, root)
						case coll.Scatter:
							return a.Scatter(v, send, out, root)
						}
						return a.Gather(v, send, out, root)
					}, &errs[i])
					if err != nil {
						return fmt.Errorf("start %d: %w", i, err)
					}
				}
				for i := range count {
					kind, k, root := kinds[i%len(kinds)], ks[i/len(kinds)%len(ks)], i%n
					if err := ended(scheds[i], &errs[i]); err != nil {
						return fmt.Errorf("%s %d: %w", kind, i, err)
					}
					var want []int64
					switch {
					case kind == coll.Bcast:
						want = colltest.I64(colltest.Ints(root+i, k))
					case kind == coll.Scatter:
						for j := range k {
							want = append(want, colltest.Val(root+i, r*k+j))
						}
					case r == root:
						for q := range n {
							want = append(want, colltest.I64(colltest.Ints(q+i, k))...)
						}
					default:
						continue
					}
					if got := colltest.I64(outs[i]); !slices.Equal(got, want) {
						return fmt.Errorf("%s %d (%d int64s a block, root %d): got %v, want %v", kind, i, k, root, got[:min(len(got), 8)], want[:min(len(want), 8)])
					}
				}
				return nil
			}))
		})
	}
}

// An Igather, Iscatter, Iallgather or Ialltoall on the board gives each
// process its blocks: entries in the line (up to 104 bytes), in an
// outboard slot (up to 64 KiB), in the whole outboard (an Iscatter's or
// Ialltoall's, up to 512 KiB) and above (a schedule), roots first and last,
// in place and not, more outstanding than the outboard has slots,
// waited for in reverse order; at coll_base_check=2 too, where nobody
// completes alone.
func TestBoardBlocks(t *testing.T) {
	kinds := []coll.Kind{coll.Gather, coll.Scatter, coll.Allgather, coll.Alltoall}
	ks := []int{1, 13, 14, 700, 8192, 8193, 33000, 3} // int64s a block
	count := 2 * len(kinds) * len(ks)
	for _, n := range []int{2, 3, 5} {
		for _, inPlace := range []bool{false, true} {
			for _, params := range [][]string{nil, {"coll_base_check", "2"}} {
				t.Run(fmt.Sprintf("%d/%v/%v", n, inPlace, params), func(t *testing.T) {
					w := world(t, make([]int32, n), params...)
					w.Check(t, w.Each(func(r int) error {
						return boardBlocks(w.Comm(r), r, n, count, kinds, ks, inPlace)
					}))
				})
			}
		}
	}
}

// boardBlocks is process r's part of TestBoardBlocks.
func boardBlocks(c *coll.Comm, r, n, count int, kinds []coll.Kind, ks []int, inPlace bool) error {
	scheds := make([]*coll.Schedule, count)
	outs := make([][]byte, count)
	errs := make([]error, count)
	for i := range count {
		kind, k := kinds[i%len(kinds)], ks[i/len(kinds)%len(ks)]
		root := (i / 3) % 2 * (n - 1)
		var send []byte
		out := coll.Buffer(8 * n * k)
		switch kind {
		case coll.Gather, coll.Allgather:
			send = colltest.Ints(r+i, k)
			if inPlace && (kind == coll.Allgather || r == root) {
				copy(out[r*8*k:], send)
				send = nil
			}
		case coll.Scatter:
			out = coll.Buffer(8 * k)
			send = colltest.Ints(r+i, n*k)
			if inPlace && r == root {
				out = nil
			}
		case coll.Alltoall:
			send = colltest.Ints(r+i, n*k)
			if inPlace {
				copy(out, send)
				send = nil
			}
		}
		outs[i] = out
		sig := coll.Sig{Kind: kind, Send: int64(8 * k), Root: root}
		var err error
		scheds[i], err = quickStart(c, sig, func(v *coll.Comm, a *coll.Actions) error {
			switch kind {
			case coll.Gather:
				return a.Gather(v, send, out, root)
			case coll.Scatter:
				return a.Scatter(v, send, out, root)
			case coll.Allgather:
				return a.Allgather(v, send, out)
			}
			return a.Alltoall(v, send, out)
		}, &errs[i])
		if err != nil {
			return fmt.Errorf("start %d: %w", i, err)
		}
	}
	for i := count - 1; i >= 0; i-- {
		kind, k := kinds[i%len(kinds)], ks[i/len(kinds)%len(ks)]
		root := (i / 3) % 2 * (n - 1)
		if err := ended(scheds[i], &errs[i]); err != nil {
			return fmt.Errorf("%s %d: %w", kind, i, err)
		}
		var want []int64
		switch {
		case kind == coll.Scatter && !(inPlace && r == root):
			for j := range k {
				want = append(want, colltest.Val(root+i, r*k+j))
			}
		case kind == coll.Gather && r == root, kind == coll.Allgather:
			for q := range n {
				for j := range k {
					want = append(want, colltest.Val(q+i, j))
				}
			}
		case kind == coll.Alltoall:
			for q := range n {
				for j := range k {
					want = append(want, colltest.Val(q+i, r*k+j))
				}
			}
		default:
			continue
		}
		if got := colltest.I64(outs[i]); !slices.Equal(got, want) {
			return fmt.Errorf("%s %d (%d int64s a block, root %d): got %v, want %v", kind, i, k, root, got[:min(len(got), 8)], want[:min(len(want), 8)])
		}
	}
	return nil
}

// A start that writes to outboard slots where an earlier collective's
// data lie waits until every process has read them: Ialltoalls whose
// blocks take 1 to 8 slots and Iallgathers of one, started at once by
// one process and late by the other, so that the slots wrap around
// while the first ones are unread.
func TestBoardOutboardReuse(t *testing.T) {
	slots := []int{3, 0, 5, 0, 2, 4, 0, 3, 8, 0, 2, 1, 7, 0} // an Ialltoall's slots; 0: an Iallgather of 4 KiB blocks
	w := world(t, make([]int32, 2))
	w.Check(t, w.Each(func(r int) error {
		if r == 1 {
			time.Sleep(50 * time.Millisecond) // rank 0 starts them all first
		}
		c := w.Comm(r)
		outs := make([][]byte, len(slots))
		errs := make([]error, len(slots))
		scheds := make([]*coll.Schedule, len(slots))
		for i, k := range slots {
			sig := coll.Sig{Kind: coll.Allgather, Send: 4096}
			outs[i] = coll.Buffer(2 * 4096)
			f := func(v *coll.Comm, a *coll.Actions) error {
				return a.Allgather(v, colltest.Ints(r+i, 4096/8), outs[i])
			}
			if k > 0 {
				block := k*32768 - 8 // two blocks take k slots
				sig = coll.Sig{Kind: coll.Alltoall, Send: int64(block)}
				outs[i] = coll.Buffer(2 * block)
				f = func(v *coll.Comm, a *coll.Actions) error {
					return a.Alltoall(v, colltest.Ints(r+i, 2*block/8), outs[i])
				}
			}
			var err error
			if scheds[i], err = quickStart(c, sig, f, &errs[i]); err != nil {
				return err
			}
		}
		for i, k := range slots {
			if err := colltest.WaitFor(scheds[i], 10*time.Second); err != nil {
				return err
			}
			if errs[i] != nil {
				return errs[i]
			}
			block, mine := 4096/8, 0 // int64s; where this process's part of a block begins
			if k > 0 {
				block = (k*32768 - 8) / 8
				mine = r * block
			}
			for q := range 2 {
				for j, v := range colltest.I64(outs[i][q*8*block : (q+1)*8*block]) {
					if want := colltest.Val(q+i, mine+j); v != want {
						return fmt.Errorf("collective %d (%d slots): block %d [%d] = %d, want %d", i, k, q, j, v, want)
					}
				}
			}
		}
		return nil
	}))
}

// Back-to-back Iscatters and Ibcasts whose root completes alone and
// runs ahead, each waited for at once: a root whose start waits for the
// others to read (its outboard slots, its entry lines) wakes those asleep
// waiting for its next entry, which read what was posted meanwhile, so
// nobody waits for ever.
func TestBoardRootAhead(t *testing.T) {
	for _, kind := range []coll.Kind{coll.Scatter, coll.Bcast} {
		for _, block := range []int{8, 1024} { // in the line; in an outboard slot
			t.Run(fmt.Sprintf("%s/%d", kind, block), func(t *testing.T) {
				const n, count = 4, 3000
				w := world(t, make([]int32, n))
				var errs []error
				within(t, time.Minute, func() {
					errs = w.Each(func(r int) error {
						c := w.Comm(r)
						all, mine := colltest.Ints(r, n*block/8), coll.Buffer(block)
						for i := range count {
							sig := coll.Sig{Kind: kind, Send: int64(block)}
							var out error
							s, err := quickStart(c, sig, func(v *coll.Comm, a *coll.Actions) error {
								if kind == coll.Bcast {
									if r == 0 {
										return a.Bcast(v, all[:block], 0)
									}
									return a.Bcast(v, mine, 0)
								}
								return a.Scatter(v, all, mine, 0)
							}, &out)
							if err != nil {
								return err
							}
							if err := colltest.WaitFor(s, 10*time.Second); err != nil {
								return fmt.Errorf("collective %d: %w", i, err)
							}
							if out != nil {
								return out
							}
						}
						return nil
					})
				})
				w.Check(t, errs)
			})
		}
	}
}

// within runs f and fails the test if it has not returned after limit:
// a start that waits for ever is not bounded otherwise.
func within(t *testing.T, limit time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("not done after %v", limit)
	}
}

// A float Iallreduce or Ireduce on the board gives lam_basic's bits (its
// grouping for the process count and root), commutative or not.
func TestBoardSameBits(t *testing.T) {
	for _, n := range []int{2, 3, 4, 5, 7, 9} {
		for _, k := range []int{1, 5, 13, 14, 700, 8192} { // in the line, in the outboard
			for _, op := range []*coll.Op{&colltest.FSum, &twist} {
				for _, root := range []int{-1, 0, n - 1} {
					ref := basicReduced(t, n, k, root, op)
					w := world(t, make([]int32, n))
					got := make([][]byte, n)
					w.Check(t, w.Each(func(r int) error {
						c := w.Comm(r)
						got[r] = coll.Buffer(8 * k)
						sig := coll.Sig{Kind: coll.Allreduce, Send: int64(8 * k), Op: 3}
						if root >= 0 {
							sig.Kind, sig.Root = coll.Reduce, root
						}
						var out error
						s, err := quickStart(c, sig, func(v *coll.Comm, a *coll.Actions) error {
							if root >= 0 {
								return a.Reduce(v, colltest.Floats(r, k), got[r], op, root)
							}
							return a.Allreduce(v, colltest.Floats(r, k), got[r], op)
						}, &out)
						if err != nil {
							return err
						}
						if s.Wait(); out != nil {
							return out
						}
						return nil
					}))
					for r := range n {
						if (root < 0 || r == root) && !slices.Equal(got[r], ref[r]) {
							t.Fatalf("n=%d k=%d root=%d commutative=%v: rank %d's result differs from lam_basic's", n, k, root, op.Commutative, r)
						}
					}
				}
			}
		}
	}
}

// Processes that start different nonblocking collectives, or the same
// with other arguments, all end with an error, whether shmem runs them
// on the board or as schedules; none waits for the others. (A small
// Bcast's root may complete first, as its data left: it only sends, and
// never learns of a mismatch, as under lam_basic: coll.Comm.SendsCall.)
func TestBoardMismatch(t *testing.T) {
	type call struct {
		kind coll.Kind
		size int
		root int
	}
	barrier, bcast, bcast1 := call{coll.Barrier, 0, 0}, call{coll.Bcast, 8, 0}, call{coll.Bcast, 8, 1}
	bigBcast, reduce := call{coll.Bcast, 65544, 0}, call{coll.Reduce, 8, 0}
	small, other, large := call{coll.Allreduce, 8, 0}, call{coll.Allreduce, 16, 0}, call{coll.Allreduce, 65544, 0}
	out, out2, outBcast := call{coll.Allreduce, 4096, 0}, call{coll.Allreduce, 8192, 0}, call{coll.Bcast, 4096, 0}
	outBcast2, outReduce := call{coll.Bcast, 32768, 0}, call{coll.Reduce, 4096, 0}
	gather, gather1, allgather := call{coll.Gather, 8, 0}, call{coll.Gather, 8, 1}, call{coll.Allgather, 8, 0}
	scatter, alltoall, alltoall2 := call{coll.Scatter, 8, 0}, call{coll.Alltoall, 8, 0}, call{coll.Alltoall, 16, 0}
	outGather, outScatter, bigAllgather := call{coll.Gather, 4096, 0}, call{coll.Scatter, 4096, 0}, call{coll.Allgather, 65544, 0}
	for _, tt := range []struct {
		name   string
		calls  [2]call
		params []string
		quiet  int // a process that may complete without an error, -1 none, -2 any
	}{
		{"barrier/allreduce", [2]call{barrier, small}, nil, -1},
		{"sizes", [2]call{small, other}, nil, -1},
		{"board/schedule", [2]call{small, large}, nil, -1},
		{"schedule/board", [2]call{large, small}, nil, -1},
		{"board/schedule unchecked", [2]call{small, large}, []string{"coll_base_check", "0"}, -1},
		{"barrier/bcast", [2]call{barrier, bcast}, nil, -1},
		{"bcast/barrier", [2]call{bcast, barrier}, nil, 0},
		{"bcast/barrier unchecked", [2]call{bcast, barrier}, []string{"coll_base_check", "0"}, 0},
		// Each process compares the root's call, the roots none: rank 2
		// takes rank 1's data, whose call is its own.
		{"bcast roots", [2]call{bcast, bcast1}, nil, -2},
		{"bcast/large bcast", [2]call{bcast, bigBcast}, nil, 0},
		{"reduce/allreduce", [2]call{reduce, small}, nil, -1},
		// Data in the outboard.
		{"outboard sizes", [2]call{out, out2}, nil, -1},
		{"outboard/line", [2]call{out, small}, nil, -1},
		{"outboard/schedule", [2]call{out, large}, nil, -1},
		{"outboard bcast/barrier", [2]call{outBcast, barrier}, nil, 0},
		{"bcast/outboard bcast", [2]call{bcast, outBcast}, nil, 0},
		// Where lam_basic's would take the check of its own (an Ibcast
		// above coll_base_sent_size, an Ireduce above coll_base_small,
		// any at coll_base_check=2), every process learns of a
		// mismatch: none completes alone (coll.Comm.Alone).
		{"outboard bcast above sent size/barrier", [2]call{outBcast2, barrier}, nil, -1},
		{"barrier/outboard reduce", [2]call{barrier, outReduce}, nil, -1},
		{"bcast/barrier at check 2", [2]call{bcast, barrier}, []string{"coll_base_check", "2"}, -1},
		{"barrier/reduce at check 2", [2]call{barrier, reduce}, []string{"coll_base_check", "2"}, -1},
		// Blocks (sizes are a block's): an Igather's other processes
		// only give, as an Iscatter's root; an Iscatter's others wait
		// for the root's entry alone.
		{"gather roots", [2]call{gather, gather1}, nil, 2},
		{"gather/allgather", [2]call{gather, allgather}, nil, -1},
		{"scatter/barrier", [2]call{scatter, barrier}, nil, 0},
		{"barrier/scatter", [2]call{barrier, scatter}, nil, -1},
		{"alltoall sizes", [2]call{alltoall, alltoall2}, nil, -1},
		{"outboard gather/scatter", [2]call{outGather, outScatter}, nil, -1},
		{"allgather board/schedule", [2]call{allgather, bigAllgather}, nil, -1},
		{"barrier/gather at check 2", [2]call{barrier, gather}, []string{"coll_base_check", "2"}, -1},
		// Lent entries (too large for the outboard): a process that lent
		// its buffer waits only for those whose calls are its own.
		{"large bcast/bcast", [2]call{bigBcast, bcast}, nil, -1},
		{"large bcast sizes", [2]call{bigBcast, {coll.Bcast, 65552, 0}}, nil, -1},
		{"large gather roots", [2]call{{coll.Gather, 65544, 0}, {coll.Gather, 65544, 1}}, nil, -1},
		{"large alltoall/alltoall", [2]call{{coll.Alltoall, 174768, 0}, alltoall}, nil, -1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := 3
			w := world(t, make([]int32, n), tt.params...)
			errs := w.Each(func(r int) error {
				c := w.Comm(r)
				k := tt.calls[min(r, 1)]
				buf, out := coll.Buffer(n*max(k.size, 8)), coll.Buffer(n*max(k.size, 8))
				sig := coll.Sig{Kind: k.kind, Send: int64(k.size), Op: 1, Root: k.root}
				var outcome error
				s, err := quickStart(c, sig, func(v *coll.Comm, a *coll.Actions) error {
					switch k.kind {
					case coll.Barrier:
						return a.Barrier(v)
					case coll.Bcast:
						return a.Bcast(v, buf[:k.size], k.root)
					case coll.Reduce:
						return a.Reduce(v, buf[:k.size], out[:k.size], &colltest.Sum, k.root)
					case coll.Gather:
						return a.Gather(v, buf[:k.size], out[:n*k.size], k.root)
					case coll.Scatter:
						return a.Scatter(v, buf[:n*k.size], out[:k.size], k.root)
					case coll.Allgather:
						return a.Allgather(v, buf[:k.size], out[:n*k.size])
					case coll.Alltoall:
						return a.Alltoall(v, buf[:n*k.size], out[:n*k.size])
					}
					return a.Allreduce(v, buf[:k.size], out[:k.size], &colltest.Sum)
				}, &outcome)
				if err != nil {
					return err
				}
				if err := colltest.WaitFor(s, 10*time.Second); errors.Is(err, colltest.ErrHung) {
					return err
				}
				if outcome == nil && r != tt.quiet && tt.quiet != -2 {
					return errors.New("no error")
				}
				var ce *coll.Error
				if outcome != nil && !errors.As(outcome, &ce) {
					return fmt.Errorf("not a coll.Error: %v", outcome)
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

// A step the start adds after a board collective (a nonblocking
// reduction over a derived datatype unpacks so) runs once its result is
// there, before it completes; its error is the outcome.
func TestBoardAfter(t *testing.T) {
	w := world(t, make([]int32, 3))
	w.Check(t, w.Each(func(r int) error {
		c := w.Comm(r)
		for i, fail := range []bool{false, true, false} {
			mine, out := colltest.Ints(r, 2), coll.Buffer(16)
			var seen []int64
			var outcome error
			bad := errors.New("the step failed")
			s, err := quickStart(c, coll.Sig{Kind: coll.Allreduce, Send: 16, Op: 1}, func(v *coll.Comm, a *coll.Actions) error {
				if err := a.Allreduce(v, mine, out, &colltest.Sum); err != nil {
					return err
				}
				v.Schedule().Do(func() error {
					seen = slices.Clone(colltest.I64(out))
					if fail {
						return bad
					}
					return nil
				})
				return nil
			}, &outcome)
			if err != nil {
				return err
			}
			if err := colltest.WaitFor(s, 10*time.Second); errors.Is(err, colltest.ErrHung) {
				return err
			}
			want := []int64{0, 0}
			for q := range 3 {
				want[0] += colltest.Val(q, 0)
				want[1] += colltest.Val(q, 1)
			}
			switch {
			case !slices.Equal(seen, want):
				return fmt.Errorf("call %d: the step saw %v, want %v", i, seen, want)
			case fail != errors.Is(outcome, bad):
				return fmt.Errorf("call %d: outcome %v", i, outcome)
			}
		}
		return nil
	}))
}

// One goroutine of a process starts board collectives while another
// waits for them (MPI_THREAD_MULTIPLE: one thread calls the
// collectives, others wait): a start that finds its lines unread moves
// the board on beside the waiter, and each result is right.
func TestBoardConcurrentWait(t *testing.T) {
	const count = 300
	w := world(t, make([]int32, 3))
	w.Check(t, w.Each(func(r int) error {
		c := w.Comm(r)
		type job struct {
			s       *coll.Schedule
			out     []byte
			outcome error
			i       int
		}
		jobs := make(chan *job, count)
		waited := make(chan error, 1)
		go func() {
			for jb := range jobs {
				if err := colltest.WaitFor(jb.s, 10*time.Second); err != nil {
					waited <- fmt.Errorf("collective %d: %w", jb.i, err)
					return
				}
				var want int64
				for q := range 3 {
					want += colltest.Val(q+jb.i, 0)
				}
				if got := colltest.I64(jb.out)[0]; got != want {
					waited <- fmt.Errorf("collective %d: got %d, want %d", jb.i, got, want)
					return
				}
			}
			waited <- nil
		}()
		for i := range count {
			jb := &job{out: coll.Buffer(8), i: i}
			mine := colltest.Ints(r+i, 1)
			var err error
			jb.s, err = quickStart(c, coll.Sig{Kind: coll.Allreduce, Send: 8, Op: 1}, func(v *coll.Comm, a *coll.Actions) error {
				return a.Allreduce(v, mine, jb.out, &colltest.Sum)
			}, &jb.outcome)
			if err != nil {
				close(jobs)
				return err
			}
			jobs <- jb
		}
		close(jobs)
		return <-waited
	}))
}
