package main

import (
	"sync"
	"sync/atomic"
)

// A table maps the C handles of one kind of object to the Go objects.
// Handles are indexes: 0 is the null handle, the predefined objects take
// the numbers mpi.h gives them, and new objects take freed numbers first
// (a loop of MPI_Isend and MPI_Wait uses one handle). A lookup is two
// atomic loads and no lock; adding and removing take mu. Slots are made
// once and reused, so adding allocates nothing once the table has grown.
type table[T any] struct {
	mu    sync.Mutex
	slots atomic.Pointer[[]*slot[T]]
	free  []int
	first int // handles below first are predefined and never freed
	next  int // the lowest handle never given out
}

// A slot is one handle's entry: its object, nil when the handle is free,
// and whether the handle is kept when the object completes (a persistent
// request; the other kinds leave it false).
type slot[T any] struct {
	v    atomic.Pointer[T]
	keep atomic.Bool
}

// get returns the object of handle h, or nil if h names none.
func (t *table[T]) get(h int) *T {
	if sl := t.entry(h); sl != nil {
		return sl.v.Load()
	}
	return nil
}

// entry returns the slot of handle h, or nil if h names no object.
func (t *table[T]) entry(h int) *slot[T] {
	s := t.slots.Load()
	if s == nil || h <= 0 || h >= len(*s) {
		return nil
	}
	if sl := (*s)[h]; sl.v.Load() != nil {
		return sl
	}
	return nil
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
func (t *table[T]) add(v *T) int { return t.addKeep(v, false) }

// addKeep is add with the slot's keep flag, stored before v so that
// whoever finds v finds the flag too.
func (t *table[T]) addKeep(v *T, keep bool) int {
	t.mu.Lock()
	var h int
	if n := len(t.free); n > 0 {
		h, t.free = t.free[n-1], t.free[:n-1]
	} else {
		h = max(t.next, t.first, 1)
		t.next = h + 1
		t.grow(h + 1)
	}
	sl := (*t.slots.Load())[h]
	sl.keep.Store(keep)
	sl.v.Store(v)
	t.mu.Unlock()
	return h
}

// remove frees handle h (never a predefined one) and reports whether it
// named an object.
func (t *table[T]) remove(h int) bool {
	t.mu.Lock()
	s := t.slots.Load()
	ok := s != nil && h >= max(t.first, 1) && h < len(*s) && (*s)[h].v.Load() != nil
	if ok {
		(*s)[h].v.Store(nil)
		t.free = append(t.free, h)
	}
	t.mu.Unlock()
	return ok
}

// inUse is the number of handles given out and not freed, predefined
// ones not counted (for tests).
func (t *table[T]) inUse() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return max(t.next-max(t.first, 1), 0) - len(t.free)
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
