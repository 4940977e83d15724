package shmem_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/coll/colltest"
	"github.com/lamgo/lam/libmpi/coll/shmem"
)

// At coll_base_check=1 a Bcast, Gather or Scatter of one round sends its
// call with its data through the area: the processes that read a post of
// another call return the error (the class level 2 gives), the others
// nil, and the processes stay in step: matching collectives after it
// work. At 2 every process returns the error.
func TestMismatchSent(t *testing.T) {
	const n, bad = 5, 3
	const fill = 0x5a
	// Each case's call, by rank; it reports the receive buffer to check
	// (nil: none) and the call's error.
	bcast := func(size func(r int) int, kind func(r int) coll.Kind) func(c *coll.Comm) ([]byte, error) {
		return func(c *coll.Comm) ([]byte, error) {
			r := c.Rank()
			buf := coll.Buffer(size(r))
			for i := range buf {
				buf[i] = fill
			}
			if r == 0 {
				copy(buf, colltest.Ints(0, len(buf)/8))
			}
			if kind(r) == coll.Scatter { // 8 bytes per process, the root's n blocks
				var send []byte
				if r == 0 {
					send = colltest.Ints(0, n)
				}
				err := c.Run(coll.Sig{Kind: coll.Scatter, Send: int64(len(buf))}, func(a *coll.Actions) error { return a.Scatter(c, send, buf, 0) })
				return buf, err
			}
			err := c.Run(coll.Sig{Kind: coll.Bcast, Send: int64(len(buf))}, func(a *coll.Actions) error { return a.Bcast(c, buf, 0) })
			return buf, err
		}
	}
	eight := func(int) int { return 8 }
	badSize := func(r int) int {
		if r == bad {
			return 16
		}
		return 8
	}
	always := func(k coll.Kind) func(int) coll.Kind { return func(int) coll.Kind { return k } }
	badKind := func(r int) coll.Kind {
		if r == bad {
			return coll.Scatter
		}
		return coll.Bcast
	}
	only := func(rank int, class coll.Class) func(r int) coll.Class {
		return func(r int) coll.Class {
			if r == rank {
				return class
			}
			return -1
		}
	}
	every := func(class coll.Class) func(int) coll.Class { return func(int) coll.Class { return class } }
	gather := func(c *coll.Comm) ([]byte, error) {
		r := c.Rank()
		var recv []byte
		if r == 0 {
			recv = coll.Buffer(n * 8)
			for i := range recv {
				recv[i] = fill
			}
		}
		k := badSize(r) / 8
		err := c.Run(coll.Sig{Kind: coll.Gather, Send: int64(8 * k)}, func(a *coll.Actions) error {
			return a.Gather(c, colltest.Ints(r, k), recv, 0)
		})
		return recv, err
	}
	scatterType := func(c *coll.Comm) ([]byte, error) {
		r := c.Rank()
		var send []byte
		if r == 0 {
			send = colltest.Ints(0, n)
		}
		s := coll.Sig{Kind: coll.Scatter, Send: 8}
		if r == bad {
			s.Type = 2
		}
		recv := coll.Buffer(8)
		for i := range recv {
			recv[i] = fill
		}
		return recv, c.Run(s, func(a *coll.Actions) error { return a.Scatter(c, send, recv, 0) })
	}
	// ownError: rank who's own arguments are wrong (a null datatype:
	// its size unknown) in a Bcast, Gather or Scatter from rank 0.
	ownError := func(kind coll.Kind, who int) func(c *coll.Comm) ([]byte, error) {
		return func(c *coll.Comm) ([]byte, error) {
			r := c.Rank()
			sig := coll.Sig{Kind: kind, Send: 8}
			if r == who {
				sig.Send, sig.Err = -1, &coll.Error{Class: coll.ErrType, Msg: "a null datatype"}
			}
			buf := coll.Buffer(8)
			var whole []byte
			if r == 0 {
				whole = colltest.Ints(0, n)
				if kind == coll.Gather {
					whole = coll.Buffer(n * 8)
					for i := range whole {
						whole[i] = fill
					}
				}
			}
			for i := range buf {
				buf[i] = fill
			}
			if r == 0 && kind == coll.Bcast {
				copy(buf, colltest.Ints(0, 1))
			}
			if kind == coll.Gather {
				copy(buf, colltest.Ints(r, 1))
			}
			err := c.Run(sig, func(a *coll.Actions) error {
				switch kind {
				case coll.Gather:
					return a.Gather(c, buf, whole, 0)
				case coll.Scatter:
					return a.Scatter(c, whole, buf, 0)
				}
				return a.Bcast(c, buf, 0)
			})
			if kind == coll.Gather {
				return whole, err // a sender has no receive buffer
			}
			return buf, err
		}
	}
	for _, tt := range []struct {
		name  string
		level string
		call  func(c *coll.Comm) ([]byte, error)
		want  func(r int) coll.Class // -1: no error
	}{
		// A process whose own arguments are wrong takes its round: a
		// writer's readers return an error (not wait for ever), a
		// reader's writer goes on, and the calls after are in step.
		{"bcast root's own error", "1", ownError(coll.Bcast, 0), every(coll.ErrType)},
		{"bcast reader's own error", "1", ownError(coll.Bcast, bad), only(bad, coll.ErrType)},
		{"scatter root's own error", "1", ownError(coll.Scatter, 0), every(coll.ErrType)},
		{"gather sender's own error", "1", ownError(coll.Gather, bad), func(r int) coll.Class {
			if r == 0 || r == bad {
				return coll.ErrType
			}
			return -1
		}},
		{"gather root's own error", "1", ownError(coll.Gather, 0), only(0, coll.ErrType)},
		{"bcast size", "1", bcast(badSize, always(coll.Bcast)), only(bad, coll.ErrCount)},
		{"bcast size", "2", bcast(badSize, always(coll.Bcast)), every(coll.ErrCount)},
		{"bcast or scatter", "1", bcast(eight, badKind), only(bad, coll.ErrOther)},
		{"gather size", "1", gather, only(0, coll.ErrCount)},
		{"gather size", "2", gather, every(coll.ErrCount)},
		{"scatter type", "1", scatterType, only(bad, coll.ErrType)},
		{"scatter type", "2", scatterType, every(coll.ErrType)},
	} {
		t.Run(tt.name+"/check="+tt.level, func(t *testing.T) {
			w := world(t, make([]int32, n), "coll_base_check", tt.level, "coll_base_shmem_message_pool_size", "4096", "coll_base_shmem_num_segments", "2")
			errs := w.Each(func(r int) error {
				c := w.Comm(r)
				for round := range 3 { // the buffers' ring turns over
					buf, err := tt.call(c)
					want := tt.want(r)
					switch {
					case want < 0 && err != nil:
						return fmt.Errorf("round %d: %w", round, err)
					case want >= 0 && colltest.ClassOf(err) != want:
						return fmt.Errorf("round %d: %v, want class %d", round, err, want)
					}
					switch {
					case want >= 0 && r != 0:
						// A receiver's buffer is left as it was.
						for i, b := range buf {
							if b != fill {
								return fmt.Errorf("round %d: the failed call wrote byte %d of its buffer", round, i)
							}
						}
					case (tt.name == "gather size" || tt.name == "gather sender's own error") && r == 0:
						// The root has the blocks of the calls that agreed.
						for q := range n {
							got := colltest.I64(buf[q*8:])[0]
							if q == bad && tt.level == "1" && got != colltest.I64([]byte{fill, fill, fill, fill, fill, fill, fill, fill})[0] {
								return fmt.Errorf("round %d: block %d of another call was written", round, q)
							}
							if q != bad && tt.level == "1" && got != colltest.Val(q, 0) {
								return fmt.Errorf("round %d: block %d is %d", round, q, got)
							}
						}
					}
					// In step: a matching Allreduce and a Bcast from
					// another root.
					send, sum := colltest.Ints(r, 1), coll.Buffer(8)
					if err := c.Run(coll.Sig{Kind: coll.Allreduce, Send: 8, Op: 1}, func(a *coll.Actions) error { return a.Allreduce(c, send, sum, &colltest.Sum) }); err != nil {
						return fmt.Errorf("round %d: the Allreduce after: %w", round, err)
					}
					want0 := int64(0)
					for q := range n {
						want0 += colltest.Val(q, 0)
					}
					if got := colltest.I64(sum)[0]; got != want0 {
						return fmt.Errorf("round %d: the Allreduce after: %d, want %d", round, got, want0)
					}
					b := coll.Buffer(16)
					if r == 2 {
						copy(b, colltest.Ints(2, 2))
					}
					if err := c.Run(coll.Sig{Kind: coll.Bcast, Root: 2, Send: 16}, func(a *coll.Actions) error { return a.Bcast(c, b, 2) }); err != nil {
						return fmt.Errorf("round %d: the Bcast after: %w", round, err)
					}
					if got := colltest.I64(b); got[0] != colltest.Val(2, 0) || got[1] != colltest.Val(2, 1) {
						return fmt.Errorf("round %d: the Bcast after: %v", round, got)
					}
				}
				return nil
			})
			w.Check(t, errs)
		})
	}
}

