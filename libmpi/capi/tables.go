package main

import (
	"sync"
	"sync/atomic"
)

// A table maps the C handles of one kind of object to the Go objects.
// Handles are indexes: 0 is the null handle, the predefined objects take
// the numbers mpi.h gives them, and new objects take freed numbers first.
// A lookup is two atomic loads and no lock; adding and removing take mu.
type table[T any] struct {
	mu    sync.Mutex
	slots atomic.Pointer[[]*slot[T]]
	free  []int
	first int // handles below first are predefined and never freed
	next  int // the lowest handle never given out
}

type slot[T any] struct{ v atomic.Pointer[T] }

// get returns the object of handle h, or nil if h names none.
func (t *table[T]) get(h int) *T {
	s := t.slots.Load()
	if s == nil || h <= 0 || h >= len(*s) {
		return nil
	}
	return (*s)[h].v.Load()
}

// set stores v at handle h (a predefined handle, at start-up).
func (t *table[T]) set(h int, v *T) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.grow(h + 1)
	(*t.slots.Load())[h].v.Store(v)
	if h >= t.first {
		t.first = h + 1
	}
}

// add stores v under a new handle and returns it.
func (t *table[T]) add(v *T) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	var h int
	if n := len(t.free); n > 0 {
		h, t.free = t.free[n-1], t.free[:n-1]
	} else {
		h = max(t.next, t.first, 1)
		t.next = h + 1
		t.grow(h + 1)
	}
	(*t.slots.Load())[h].v.Store(v)
	return h
}

// remove frees handle h (never a predefined one) and reports whether it
// named an object.
func (t *table[T]) remove(h int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.slots.Load()
	if s == nil || h < t.first || h >= len(*s) || (*s)[h].v.Load() == nil {
		return false
	}
	(*s)[h].v.Store(nil)
	t.free = append(t.free, h)
	return true
}

// grow makes room for n handles; the caller holds mu. Old slots are
// shared with the new slice, so a reader of the old one sees every store.
func (t *table[T]) grow(n int) {
	old := t.slots.Load()
	var cur []*slot[T]
	if old != nil {
		cur = *old
	}
	if n <= len(cur) {
		return
	}
	next := make([]*slot[T], max(n, 2*len(cur), 16))
	copy(next, cur)
	for i := len(cur); i < len(next); i++ {
		next[i] = new(slot[T])
	}
	t.slots.Store(&next)
}
