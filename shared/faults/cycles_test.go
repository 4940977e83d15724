package faults

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	cycles         = 100
	concurrentJobs = 50
)

// Back-to-back boot, run, halt: every cycle works and leaves nothing.
func TestCycles(t *testing.T) {
	sc := record(t, fmt.Sprintf("%d boot/run/halt cycles", cycles))
	ctx := testContext(t, 5*time.Minute)
	u := newUniverse(t, sc, "")
	var lamds []int
	for i := range cycles {
		// Back to back: lamboot follows lamhalt at once.
		u.boot(ctx, 0)
		lamds = append(lamds, u.lamd)
		if r := u.run(ctx, "mpirun", "-np", "2", bin("hello")); r.code != 0 || strings.Count(r.stdout, "Hello, world!") != 2 {
			sc.note("cycle %d: job failed", i)
			t.Fatalf("cycle %d: mpirun: %v", i, r)
		}
		if r := u.run(ctx, "lamhalt", "-H"); r.code != 0 {
			sc.note("cycle %d: lamhalt failed", i)
			t.Fatalf("cycle %d: lamhalt: %v", i, r)
		}
	}
	if left := waitGone(leftBound, lamds...); len(left) > 0 {
		sc.note("%d lamds left", len(left))
		t.Errorf("lamds %v still run after their lamhalt", left)
	}
	sc.note("%d cycles", cycles)
	u.lamd = 0
	u.noneLeft()
}

// peak samples a process's usage until stop closes and returns the
// largest of each measure.
func peak(pid int, stop <-chan struct{}) *usage {
	var p usage
	for {
		if us, err := measure(pid); err == nil {
			p.FDs = max(p.FDs, us.FDs)
			p.Threads = max(p.Threads, us.Threads)
			p.RSSKiB = max(p.RSSKiB, us.RSSKiB)
		}
		select {
		case <-stop:
			return &p
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Many jobs at once in one universe: all succeed.
func TestConcurrentJobs(t *testing.T) {
	sc := record(t, fmt.Sprintf("%d concurrent jobs (mpirun -np 2 hello)", concurrentJobs))
	ctx := testContext(t, 5*time.Minute)
	u := newUniverse(t, sc, "")
	u.boot(ctx, 0)
	sc.Before = u.usage()
	stop := make(chan struct{})
	var load *usage
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); load = peak(u.lamd, stop) }()
	jobs := make([]*job, concurrentJobs)
	for i := range jobs {
		jobs[i] = u.start(ctx, "mpirun", "-np", "2", bin("hello"))
	}
	failed := 0
	for i, j := range jobs {
		r := j.mustWait()
		if r.code != 0 || strings.Count(r.stdout, "Hello, world!") != 2 {
			failed++
			t.Errorf("job %d: %v", i, r)
		}
	}
	close(stop)
	wg.Wait()
	sc.Load = load
	sc.note("%d of %d jobs failed", failed, concurrentJobs)
	sc.After = u.recovered(sc.Before, 10*time.Second)
	u.mustAnswer(ctx, "after the jobs")
	u.halt(ctx)
	u.noneLeft()
}