// At coll_base_check=1 a process that only writes returns without waiting
// for the others: a Bcast's and a Scatter's root, a Gather's other
// processes finish before the others have called (a wait for them would
// hang here), three times in a row; in one buffer, and in a span of
// several (a call larger than a buffer: buffers of 4 KiB, spans of 2).
func TestSentReturns(t *testing.T) {
	const chunk = 4096
	spanParams := []string{"coll_base_shmem_message_pool_size", "65536", "coll_base_shmem_num_segments", "16"}
	for _, n := range []int{2, 3, 5, 8} {
		for _, kind := range []coll.Kind{coll.Bcast, coll.Gather, coll.Scatter} {
			for _, span := range []bool{false, true} {
				size := 8
				var params []string
				if span {
					params = spanParams
					size = chunk + chunk/2 // between a buffer and a span
					if kind == coll.Scatter {
						size = 3 * chunk / (2 * n) // the same, of each process's piece
					}
				}
				t.Run(fmt.Sprintf("%s/n=%d/size=%d", kind, n, size), func(t *testing.T) {
					const root, ops = 1, 3 // fewer than the buffers (spans): a writer waits for nobody
					w := world(t, make([]int32, n), params...)
					comms := setUp(t, w, n)
					sends := func(r int) bool { return r == root != (kind == coll.Gather) }
					errs := w.SendersFirst(sends, 10*time.Second, func(r int) error {
						c := comms[r]
						for op := range ops {
							if err := oneRooted(c, kind, root, size, op); err != nil {
								return fmt.Errorf("op %d: %w", op, err)
							}
							// Outside code (the C fast path) mirrors only
							// rounds of one buffer.
							if got := shmem.LastRound(c).Sent; got == span {
								return fmt.Errorf("op %d: LastRound's Sent is %v for a call of %d bytes", op, got, size)
							}
						}
						return nil
					})
					w.Check(t, errs)
				})
			}
		}
	}
}

