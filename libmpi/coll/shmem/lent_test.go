package shmem

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/coll/colltest"
	"golang.org/x/sys/unix"
)

// lentCall is one nonblocking collective of boardLent's.
type lentCall struct {
	kind    coll.Kind
	k       int // int64s a block
	root    int
	inPlace bool
}

// lentCalls is boardLent's sequence on n processes: Ibcasts, Igathers,
// Iscatters, Iallgathers and Ialltoalls too large for the outboard, in
// place and not, with a small one of each after.
func lentCalls(n int) []lentCall {
	big := bigBytes/8 + 1       // a block above bigBytes
	wide := wideBytes/(8*n) + 1 // blocks together above wideBytes
	var calls []lentCall
	for i, kind := range []coll.Kind{coll.Bcast, coll.Gather, coll.Scatter, coll.Allgather, coll.Alltoall} {
		k := big
		if kind == coll.Scatter || kind == coll.Alltoall {
			k = wide
		}
		for _, inPlace := range []bool{false, true} {
			root := i % 2 * (n - 1)
			calls = append(calls, lentCall{kind, k, root, inPlace}, lentCall{kind, 3, n - 1 - root, inPlace})
		}
	}
	return calls
}

// lent reports whether call x's entries lend their buffers when the
// probe permitted it (lends).
func (x lentCall) lent(n int) bool {
	if x.kind == coll.Alltoall && x.inPlace || n == 2 && x.kind != coll.Alltoall {
		return false
	}
	return x.k > bigBytes/8 || x.k*8*n > wideBytes && (x.kind == coll.Scatter || x.kind == coll.Alltoall)
}

// boardLent is process r's part of a test of lent entries: it starts
// every call of lentCalls at once, waits for them in the reverse order
// and checks what each process got, and that the large ones ran on the
// board (lent) or as schedules.
func boardLent(c *coll.Comm, r, n int, lent bool) error {
	calls := lentCalls(n)
	scheds := make([]*coll.Schedule, len(calls))
	outs := make([][]byte, len(calls))
	errs := make([]error, len(calls))
	for i, x := range calls {
		var send []byte
		out := coll.Buffer(8 * n * x.k)
		switch x.kind {
		case coll.Bcast:
			out = coll.Buffer(8 * x.k)
			if r == x.root {
				copy(out, colltest.Ints(x.root+i, x.k))
			}
		case coll.Gather, coll.Allgather:
			send = colltest.Ints(r+i, x.k)
			if x.inPlace && (x.kind == coll.Allgather || r == x.root) {
				copy(out[r*8*x.k:], send)
				send = nil
			}
		case coll.Scatter:
			out = coll.Buffer(8 * x.k)
			if r == x.root {
				send = colltest.Ints(x.root+i, n*x.k)
				if x.inPlace {
					out = nil
				}
			}
		case coll.Alltoall:
			send = colltest.Ints(r+i, n*x.k)
			if x.inPlace {
				copy(out, send)
				send = nil
			}
		}
		outs[i] = out
		sig := coll.Sig{Kind: x.kind, Send: int64(8 * x.k), Root: x.root}
		var quick bool
		var err error
		scheds[i], quick, err = colltest.StartSchedule(c, sig, func(v *coll.Comm, a *coll.Actions) error {
			switch x.kind {
			case coll.Bcast:
				return a.Bcast(v, out, x.root)
			case coll.Gather:
				return a.Gather(v, send, out, x.root)
			case coll.Scatter:
				return a.Scatter(v, send, out, x.root)
			case coll.Allgather:
				return a.Allgather(v, send, out)
			}
			return a.Alltoall(v, send, out)
		}, coll.NotifyFunc(func(err error) { errs[i] = err }))
		if err != nil {
			return fmt.Errorf("start %d: %w", i, err)
		}
		if x.lent(n) && quick != lent {
			return fmt.Errorf("%s %d (%d int64s a block, in place %v): on the board %v, want %v", x.kind, i, x.k, x.inPlace, quick, lent)
		}
	}
	for i := len(calls) - 1; i >= 0; i-- {
		x := calls[i]
		if err := colltest.WaitFor(scheds[i], 20*time.Second); err != nil {
			return fmt.Errorf("%s %d: %w", x.kind, i, err)
		}
		if errs[i] != nil {
			return fmt.Errorf("%s %d: %w", x.kind, i, errs[i])
		}
		var want []int64
		switch {
		case x.kind == coll.Bcast:
			for j := range x.k {
				want = append(want, colltest.Val(x.root+i, j))
			}
		case x.kind == coll.Scatter && !(x.inPlace && r == x.root):
			for j := range x.k {
				want = append(want, colltest.Val(x.root+i, r*x.k+j))
			}
		case x.kind == coll.Gather && r == x.root, x.kind == coll.Allgather:
			for q := range n {
				for j := range x.k {
					want = append(want, colltest.Val(q+i, j))
				}
			}
		case x.kind == coll.Alltoall:
			for q := range n {
				for j := range x.k {
					want = append(want, colltest.Val(q+i, r*x.k+j))
				}
			}
		default:
			continue
		}
		if got := colltest.I64(outs[i]); !slices.Equal(got, want) {
			return fmt.Errorf("%s %d (%d int64s a block, root %d, in place %v): got %v, want %v", x.kind, i, x.k, x.root, x.inPlace, got[:min(len(got), 8)], want[:min(len(want), 8)])
		}
	}
	return nil
}

