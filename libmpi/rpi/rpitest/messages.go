package rpitest

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/internal/core"
	"github.com/lamgo/lam/libmpi/rpi"
)

// The tests through the MPI core: the module's links under the one
// matching engine and its protocol (eager, rendezvous, direct copies).

// engines starts an MPI core for every process of j, as MPI_Init does.
func engines(t testing.TB, j *job) []*core.Engine {
	n := len(j.ts)
	es := make([]*core.Engine, n)
	for i, tr := range j.ts {
		cfg := core.Config{Rank: i, Links: j.links[i], Short: tr.Short(), Pace: core.DefaultPace}
		if p, ok := tr.(rpi.Pacer); ok {
			cfg.Pace = p.Pace()
		}
		if n > runtime.NumCPU() {
			cfg.Pace = cfg.Pace.Oversubscribed()
		}
		cfg.Waiter, _ = tr.(rpi.Waiter)
		es[i] = core.New(cfg)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, e := range es {
			e.Close(ctx)
		}
	})
	return es
}

const tag = 5

// plan is what every rank sends to every other: sizes(from, to), in that
// order, with one tag, so that message k must match receive k.
type plan func(from, to int) []int

// payload is message k from one rank to another.
func payload(from, to, k, size int) []byte {
	b := make([]byte, size)
	pattern(b, uint64(from)<<40|uint64(to)<<20|uint64(k))
	return b
}

// messages runs the plan: every rank posts the first half of its
// receives, starts every send (every third synchronous), posts the rest,
// and waits; a rank goes on making progress until every rank is done (a
// finished rank may still owe a peer an acknowledgement).
func messages(ctx context.Context, t testing.TB, es []*core.Engine, sizes plan) {
	t.Helper()
	n := len(es)
	var left atomic.Int32
	left.Store(int32(n))
	errs := make([]error, n)
	var wg sync.WaitGroup
	for me, e := range es {
		wg.Go(func() { errs[me] = rankMessages(ctx, me, e, sizes, &left) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func rankMessages(ctx context.Context, me int, e *core.Engine, sizes plan, left *atomic.Int32) error {
	n := e.Size()
	type recv struct {
		from, k, size int
		r             *core.Request
	}
	var recvs []*recv
	var reqs []*core.Request
	for from := range n {
		if from == me {
			continue
		}
		for k, size := range sizes(from, me) {
			recvs = append(recvs, &recv{from: from, k: k, size: size})
		}
	}
	post := func(rs []*recv) {
		for _, rv := range rs {
			rv.r = e.NewRecv(make([]byte, rv.size), rv.from, tag, 0)
			e.Start(rv.r)
			reqs = append(reqs, rv.r)
		}
	}
	// The first half of each source's receives (they are posted in order
	// per source).
	var early, late []*recv
	for _, rv := range recvs {
		if rv.k < len(sizes(rv.from, me))/2 {
			early = append(early, rv)
		} else {
			late = append(late, rv)
		}
	}
	post(early)
	for to := range n {
		if to == me {
			continue
		}
		for k, size := range sizes(me, to) {
			mode := core.Standard
			if k%3 == 2 {
				mode = core.Sync
			}
			s := e.NewSend(payload(me, to, k, size), to, to, me, tag, 0, mode)
			e.Start(s)
			reqs = append(reqs, s)
		}
	}
	post(late)
	counted := false
	err := e.WaitAny(ctx, func() bool {
		if !counted {
			for _, r := range reqs {
				if !r.Done() {
					return false
				}
			}
			counted = true
			left.Add(-1)
		}
		return left.Load() == 0
	})
	if err != nil {
		done := 0
		for _, r := range reqs {
			if r.Done() {
				done++
			}
		}
		return failf(me, "%d of %d requests done when the wait ended: %v", done, len(reqs), err)
	}
	for _, r := range reqs {
		if err := r.Status().Err; err != nil {
			return failf(me, "a request failed: %v", err)
		}
	}
	for _, rv := range recvs {
		st := rv.r.Status()
		if st.Source != rv.from || st.Tag != tag || st.Count != rv.size {
			return failf(me, "receive %d from rank %d (%d bytes): status %+v", rv.k, rv.from, rv.size, st)
		}
		if !bytes.Equal(rv.r.Buffer(), payload(rv.from, me, rv.k, rv.size)) {
			return failf(me, "message %d from rank %d (%d bytes) changed on the way", rv.k, rv.from, rv.size)
		}
	}
	return nil
}

// messageSizes are the sizes around the limits of the protocol on a link:
// eager, rendezvous, and the direct copy of links that read the peer's
// memory.
func (j *job) messageSizes(from, to int) []int {
	short := j.short(from, to)
	sizes := []int{0, 1, 55, 56, 57, 4096, short - 1, short, short + 1, 256 << 10, 1 << 20, 1<<20 + 1, 3<<20 + 5}
	if d, ok := j.links[to][from].(rpi.RemoteReader); ok {
		sc := d.SingleCopy()
		sizes = append(sizes, sc, sc+1, 2*sc+7)
	}
	slices.Sort(sizes)
	return slices.Compact(sizes)
}

// Messages of every size class, both ways at once, then one way only
// (a receiver with no send of its own under way may share a direct copy
// with the sender), in order and intact.
func testMessages(t *testing.T, f Factory) {
	times := 2
	if *long {
		times = 8
	}
	for _, oneWay := range []bool{false, true} {
		name := map[bool]string{false: "BothWays", true: "OneWay"}[oneWay]
		t.Run(name, func(t *testing.T) {
			j := f.open(t, 2)
			es := engines(t, j)
			messages(deadline(t), t, es, func(from, to int) []int {
				if oneWay && from == 1 {
					return nil
				}
				return shuffled(j.messageSizes(from, to), times, uint64(from))
			})
		})
	}
}

// More processes than processors, every one sending to every other.
func testCrowd(t *testing.T, f Factory) {
	n := max(4, runtime.NumCPU()+2)
	if *long {
		n = 3*runtime.NumCPU() + 2
	}
	j := f.open(t, n)
	es := engines(t, j)
	messages(deadline(t), t, es, func(from, to int) []int {
		return []int{0, 1, j.short(from, to) + 1, 100 << 10, 7}
	})
}

// A rendezvous send to a process whose links closed fails with
// ErrDeadPeer, within a bound.
func testCloseSeenByCore(t *testing.T, f Factory) {
	if !f.CloseSeen {
		t.Skip("the module's links do not show their peer's close")
	}
	j := f.open(t, 2)
	es := engines(t, j)
	s := es[0].NewSend(make([]byte, j.short(0, 1)+1), 1, 1, 0, tag, 0, core.Standard)
	es[0].Start(s)
	if err := es[1].Close(within(t, 5*time.Second)); err != nil {
		t.Fatalf("close rank 1: %v", err)
	}
	deadPeer(t, es[0], s)
}

// deadPeer checks that s fails with ErrDeadPeer within 15 s.
func deadPeer(t testing.TB, e *core.Engine, s *core.Request) {
	t.Helper()
	start := time.Now()
	if err := e.Wait(within(t, 15*time.Second), s); err != nil {
		t.Fatalf("a send to a dead peer did not end: %v", err)
	}
	if err := s.Status().Err; !errors.Is(err, core.ErrDeadPeer) {
		t.Fatalf("a send to a dead peer: %v", s.Status())
	}
	t.Logf("a send to a dead peer failed in %v: %v", time.Since(start).Round(time.Millisecond), s.Status().Err)
}