// setUp has every process of w set its area up (a Barrier) and returns
// their communicators.
func setUp(t *testing.T, w *colltest.World, n int) []*coll.Comm {
	t.Helper()
	comms := make([]*coll.Comm, n)
	w.Check(t, w.Each(func(r int) error {
		c := w.Comm(r)
		comms[r] = c
		return c.Run(coll.Sig{Kind: coll.Barrier}, func(a *coll.Actions) error { return a.Barrier(c) })
	}))
	return comms
}

// At coll_base_check=0 a writer of calls that fit one buffer runs as far
// ahead of its readers as at 1: one buffer per call, so the pool's
// buffers, not its spans (an eighth as many), are the depth. 15 calls
// before the readers call, with 16 buffers (8 spans).
func TestUncheckedReturns(t *testing.T) {
	const n, root, ops = 3, 1, 15
	for _, kind := range []coll.Kind{coll.Bcast, coll.Gather, coll.Scatter} {
		t.Run(kind.String(), func(t *testing.T) {
			w := world(t, make([]int32, n), "coll_base_check", "0", "coll_base_shmem_message_pool_size", "65536", "coll_base_shmem_num_segments", "16")
			comms := setUp(t, w, n)
			sends := func(r int) bool { return r == root != (kind == coll.Gather) }
			w.Check(t, w.SendersFirst(sends, 10*time.Second, func(r int) error {
				for op := range ops {
					if err := oneRooted(comms[r], kind, root, 8, op); err != nil {
						return fmt.Errorf("op %d: %w", op, err)
					}
				}
				return nil
			}))
		})
	}
}

