package ofi

import (
	"container/list"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// regCache is a registration cache: registering memory with a fabric
// is slow (the kernel pins the pages), so a registration outlives its
// use and is found again when a later transfer uses memory inside it.
//
// Regions are kept sorted by start address and found by binary search
// (a region that holds [addr, addr+n) starts at most maxLen below
// addr+n). A region in use is referenced; one that is not waits in an
// LRU list and is deregistered when the cache holds more than max
// regions. A registration that fails (the provider's or the kernel's
// limit on pinned memory) evicts every unused region and is tried once
// more; if it fails again the caller gets the error and moves the
// message another way: nobody ever waits for another user's region, so
// a failure cannot deadlock.
//
// The long-message path uses it (rma.go): the sender registers the
// buffer a rendezvous exposes, and the receiver its own buffer where the
// provider wants local buffers registered; see docs/ofi.md.
type regCache struct {
	reg    registrar
	max    int
	mu     sync.Mutex
	byAddr []*region // sorted by start
	maxLen uintptr   // the longest region's length
	unused list.List // regions nobody references, most recently used first
}

// registrar registers memory with the fabric.
type registrar interface {
	register(start, end uintptr) (key uint64, err error)
	deregister(key uint64) error
}

// region is a registered piece of memory.
type region struct {
	start, end uintptr
	key        uint64
	refs       int
	lru        *list.Element // in unused when refs == 0
}

// pageSize: regions are whole pages, so that neighbouring buffers share
// them.
const pageSize = 4096

func newRegCache(reg registrar, max int) *regCache {
	c := &regCache{reg: reg, max: max}
	c.unused.Init()
	return c
}

// acquire returns a registered region that holds [addr, addr+n),
// referenced until release.
func (c *regCache) acquire(addr, n uintptr) (*region, error) {
	if n == 0 || addr+n < addr {
		return nil, fmt.Errorf("register [%#x, +%d): bad range", addr, n)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if r := c.find(addr, addr+n); r != nil {
		c.ref(r)
		return r, nil
	}
	start := addr &^ (pageSize - 1)
	end := (addr + n + pageSize - 1) &^ (pageSize - 1)
	for c.unused.Len() > 0 && len(c.byAddr) >= c.max {
		if err := c.evict(c.unused.Back().Value.(*region)); err != nil {
			return nil, err
		}
	}
	key, err := c.reg.register(start, end)
	if err != nil {
		// Give back what nobody uses, and try once more.
		for c.unused.Len() > 0 {
			if eerr := c.evict(c.unused.Back().Value.(*region)); eerr != nil {
				return nil, errors.Join(err, eerr)
			}
		}
		if key, err = c.reg.register(start, end); err != nil {
			return nil, fmt.Errorf("register [%#x, %#x): %w", start, end, err)
		}
	}
	r := &region{start: start, end: end, key: key, refs: 1}
	i, _ := slices.BinarySearchFunc(c.byAddr, start, func(r *region, s uintptr) int {
		switch {
		case r.start < s:
			return -1
		case r.start > s:
			return 1
		}
		return 0
	})
	c.byAddr = slices.Insert(c.byAddr, i, r)
	c.maxLen = max(c.maxLen, end-start)
	return r, nil
}

// find returns a region that holds [addr, end); the caller holds mu.
func (c *regCache) find(addr, end uintptr) *region {
	// The first region starting after addr; candidates lie before it.
	i, _ := slices.BinarySearchFunc(c.byAddr, addr+1, func(r *region, s uintptr) int {
		if r.start < s {
			return -1
		}
		return 1
	})
	var low uintptr
	if end > c.maxLen {
		low = end - c.maxLen
	}
	for i--; i >= 0 && c.byAddr[i].start >= low; i-- {
		if r := c.byAddr[i]; r.end >= end {
			return r
		}
	}
	return nil
}

func (c *regCache) ref(r *region) {
	if r.refs == 0 {
		c.unused.Remove(r.lru)
		r.lru = nil
	}
	r.refs++
}

// hold references r, which the caller holds, once more (release it
// twice).
func (c *regCache) hold(r *region) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ref(r)
}

// release gives back a region acquire returned.
func (c *regCache) release(r *region) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.refs <= 0 {
		return errors.New("release of a region nobody holds")
	}
	if r.refs--; r.refs > 0 {
		return nil
	}
	r.lru = c.unused.PushFront(r)
	if len(c.byAddr) > c.max {
		return c.evict(c.unused.Back().Value.(*region))
	}
	return nil
}

// evict deregisters an unused region; the caller holds mu.
func (c *regCache) evict(r *region) error {
	c.unused.Remove(r.lru)
	r.lru = nil
	if i := slices.Index(c.byAddr, r); i >= 0 {
		c.byAddr = slices.Delete(c.byAddr, i, i+1)
	}
	if err := c.reg.deregister(r.key); err != nil {
		return fmt.Errorf("deregister [%#x, %#x): %w", r.start, r.end, err)
	}
	return nil
}

// close deregisters every region; it fails if some are still held.
func (c *regCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, r := range c.byAddr {
		if r.refs > 0 {
			errs = append(errs, fmt.Errorf("region [%#x, %#x) still held", r.start, r.end))
			continue
		}
		if err := c.reg.deregister(r.key); err != nil {
			errs = append(errs, err)
		}
	}
	c.byAddr = nil
	c.unused.Init()
	return errors.Join(errs...)
}

// size is the number of registered regions.
func (c *regCache) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byAddr)
}
