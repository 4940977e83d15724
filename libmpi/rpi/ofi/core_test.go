//go:build ofi && cgo

package ofi

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/internal/core"
	"github.com/lamgo/lam/libmpi/rpi"
)

// corePair starts an MPI core on each of the two processes of openPair.
func corePair(t testing.TB, prov string) ([]*transport, []*core.Engine) {
	ts, links := openPair(t, prov)
	es := make([]*core.Engine, 2)
	for i, tr := range ts {
		es[i] = core.New(core.Config{Rank: i, Links: links[i], Short: tr.Short(), Pace: tr.Pace(), Waiter: tr})
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, e := range es {
			e.Close(ctx)
		}
	})
	return ts, es
}

// copies sums the data messages read out of receive buffers and those
// the core read in place.
func copies(ts []*transport) (out, in uint64) {
	for _, t := range ts {
		t.mu.Lock()
		out += t.copiedOut
		in += t.inPlace
		t.mu.Unlock()
	}
	return out, in
}

// corePingPong makes n round trips of size bytes between the two cores.
func corePingPong(es []*core.Engine, size, n int) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		buf := make([]byte, size)
		for range n {
			r := es[1].NewRecv(buf, 0, 1, 0)
			es[1].Start(r)
			if err := es[1].Wait(ctx, r); err != nil {
				done <- err
				return
			}
			s := es[1].NewSend(buf, 0, 0, 1, 1, 0, core.Standard)
			es[1].Start(s)
			if err := es[1].Wait(ctx, s); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	msg, buf := make([]byte, size), make([]byte, size)
	for range n {
		s := es[0].NewSend(msg, 1, 1, 0, 1, 0, core.Standard)
		es[0].Start(s)
		r := es[0].NewRecv(buf, 1, 1, 0)
		es[0].Start(r)
		if err := es[0].Wait(ctx, s); err != nil {
			return err
		}
		if err := es[0].Wait(ctx, r); err != nil {
			return err
		}
	}
	return <-done
}

// TestEagerInPlace: the MPI core reads an eager message where it
// arrived, in its receive buffer (the link is an rpi.Peeker), instead of
// copying it out into its staging buffer first: one copy per small
// message on the receiving side (into the user's buffer), not two.
func TestEagerInPlace(t *testing.T) {
	for _, prov := range []string{"tcp", "shm"} {
		t.Run(prov, func(t *testing.T) {
			ts, es := corePair(t, prov)
			for _, size := range []int{1, 4096} {
				out0, in0 := copies(ts)
				const n = 200
				if err := corePingPong(es, size, n); err != nil {
					t.Fatal(err)
				}
				out, in := copies(ts)
				if out-out0 != 0 || in-in0 != 2*n {
					t.Errorf("%d B: %d messages copied out, %d read in place in %d round trips; want 0 and %d", size, out-out0, in-in0, n, 2*n)
				}
			}
		})
	}
}

// BenchmarkCorePingPong: a round trip through two MPI cores over ofi
// links (both in this process): busy-cgo/op as BenchmarkPingPong's,
// copied-out/op the messages copied out of receive buffers before the
// core read them, in-place/op those read where they arrived.
func BenchmarkCorePingPong(b *testing.B) {
	for _, prov := range []string{"shm", "tcp"} {
		for _, size := range []int{1, 4096} {
			b.Run(fmt.Sprintf("%s/%d", prov, size), func(b *testing.B) {
				ts, es := corePair(b, prov)
				calls, empty := crossings(ts)
				out, in := copies(ts)
				b.ResetTimer()
				if err := corePingPong(es, size, b.N); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				c, e := crossings(ts)
				o, i := copies(ts)
				b.ReportMetric(float64((c-e)-(calls-empty))/float64(b.N), "busy-cgo/op")
				b.ReportMetric(float64(o-out)/float64(b.N), "copied-out/op")
				b.ReportMetric(float64(i-in)/float64(b.N), "in-place/op")
			})
		}
	}
}

var _ rpi.Peeker = (*link)(nil)

// TestBackoff: the background's next wake-up (table): the tick
// doubles up to busyTick while the process progresses itself, is tick
// again at the first wake-up that finds it did not, and idleTick once
// nothing was sent for idleAfter.
func TestBackoff(t *testing.T) {
	recent := time.Millisecond
	long := idleAfter + time.Millisecond
	for _, c := range []struct {
		every     time.Duration
		idle      bool
		sinceSend time.Duration
		wantEvery time.Duration
		wantNext  time.Duration
	}{
		{tick, false, recent, 2 * tick, 2 * tick},
		{2 * tick, false, recent, busyTick, busyTick},
		{busyTick, false, recent, busyTick, busyTick},
		{busyTick, true, recent, tick, tick},
		{tick, true, recent, tick, tick},
		{busyTick, false, long, busyTick, idleTick},
		{tick, true, long, tick, idleTick},
	} {
		every, next := backoff(c.every, c.idle, c.sinceSend)
		if every != c.wantEvery || next != c.wantNext {
			t.Errorf("backoff(%v, idle %v, %v since a send) = %v, %v; want %v, %v",
				c.every, c.idle, c.sinceSend, every, next, c.wantEvery, c.wantNext)
		}
	}
}

// TestBackgroundBacksOff: while a process makes progress itself (a
// ping-pong), the transport's background goroutine backs off to
// busyTick (each wake-up is a hand-off to the Go scheduler for nothing).
// How often it does depends on the machine's load (a ping-pong
// descheduled for a tick looks idle), so this waits, bounded, until it
// has at least once; the wake-up rate is reported, not asserted.
func TestBackgroundBacksOff(t *testing.T) {
	ts, es := corePair(t, "tcp")
	before, backed := ts[0].wakeups.Load(), ts[0].backedOff.Load()
	start := time.Now()
	for ts[0].backedOff.Load() == backed {
		if time.Since(start) > 20*time.Second {
			t.Fatalf("the background never backed off to %v in %v of ping-pong (%d wake-ups)",
				busyTick, time.Since(start).Round(time.Millisecond), ts[0].wakeups.Load()-before)
		}
		if err := corePingPong(es, 1, 100); err != nil {
			t.Fatal(err)
		}
	}
	for time.Since(start) < 400*time.Millisecond {
		if err := corePingPong(es, 1, 100); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d wake-ups (%d at %v) in %v of ping-pong", ts[0].wakeups.Load()-before,
		ts[0].backedOff.Load()-backed, busyTick, time.Since(start).Round(time.Millisecond))
}