// A sent round in a span judges the calls as one of a buffer does: at
// coll_base_check=1 the processes that read a post of a call of another
// size (both spans) return the error, their buffers untouched, the
// others nil, and the processes stay in step.
func TestMismatchSentSpan(t *testing.T) {
	const n, bad, fill = 4, 2, 0x5a
	const size = 6000 // a buffer is 4 KiB, a span 8
	for _, kind := range []coll.Kind{coll.Bcast, coll.Gather} {
		t.Run(kind.String(), func(t *testing.T) {
			w := world(t, make([]int32, n), "coll_base_shmem_message_pool_size", "65536", "coll_base_shmem_num_segments", "16")
			errs := w.Each(func(r int) error {
				c := w.Comm(r)
				for round := range 20 { // the spans' ring turns over
					m := size
					if r == bad {
						m += 8
					}
					var err error
					var got []byte
					switch kind {
					case coll.Bcast:
						got = bytes.Repeat([]byte{fill}, m)
						if r == 0 {
							got = bytes.Repeat([]byte{1}, m)
						}
						err = c.Run(coll.Sig{Kind: kind, Send: int64(m)}, func(a *coll.Actions) error { return a.Bcast(c, got, 0) })
					case coll.Gather:
						send := bytes.Repeat([]byte{byte(r + 1)}, m)
						if r == 0 {
							got = bytes.Repeat([]byte{fill}, n*m)
						}
						err = c.Run(coll.Sig{Kind: kind, Send: int64(m)}, func(a *coll.Actions) error { return a.Gather(c, send, got, 0) })
					}
					// The processes that read another call's post: the
					// Bcast's process of the other size, the Gather's root.
					judges := kind == coll.Bcast && r == bad || kind == coll.Gather && r == 0
					switch {
					case judges && colltest.ClassOf(err) != coll.ErrCount:
						return fmt.Errorf("round %d: %v, want class %d", round, err, coll.ErrCount)
					case !judges && err != nil:
						return fmt.Errorf("round %d: %w", round, err)
					case kind == coll.Bcast && r == bad && bytes.Count(got, []byte{fill}) != m:
						return fmt.Errorf("round %d: the failed call wrote its buffer", round)
					case kind == coll.Gather && r == 0:
						for q := 1; q < n; q++ {
							want := byte(q + 1)
							if q == bad {
								want = fill
							}
							if b := got[q*m : (q+1)*m]; bytes.Count(b, []byte{want}) != m {
								return fmt.Errorf("round %d: process %d's block is not all %d", round, q, want)
							}
						}
					}
					if shmem.LastRound(c).Sent {
						return fmt.Errorf("round %d: a span's round was reported as one buffer's", round)
					}
					// In step: matching span and one-buffer Bcasts from
					// another root.
					for _, m := range []int{size, 8} {
						if err := oneRooted(c, coll.Bcast, 3, m, round); err != nil {
							return fmt.Errorf("round %d: the Bcast after: %w", round, err)
						}
					}
					if !shmem.LastRound(c).Sent {
						return fmt.Errorf("round %d: a one-buffer sent round not reported", round)
					}
				}
				return c.Free()
			})
			w.Check(t, errs)
		})
	}
}

// val is byte i of process r's data in operation op.
func val(op, r, i int) byte { return byte(op*131 + r*29 + i*7 + 1) }

// oneRooted runs a Bcast, Gather or Scatter of size bytes per process
// from root, operation op's data, and checks every byte this process
// received.
func oneRooted(c *coll.Comm, kind coll.Kind, root, size, op int) error {
	n, r := c.Size(), c.Rank()
	data := func(q, lo int, b []byte) {
		for i := range b {
			b[i] = val(op, q, lo+i)
		}
	}
	check := func(what string, q, lo int, b []byte) error {
		for i, x := range b {
			if want := val(op, q, lo+i); x != want {
				return fmt.Errorf("%s root %d size %d: byte %d of process %d's data is %d, want %d", what, root, size, lo+i, q, x, want)
			}
		}
		return nil
	}
	sig := coll.Sig{Kind: kind, Root: root, Send: int64(size)}
	switch kind {
	case coll.Bcast:
		buf := coll.Buffer(size)
		if r == root {
			data(root, 0, buf)
		}
		if err := c.Run(sig, func(a *coll.Actions) error { return a.Bcast(c, buf, root) }); err != nil {
			return err
		}
		return check("bcast", root, 0, buf)
	case coll.Gather:
		send := coll.Buffer(size)
		data(r, 0, send)
		var recv []byte
		if r == root {
			recv = coll.Buffer(n * size)
		}
		if err := c.Run(sig, func(a *coll.Actions) error { return a.Gather(c, send, recv, root) }); err != nil {
			return err
		}
		if r == root {
			for q := range n {
				if err := check("gather", q, 0, recv[q*size:(q+1)*size]); err != nil {
					return err
				}
			}
		}
		return nil
	case coll.Scatter:
		var send []byte
		if r == root {
			send = coll.Buffer(n * size)
			for q := range n {
				data(q, 0, send[q*size:(q+1)*size])
			}
		}
		recv := coll.Buffer(size)
		if err := c.Run(sig, func(a *coll.Actions) error { return a.Scatter(c, send, recv, root) }); err != nil {
			return err
		}
		return check("scatter", r, 0, recv)
	}
	return fmt.Errorf("no such rooted collective %s", kind)
}

