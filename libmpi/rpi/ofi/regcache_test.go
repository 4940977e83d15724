package ofi

import (
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// fakeRegistrar registers nothing but keeps the books: which keys are
// live and over what, and it refuses registrations beyond limit pages
// (as a provider does at its pinned-memory limit).
type fakeRegistrar struct {
	mu      sync.Mutex
	next    uint64
	live    map[uint64][2]uintptr
	pages   uintptr
	limit   uintptr
	refused int
}

var errLimit = errors.New("pinned-memory limit")

func (f *fakeRegistrar) register(start, end uintptr) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := (end - start) / pageSize
	if f.limit > 0 && f.pages+n > f.limit {
		f.refused++
		return 0, errLimit
	}
	f.next++
	f.live[f.next] = [2]uintptr{start, end}
	f.pages += n
	return f.next, nil
}

func (f *fakeRegistrar) deregister(key uint64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.live[key]
	if !ok {
		return errors.New("deregister of a key not registered")
	}
	delete(f.live, key)
	f.pages -= (r[1] - r[0]) / pageSize
	return nil
}

// holds reports whether key is live and covers [addr, addr+n).
func (f *fakeRegistrar) holds(key uint64, addr, n uintptr) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.live[key]
	return ok && r[0] <= addr && addr+n <= r[1]
}

func newFake(limit uintptr) *fakeRegistrar {
	return &fakeRegistrar{live: map[uint64][2]uintptr{}, limit: limit}
}

func TestRegCacheReuse(t *testing.T) {
	f := newFake(0)
	c := newRegCache(f, 4)
	const base = 0x100000
	steps := []struct {
		addr, n uintptr
		reused  bool // found in the cache, not registered again
	}{
		{base + 10, 100, false},
		{base + 200, 3000, true},  // the same page
		{base + 4000, 200, false}, // crosses into the next page
		{base + 4096, 4096, true}, // inside the last region
		{base + 3*4096, 1, false}, // a page of its own
		{base + 4095, 2, true},    // straddles two pages the second region holds
		{base + 100*4096, 8 * 4096, false},
		{base + 101*4096, 4096, true},     // inside the long region
		{base + 99*4096, 3 * 4096, false}, // overlaps it, not inside
	}
	var held []*region
	for i, s := range steps {
		before := f.next
		r, err := c.acquire(s.addr, s.n)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if !f.holds(r.key, s.addr, s.n) {
			t.Errorf("step %d: region [%#x, %#x) does not hold [%#x, +%d)", i, r.start, r.end, s.addr, s.n)
		}
		if reused := f.next == before; reused != s.reused {
			t.Errorf("step %d: reused %v, want %v", i, reused, s.reused)
		}
		held = append(held, r)
	}
	// Everything is held: nothing could be evicted, however many.
	if n := c.size(); n != 5 {
		t.Errorf("%d regions, want 5", n)
	}
	for _, r := range held {
		if err := c.release(r); err != nil {
			t.Fatal(err)
		}
	}
	// Released: the cache keeps at most max.
	if n := c.size(); n > 4 {
		t.Errorf("%d regions after release, want at most 4", n)
	}
	if err := c.release(held[0]); err == nil {
		t.Error("a region released twice")
	}
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
	if len(f.live) != 0 {
		t.Errorf("%d registrations left after close", len(f.live))
	}
	if _, err := c.acquire(base, 0); err == nil {
		t.Error("an empty range registered")
	}
}

// The least recently used unused region goes first.
func TestRegCacheLRU(t *testing.T) {
	f := newFake(0)
	c := newRegCache(f, 2)
	acq := func(page uintptr) *region {
		r, err := c.acquire(page*pageSize, 1)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a, b := acq(1), acq(2)
	c.release(a)
	c.release(b)
	c.release(acq(1)) // a is now the most recently used
	c.release(acq(3)) // evicts b
	if c.find(2*pageSize, 2*pageSize+1) != nil || c.find(pageSize, pageSize+1) == nil {
		t.Error("evicted the wrong region")
	}
}

// A registration refused at the limit evicts what nobody uses and tries
// again; refused again, it fails, and never waits for other users.
func TestRegCacheLimit(t *testing.T) {
	f := newFake(3)
	c := newRegCache(f, 100)
	r1, err := c.acquire(1*pageSize, 2*pageSize)
	if err != nil {
		t.Fatal(err)
	}
	c.release(r1)
	r2, err := c.acquire(10*pageSize, 3*pageSize) // only after r1 goes
	if err != nil {
		t.Fatalf("no room made: %v", err)
	}
	if _, err := c.acquire(20*pageSize, 1); !errors.Is(err, errLimit) {
		t.Fatalf("beyond the limit with every region held: %v", err)
	}
	c.release(r2)
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
}

// Several goroutines register, reuse and evict overlapping buffers of
// one arena at once; a region is never deregistered while held.
func TestRegCacheConcurrent(t *testing.T) {
	f := newFake(24)
	c := newRegCache(f, 16)
	const arena = 0x10000000
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for g := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			var held []*region
			for range 2000 {
				if len(held) > 0 && (len(held) > 3 || rng.IntN(2) == 0) {
					i := rng.IntN(len(held))
					if err := c.release(held[i]); err != nil {
						mu.Lock()
						errs = append(errs, err)
						mu.Unlock()
					}
					held = slices.Delete(held, i, i+1)
					continue
				}
				addr := arena + uintptr(rng.IntN(64*pageSize))
				n := uintptr(1 + rng.IntN(3*pageSize))
				r, err := c.acquire(addr, n)
				if errors.Is(err, errLimit) {
					continue // held by others: the caller copies instead
				}
				if err != nil || !f.holds(r.key, addr, n) {
					mu.Lock()
					errs = append(errs, errors.Join(err, errors.New("a region that does not hold the buffer")))
					mu.Unlock()
					continue
				}
				held = append(held, r)
			}
			for _, r := range held {
				c.release(r)
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
	if len(f.live) != 0 || f.pages != 0 {
		t.Errorf("%d registrations (%d pages) left", len(f.live), f.pages)
	}
	t.Logf("%d registrations, %d refused at the limit", f.next, f.refused)
}