// Nonblocking collectives too large for the outboard lend their buffers
// where the probe permitted it: on nodes with processors to spare and
// oversubscribed, with and without the argument check, every process
// gets what it should, whichever order the processes wait in.
func TestBoardLent(t *testing.T) {
	for _, n := range []int{2, 3, 5} {
		for _, cpus := range []int{64, 1} {
			for _, check := range []string{"0", "2"} {
				t.Run(fmt.Sprintf("n=%d/cpus=%d/check=%s", n, cpus, check), func(t *testing.T) {
					w := directWorld(t, n, cpus, "coll_base_check", check)
					w.Check(t, w.Each(func(r int) error {
						c := w.Comm(r)
						if err := boardLent(c, r, n, true); err != nil {
							return err
						}
						return c.Free()
					}))
				})
			}
		}
	}
}

// A process that lends its buffer completes only once every process
// that copies from it has: an Ibcast's or Iscatter's root, whose other
// processes start late, is not done after its start (where the root of
// one carried in the outboard is, at coll_base_check=0 where it may
// complete alone), and completes once the others took the data.
func TestBoardLentHeld(t *testing.T) {
	const n, block = 3, (wideBytes/(3*8) + 1) * 8 // 8-byte elements
	for _, kind := range []coll.Kind{coll.Bcast, coll.Scatter} {
		for _, check := range []string{"0", "1", "2"} {
			t.Run(fmt.Sprintf("%s/check=%s", kind, check), func(t *testing.T) {
				w := directWorld(t, n, 64, "coll_base_check", check)
				started := make(chan struct{})
				w.Check(t, w.Each(func(r int) error {
					return lentHeld(w.Comm(r), r, n, kind, block, started)
				}))
			})
		}
	}
}

// lentHeld is process r's part of TestBoardLentHeld.
func lentHeld(c *coll.Comm, r, n int, kind coll.Kind, block int, started chan struct{}) error {
	// The communicator's modules start (and probe) together.
	if err := c.Run(coll.Sig{Kind: coll.Barrier}, func(a *coll.Actions) error { return a.Barrier(c) }); err != nil {
		return err
	}
	want := colltest.Ints(5, block/8)
	all := colltest.Ints(5, n*block/8)
	buf := coll.Buffer(block)
	if r == 0 {
		copy(buf, want)
	} else {
		select {
		case <-started:
		case <-time.After(10 * time.Second):
			return errors.New("the root did not start")
		}
		if kind == coll.Scatter {
			want = all[r*block : (r+1)*block]
		}
	}
	var out error
	s, quick, err := colltest.StartSchedule(c, coll.Sig{Kind: kind, Send: int64(block)}, func(v *coll.Comm, a *coll.Actions) error {
		if kind == coll.Scatter {
			return a.Scatter(v, all, buf, 0)
		}
		return a.Bcast(v, buf, 0)
	}, coll.NotifyFunc(func(err error) { out = err }))
	if err != nil {
		return err
	}
	if !quick {
		return errors.New("not on the board")
	}
	if r == 0 {
		s.Test()
		done := s.Done()
		close(started)
		if done {
			return errors.New("the root completed before the others took its buffer")
		}
	}
	if err := colltest.WaitFor(s, 10*time.Second); err != nil {
		return err
	}
	if out != nil {
		return out
	}
	if got := colltest.I64(buf); !slices.Equal(got, colltest.I64(want)) {
		return fmt.Errorf("got %v, want %v", got[:4], colltest.I64(want)[:4])
	}
	return nil
}