// Many rooted collectives back to back, whose writers return at once, of
// other data, roots and sizes each time (one round, several, or
// lam_basic's), mixed with Barriers, Allreduces and Allgathers, at 2 to 5
// processes with the default buffers and with 2 small ones (a writer
// reuses each every other round), some processes late now and then:
// every byte every process receives is checked, at coll_base_check=1 and
// 0.
func TestSentBackToBack(t *testing.T) {
	const ops = 400
	for _, n := range []int{2, 3, 4, 5} {
		for _, params := range [][]string{nil, {"coll_base_shmem_message_pool_size", "4096", "coll_base_shmem_num_segments", "2"},
			{"coll_base_check", "0", "coll_base_shmem_message_pool_size", "4096", "coll_base_shmem_num_segments", "2"},
			// Spans of 5 buffers (sent ones at 1), and calls of one buffer
			// and of spans at 0.
			{"coll_base_check", "0", "coll_base_shmem_message_pool_size", "40960", "coll_base_shmem_num_segments", "40"},
			// More buffers than a line of digests holds.
			{"coll_base_shmem_message_pool_size", "40960", "coll_base_shmem_num_segments", "40"}} {
			t.Run(fmt.Sprintf("n=%d/%v", n, params), func(t *testing.T) {
				w := world(t, make([]int32, n), params...)
				errs := w.Each(func(r int) error {
					c := w.Comm(r)
					seq := rand.New(rand.NewPCG(uint64(n), 7))              // the same calls on every process
					late := rand.New(rand.NewPCG(uint64(n), uint64(r)+100)) // this process's delays
					sizes := []int{1, 8, 24, 200, 700, 2048, 5000}
					for op := range ops {
						if late.IntN(8) == 0 {
							for range late.IntN(50) {
								runtime.Gosched()
							}
						}
						size, root := sizes[seq.IntN(len(sizes))], seq.IntN(n)
						var err error
						switch k := seq.IntN(10); {
						case k < 3:
							err = oneRooted(c, coll.Bcast, root, size, op)
						case k < 5:
							err = oneRooted(c, coll.Gather, root, size, op)
						case k < 7:
							err = oneRooted(c, coll.Scatter, root, size, op)
						case k == 7:
							err = c.Run(coll.Sig{Kind: coll.Barrier}, func(a *coll.Actions) error { return a.Barrier(c) })
						case k == 8:
							send, sum := colltest.Ints(r+op, 3), coll.Buffer(24)
							err = c.Run(coll.Sig{Kind: coll.Allreduce, Send: 24, Op: 1}, func(a *coll.Actions) error { return a.Allreduce(c, send, sum, &colltest.Sum) })
							for i := 0; err == nil && i < 3; i++ {
								want := int64(0)
								for q := range n {
									want += colltest.Val(q+op, i)
								}
								if got := colltest.I64(sum)[i]; got != want {
									err = fmt.Errorf("allreduce: element %d is %d, want %d", i, got, want)
								}
							}
						default:
							send, recv := coll.Buffer(size), coll.Buffer(n*size)
							for i := range send {
								send[i] = val(op, r, i)
							}
							err = c.Run(coll.Sig{Kind: coll.Allgather, Send: int64(size)}, func(a *coll.Actions) error { return a.Allgather(c, send, recv) })
							for q := 0; err == nil && q < n; q++ {
								for i := range size {
									if recv[q*size+i] != val(op, q, i) {
										err = fmt.Errorf("allgather size %d: byte %d of process %d's block is wrong", size, i, q)
										break
									}
								}
							}
						}
						if err != nil {
							return fmt.Errorf("op %d: %w", op, err)
						}
					}
					return c.Free()
				})
				w.Check(t, errs)
			})
		}
	}
}

// shmem's collectives that send their call bound the senders through the
// area (coll.Actions.SentBounded): even with the framework's flow control
// at every call (coll_base_sent_sync=1) they send no point-to-point
// message — the C fast path, which runs these rounds without the
// framework, could not count acknowledgements the way Go does.
func TestSentNoAcks(t *testing.T) {
	const n, ops = 4, 50
	w := world(t, make([]int32, n), "coll_base_sent_sync", "1")
	var before, after [n]int
	errs := w.Each(func(r int) error {
		c := w.Comm(r)
		if err := oneRooted(c, coll.Bcast, 0, 8, 0); err != nil { // sets the area up
			return err
		}
		if err := c.Run(coll.Sig{Kind: coll.Barrier}, func(a *coll.Actions) error { return a.Barrier(c) }); err != nil {
			return err
		}
		before[r], _ = w.Messages(r)
		for op := range ops {
			kind := []coll.Kind{coll.Bcast, coll.Gather, coll.Scatter}[op%3]
			if err := oneRooted(c, kind, op%n, 8, op+1); err != nil {
				return fmt.Errorf("op %d (%s): %w", op, kind, err)
			}
		}
		after[r], _ = w.Messages(r)
		if err := c.Run(coll.Sig{Kind: coll.Barrier}, func(a *coll.Actions) error { return a.Barrier(c) }); err != nil {
			return err
		}
		return c.Free()
	})
	w.Check(t, errs)
	for r := range n {
		if d := after[r] - before[r]; d != 0 {
			t.Errorf("rank %d sent %d point-to-point messages in %d small rooted collectives", r, d, ops)
		}
	}
}

