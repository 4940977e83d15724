package core

import (
	"context"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/libmpi/rpi"
)

// A waiter asleep for a request that no link completes (a generalized
// request, a nonblocking collective's) is woken by Finish, which another
// goroutine calls: over descriptors (the engine's eventfd) and over a
// Waiter. The sleep is made 30 s long, so a missed wake-up shows as a
// wait far longer than the 50 ms before Finish.
func TestFinishWakesSleeper(t *testing.T) {
	sleepy := rpi.Pace{SpinPolls: 1}
	for _, kind := range []string{"descriptors", "waiter"} {
		t.Run(kind, func(t *testing.T) {
			var e *Engine
			switch kind {
			case "descriptors":
				fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
				if err != nil {
					t.Fatal(err)
				}
				unix.SetNonblock(fds[0], true)
				defer unix.Close(fds[1])
				e = New(Config{Rank: 0, Links: []rpi.Link{nil, &sockLink{fds[0]}}, Pace: sleepy})
				if e.bell < 0 {
					t.Fatal("no eventfd for a process that sleeps in poll(2)")
				}
			case "waiter":
				w := &wakeWaiter{wake: make(chan struct{}, 1)}
				e = New(Config{Rank: 0, Links: []rpi.Link{nil, idleLink{}}, Pace: sleepy, Waiter: w})
			}
			defer e.Close(context.Background())
			e.nap = 30 * time.Second
			for i := 0; i < 3; i++ {
				r := e.NewGeneric()
				go func() {
					time.Sleep(50 * time.Millisecond)
					e.Finish(r, Status{Tag: i})
				}()
				start := time.Now()
				if err := e.Wait(ctx(t), r); err != nil {
					t.Fatal(err)
				}
				if d := time.Since(start); d > 4*time.Second || r.Status().Tag != i {
					t.Fatalf("round %d: woken after %v, status %+v", i, d, r.Status())
				}
			}
		})
	}
}

// Two sleepers over descriptors are both woken by one Finish, and the
// bell is reset for the next ones once they have woken.
func TestFinishWakesEverySleeper(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	unix.SetNonblock(fds[0], true)
	defer unix.Close(fds[1])
	e := New(Config{Rank: 0, Links: []rpi.Link{nil, &sockLink{fds[0]}}, Pace: rpi.Pace{SpinPolls: 1}})
	defer e.Close(context.Background())
	e.nap = 30 * time.Second
	for round := 0; round < 3; round++ {
		a, b := e.NewGeneric(), e.NewGeneric()
		done := make(chan time.Duration, 2)
		for _, r := range []*Request{a, b} {
			go func() {
				start := time.Now()
				e.Wait(context.Background(), r)
				done <- time.Since(start)
			}()
		}
		time.Sleep(50 * time.Millisecond)
		e.Finish(a, Status{})
		e.Finish(b, Status{})
		for range 2 {
			select {
			case d := <-done:
				if d > 10*time.Second {
					t.Fatalf("round %d: a sleeper woke after %v", round, d)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("round %d: a sleeper was not woken", round)
			}
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if n := e.sleepers.Load(); n != 0 {
		t.Fatalf("%d sleepers counted after every wait ended", n)
	}
}

// BenchmarkFinishWake: a waiter asleep in poll(2) for a request that
// another goroutine completes with Finish, as a nonblocking collective's
// request is completed by the goroutine that ran its last step. Before
// Finish rang the engine's bell, each op took the rest of the waiter's
// 10 ms nap.
func BenchmarkFinishWake(b *testing.B) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		b.Fatal(err)
	}
	unix.SetNonblock(fds[0], true)
	defer unix.Close(fds[1])
	e := New(Config{Rank: 0, Links: []rpi.Link{nil, &sockLink{fds[0]}}, Pace: rpi.Pace{SpinPolls: 1}})
	defer e.Close(context.Background())
	for b.Loop() {
		r := e.NewGeneric()
		go func() {
			time.Sleep(100 * time.Microsecond) // the waiter is asleep by then
			e.Finish(r, Status{})
		}()
		if err := e.Wait(context.Background(), r); err != nil {
			b.Fatal(err)
		}
	}
}