// A copy of lent data that fails (the other process is gone, as the
// kernel sees it) is the error of the process whose data did not come,
// whichever of the pair made it (the reader from the lender's buffer, or
// the lender into the reader's), and every process completes: here
// every copy to or from process bad fails.
func TestBoardLentCopyFails(t *testing.T) {
	const n, bad = 3, 2
	dead := deadPID(t)
	for _, kind := range []coll.Kind{coll.Bcast, coll.Scatter, coll.Gather, coll.Allgather, coll.Alltoall} {
		t.Run(kind.String(), func(t *testing.T) {
			w := directWorld(t, n, 64)
			root := 0
			if kind == coll.Gather {
				root = bad // the root copies
			}
			m := wideBytes/n + 8
			errs := w.Each(func(r int) error {
				c := w.Comm(r)
				buf := coll.Buffer(m)
				all := coll.Buffer(n * m)
				run := func() error {
					var out error
					s, quick, err := colltest.StartSchedule(c, coll.Sig{Kind: kind, Root: root, Send: int64(m)}, func(v *coll.Comm, a *coll.Actions) error {
						switch kind {
						case coll.Bcast:
							return a.Bcast(v, buf, root)
						case coll.Scatter:
							return a.Scatter(v, all, buf, root)
						case coll.Gather:
							return a.Gather(v, buf, all, root)
						case coll.Allgather:
							return a.Allgather(v, buf, all)
						}
						return a.Alltoall(v, all, coll.Buffer(n*m))
					}, coll.NotifyFunc(func(err error) { out = err }))
					if err != nil {
						return err
					}
					if !quick {
						return errors.New("not on the board")
					}
					if err := colltest.WaitFor(s, 10*time.Second); err != nil {
						return err
					}
					return out
				}
				return runTwiceUnreachable(c, r, bad, dead, run)
			})
			// Every process of an Allgather or Alltoall needs bad's data;
			// of the others, bad alone needs anything bad cannot reach.
			all := kind == coll.Allgather || kind == coll.Alltoall
			for r, err := range errs {
				var ce *coll.Error
				switch {
				case (r == bad || all) && !(errors.As(err, &ce) && (errors.Is(err, unix.ESRCH) || errors.Is(err, errPushFailed))):
					t.Errorf("rank %d: %v, want the copy's error", r, err)
				case r != bad && !all && err != nil:
					t.Errorf("rank %d: %v", r, err)
				}
			}
		})
	}
}

// runTwiceUnreachable runs a collective on process r of c, then, with
// process bad's memory out of the others' reach and theirs out of its
// (as the kernel would see a process gone), again.
func runTwiceUnreachable(c *coll.Comm, r, bad, dead int, run func() error) error {
	if err := run(); err != nil {
		return fmt.Errorf("first call: %w", err)
	}
	a := c.Data.(*area)
	for q := range a.pids {
		if q != r && (r == bad || q == bad) {
			a.pids[q] = dead
		}
	}
	return run()
}

// Lent collectives on two communicators, waited for in orders that
// differ from process to process (MPI permits it): process 0 waits
// first for the Ibcast it lends on A, process 1 for the one it lends on
// B, each while the other has not copied. Each lender copies into the
// buffers of the processes that have not (push): when a lender waited
// for its readers to copy, each waited for the other for ever.
func TestBoardLentAcross(t *testing.T) {
	const n, size = 3, bigBytes + 8
	w := directWorld(t, n, 64)
	w.Check(t, w.Each(func(r int) error {
		a := w.Comm(r)
		b, err := a.T.Split(0, r)
		if err != nil {
			return err
		}
		comms := []*coll.Comm{a, b}
		bufs := [][]byte{coll.Buffer(size), coll.Buffer(size)}
		scheds := make([]*coll.Schedule, 2)
		outs := make([]error, 2)
		for i, c := range comms {
			if r == i {
				copy(bufs[i], colltest.Ints(i+7, size/8))
			}
			var quick bool
			scheds[i], quick, err = colltest.StartSchedule(c, coll.Sig{Kind: coll.Bcast, Send: size, Root: i}, func(v *coll.Comm, x *coll.Actions) error {
				return x.Bcast(v, bufs[i], i)
			}, coll.NotifyFunc(func(err error) { outs[i] = err }))
			if err != nil {
				return err
			}
			if !quick {
				return errors.New("not on the board")
			}
		}
		order := []int{0, 1}
		if r == 1 {
			order = []int{1, 0}
		}
		for _, i := range order {
			if err := colltest.WaitFor(scheds[i], 10*time.Second); err != nil {
				return fmt.Errorf("communicator %d: %w", i, err)
			}
			if outs[i] != nil {
				return outs[i]
			}
			if got, want := colltest.I64(bufs[i]), colltest.I64(colltest.Ints(i+7, size/8)); !slices.Equal(got, want) {
				return fmt.Errorf("communicator %d: got %v, want %v", i, got[:4], want[:4])
			}
		}
		return b.Free()
	}))
}