// A Bcast, Gather or Scatter that fits a span takes the buffers it needs
// (a span sized to its call), not the whole span: with buffers of 4 KiB
// and spans of 4, calls of 2 buffers are 16 in flight, so their writer
// returns 15 times before its readers call (with spans of 4 it would
// wait at the 9th, and the test hang until SendersFirst's limit), at
// coll_base_check=1 (sent rounds) and 0.
func TestSentSpanDepth(t *testing.T) {
	const n, root, ops, chunk = 3, 1, 15, 4096
	for _, level := range []string{"1", "0"} {
		for _, kind := range []coll.Kind{coll.Bcast, coll.Gather, coll.Scatter} {
			size := 2 * chunk
			if kind == coll.Scatter {
				size = 2 * chunk / n // the n pieces in 2 buffers
			}
			t.Run(fmt.Sprintf("%s/check=%s", kind, level), func(t *testing.T) {
				w := world(t, make([]int32, n), "coll_base_check", level, "coll_base_shmem_message_pool_size", "131072", "coll_base_shmem_num_segments", "32")
				comms := setUp(t, w, n)
				sends := func(r int) bool { return r == root != (kind == coll.Gather) }
				w.Check(t, w.SendersFirst(sends, 10*time.Second, func(r int) error {
					for op := range ops {
						if err := oneRooted(comms[r], kind, root, size, op); err != nil {
							return fmt.Errorf("op %d: %w", op, err)
						}
					}
					return nil
				}))
			})
		}
	}
}

// A small Bcast, Gather or Scatter that sends its call moves its data in
// its writer's lane line, one per round, laneSlots of them: its writer
// returns laneSlots times before its readers call, with far fewer
// buffers. With the buffers' depth it would wait at the 17th: the
// readers then call after SendersFirst's limit and the test fails.
func TestSentLaneDepth(t *testing.T) {
	const n, root = 3, 1
	laneSlots, laneBytes := int(shmem.Mirror()["laneSlots"]), int(shmem.Mirror()["laneBytes"])
	for _, kind := range []coll.Kind{coll.Bcast, coll.Gather, coll.Scatter} {
		size := 8
		if kind == coll.Scatter {
			size = laneBytes / n // the n pieces together fill the line
		}
		t.Run(kind.String(), func(t *testing.T) {
			w := world(t, make([]int32, n), "coll_base_shmem_num_segments", "16")
			comms := setUp(t, w, n)
			sends := func(r int) bool { return r == root != (kind == coll.Gather) }
			w.Check(t, w.SendersFirst(sends, time.Second, func(r int) error {
				for op := range laneSlots {
					if err := oneRooted(comms[r], kind, root, size, op); err != nil {
						return fmt.Errorf("op %d: %w", op, err)
					}
				}
				return nil
			}))
		})
	}
}

// A writer that runs more than laneSlots small calls ahead of its readers
// waits for them before it writes a lane line again: the readers start
// late and lag now and then, the writer's data differ every call, and
// every byte is checked (a writer that did not wait would overwrite lines
// not yet read, whose readers would take a later call's data).
func TestSentLaneReuse(t *testing.T) {
	const n, root = 3, 0
	laneSlots := int(shmem.Mirror()["laneSlots"])
	ops := 3*laneSlots + 7
	for _, kind := range []coll.Kind{coll.Bcast, coll.Gather, coll.Scatter} {
		t.Run(kind.String(), func(t *testing.T) {
			w := world(t, make([]int32, n), "coll_base_shmem_num_segments", "16")
			comms := setUp(t, w, n)
			w.Check(t, w.Each(func(r int) error {
				late := rand.New(rand.NewPCG(uint64(r), 31))
				if r == root == (kind == coll.Gather) { // the readers start late
					time.Sleep(20 * time.Millisecond)
				}
				for op := range ops {
					if late.IntN(16) == 0 {
						for range late.IntN(200) {
							runtime.Gosched()
						}
					}
					// Data that differ from those of the calls laneSlots
					// apart, which share the line (val repeats every 256).
					if err := oneRooted(comms[r], kind, root, 8, op+op/laneSlots); err != nil {
						return fmt.Errorf("op %d: %w", op, err)
					}
				}
				return nil
			}))
		})
	}
}

// Sent rounds of every span size in a row, back to back: calls of one
// buffer, of 2 to 4 (buffers of 4 KiB, spans of 4), and of more than a
// span (rounds of a span at coll_base_check=0, the argument check then
// rounds at 1), Bcasts, Gathers and Scatters from several roots, some
// processes late now and then, every byte checked. Every process must
// take the same buffers and round numbers for each call: a reader that
// sized a span otherwise than its writer reads other buffers or waits for
// a round that its writer numbers otherwise, and gets wrong data or
// hangs (the test's timeout).
func TestSentMixedSpans(t *testing.T) {
	const ops, chunk = 300, 4096
	for _, n := range []int{2, 3, 5} {
		for _, level := range []string{"1", "0"} {
			t.Run(fmt.Sprintf("n=%d/check=%s", n, level), func(t *testing.T) {
				w := world(t, make([]int32, n), "coll_base_check", level, "coll_base_shmem_message_pool_size", "131072", "coll_base_shmem_num_segments", "32")
				errs := w.Each(func(r int) error {
					c := w.Comm(r)
					seq := rand.New(rand.NewPCG(uint64(n), 24))             // the same calls on every process
					late := rand.New(rand.NewPCG(uint64(n), uint64(r)+200)) // this process's delays
					// Bytes through the writer's pool: 1, 2, 3 and 4
					// buffers, and 2 spans and a piece.
					sizes := []int{8, chunk, chunk + 8, 2 * chunk, 3*chunk - 8, 3 * chunk, 4 * chunk, 9*chunk + 100}
					for op := range ops {
						if late.IntN(8) == 0 {
							for range late.IntN(50) {
								runtime.Gosched()
							}
						}
						size, root := sizes[seq.IntN(len(sizes))], seq.IntN(n)
						kind := []coll.Kind{coll.Bcast, coll.Gather, coll.Scatter}[seq.IntN(3)]
						if kind == coll.Scatter {
							size = max(1, size/n) // each process's piece
						}
						if err := oneRooted(c, kind, root, size, op); err != nil {
							return fmt.Errorf("op %d (%s of %d from %d): %w", op, kind, size, root, err)
						}
						// Outside code (the C fast path) mirrors only
						// rounds of one buffer.
						spanned := size > chunk
						if kind == coll.Scatter {
							spanned = size*n > chunk
						}
						if spanned && shmem.LastRound(c).Sent {
							return fmt.Errorf("op %d (%s of %d): a span's round reported as one buffer's", op, kind, size)
						}
					}
					return c.Free()
				})
				w.Check(t, errs)
			})
		}
	}
}

// A reader whose call takes another number of buffers than its writer's
// (one against a span, or spans of other sizes) still finds the writer's
// call of this collective in the lane line of the round's head, the same
// for every size, and returns the error instead of reading another
// call's data or waiting for a round its writer numbers otherwise. (The
// processes are out of step after it: nothing runs after the call.)
func TestMismatchSentSpanSizes(t *testing.T) {
	const n, bad, fill, chunk = 3, 2, 0x5a, 4096
	for _, tt := range []struct {
		kind      coll.Kind
		size, odd int // bytes per process: every process's, and bad's
	}{
		{coll.Bcast, 8, 3 * chunk}, {coll.Bcast, 3 * chunk, 8}, {coll.Bcast, 2 * chunk, 4 * chunk}, {coll.Bcast, 4 * chunk, chunk + 8},
		{coll.Gather, 8, 2 * chunk}, {coll.Gather, 3 * chunk, chunk},
	} {
		t.Run(fmt.Sprintf("%s/%d/%d", tt.kind, tt.size, tt.odd), func(t *testing.T) {
			w := world(t, make([]int32, n), "coll_base_shmem_message_pool_size", "131072", "coll_base_shmem_num_segments", "32")
			comms := setUp(t, w, n)
			// Past the pool's first turn, so that stale digests lie
			// beside every buffer: calls of the odd size among them.
			w.Check(t, w.Each(func(r int) error {
				for op := range 40 {
					if err := oneRooted(comms[r], tt.kind, op%n, []int{tt.size, tt.odd}[op%2], op); err != nil {
						return fmt.Errorf("op %d: %w", op, err)
					}
				}
				return nil
			}))
			w.Check(t, w.Each(func(r int) error {
				c := comms[r]
				m := tt.size
				if r == bad {
					m = tt.odd
				}
				var err error
				var got []byte
				switch tt.kind {
				case coll.Bcast:
					got = bytes.Repeat([]byte{fill}, m)
					if r == 0 {
						got = bytes.Repeat([]byte{1}, m)
					}
					err = c.Run(coll.Sig{Kind: tt.kind, Send: int64(m)}, func(a *coll.Actions) error { return a.Bcast(c, got, 0) })
				case coll.Gather:
					if r == 0 {
						got = bytes.Repeat([]byte{fill}, n*m)
					}
					err = c.Run(coll.Sig{Kind: tt.kind, Send: int64(m)}, func(a *coll.Actions) error {
						return a.Gather(c, bytes.Repeat([]byte{byte(r + 1)}, m), got, 0)
					})
				}
				judges := tt.kind == coll.Bcast && r == bad || tt.kind == coll.Gather && r == 0
				switch {
				case judges && colltest.ClassOf(err) != coll.ErrCount:
					return fmt.Errorf("%v, want class %d", err, coll.ErrCount)
				case !judges && err != nil:
					return err
				case tt.kind == coll.Bcast && r == bad && bytes.Count(got, []byte{fill}) != m:
					return errors.New("the failed call wrote its buffer")
				case tt.kind == coll.Gather && r == 0:
					if b := got[bad*m : (bad+1)*m]; bytes.Count(b, []byte{fill}) != m {
						return errors.New("the root wrote the block of another call")
					}
					if b := got[m : 2*m]; bytes.Count(b, []byte{2}) != m {
						return errors.New("the root did not read the block of a call that agreed")
					}
				}
				return nil
			}))
		})
	}
}

// A small Reduce or Allreduce whose inputs fit in the synchronising line
// beside the digests (2 processes up to 16 bytes, 3 up to 8) leaves them
// there, not in its buffers: no buffer is claimed; larger ones use the
// buffers. Back to back, from several roots, every result checked (the
// line's two slots are each written again two rounds later; a Reduce's
// other processes write the next call's input while its root reads this
// one's, which calls of other sizes must not reach).
func TestSyncedReduction(t *testing.T) {
	for _, tt := range []struct {
		n, elems int
		synced   bool
		mixed    bool // every third call of one element
	}{{2, 1, true, false}, {2, 2, true, false}, {3, 1, true, false}, {2, 3, false, false}, {3, 2, false, false}, {2, 2, true, true}} {
		t.Run(fmt.Sprintf("n=%d/bytes=%d/mixed=%v", tt.n, 8*tt.elems, tt.mixed), func(t *testing.T) {
			w := world(t, make([]int32, tt.n))
			comms := setUp(t, w, tt.n)
			w.Check(t, w.Each(func(r int) error {
				c := comms[r]
				o, ok := shmem.Outside(c)
				if !ok {
					return errors.New("not shmem's")
				}
				lastUse := unsafe.Slice(o.LastUse, o.Segs)
				before := slices.Clone(lastUse)
				var wrong error // kept, so that every process goes on calling
				for op := range 40 {
					elems := tt.elems
					if tt.mixed && op%3 == 1 {
						elems = 1 // a smaller call between two: its slot is the other one
					}
					size := 8 * elems
					send, recv := colltest.Ints(r+op, elems), coll.Buffer(size)
					root := op % tt.n
					var err error
					if op%2 == 0 {
						err = c.Run(coll.Sig{Kind: coll.Allreduce, Send: int64(size), Op: 1}, func(a *coll.Actions) error { return a.Allreduce(c, send, recv, &colltest.Sum) })
					} else {
						err = c.Run(coll.Sig{Kind: coll.Reduce, Send: int64(size), Op: 1, Root: root}, func(a *coll.Actions) error { return a.Reduce(c, send, recv, &colltest.Sum, root) })
					}
					if err != nil {
						return fmt.Errorf("op %d: %w", op, err)
					}
					if op%2 == 1 && r != root {
						continue
					}
					for i := range elems {
						want := int64(0)
						for q := range tt.n {
							want += colltest.Val(q+op, i)
						}
						if got := colltest.I64(recv)[i]; got != want && wrong == nil {
							wrong = fmt.Errorf("op %d: element %d is %d, want %d", op, i, got, want)
						}
					}
				}
				if claimed := !slices.Equal(before, lastUse); claimed == tt.synced {
					return fmt.Errorf("buffers claimed: %v, want %v", claimed, !tt.synced)
				}
				return wrong
			}))
		})
	}
}
