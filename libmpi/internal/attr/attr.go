// Package attr is the machinery behind MPI's attribute caching: keys
// (keyvals) with copy and delete callbacks, and the set of attributes one
// object (a communicator, a datatype) holds. It knows nothing of the
// objects: they reach the callbacks as values of type any, and the mpi
// package gives them their types and MPI error classes.
//
// The order the callbacks run in is this package's business:
//   - Copy (on a duplication) runs the copy callback of every attribute in
//     the order the keys were created, keeping a value only when the
//     callback asks for it;
//   - Put over a value already set runs the delete callback on the old
//     value first, and Delete runs it on the value it removes;
//   - DeleteAll (on a free) runs the delete callbacks in the reverse order
//     the attributes were set, as MPI requires for MPI_COMM_SELF at
//     MPI_Finalize.
//
// A callback that fails stops the operation: the attribute it was called
// for stays set (so does every attribute DeleteAll had not reached yet)
// and its error is returned.
//
// No lock is held while a callback runs, so a callback may read and set
// attributes itself.
package attr

import (
	"cmp"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
)

// CopyFunc is a key's copy callback: given the object being duplicated
// and its value, it returns the value for the copy and whether the copy
// gets the attribute at all.
type CopyFunc func(old, v any) (any, bool, error)

// DeleteFunc is a key's delete callback, run on a value leaving obj.
type DeleteFunc func(obj, v any) error

// Errors of misuse; the mpi package gives them the class MPI_ERR_KEYVAL.
var (
	ErrFreed      = errors.New("the keyval has been freed")
	ErrPredefined = errors.New("a predefined keyval cannot be set, deleted or freed")
)

var lastID atomic.Uint64

// Key is a keyval. Its attributes outlive Free: a freed key can no longer
// be used to set or get, but values already set keep running its
// callbacks until they are deleted, as MPI says.
type Key struct {
	id         uint64 // creation order
	copy       CopyFunc
	del        DeleteFunc
	predefined bool
	freed      atomic.Bool
}

// NewKey makes a key. A nil copy never copies (MPI_*_NULL_COPY_FN); a nil
// del does nothing (MPI_*_NULL_DELETE_FN).
func NewKey(copy CopyFunc, del DeleteFunc) *Key {
	return &Key{id: lastID.Add(1), copy: copy, del: del}
}

// NewPredefined makes a predefined key (MPI_TAG_UB and friends): its
// values are not stored in a Set and the user cannot change them.
func NewPredefined() *Key {
	return &Key{id: lastID.Add(1), predefined: true}
}

// ID is the key's number, unique and increasing in creation order.
func (k *Key) ID() uint64 { return k.id }

// Predefined reports whether k is a predefined key.
func (k *Key) Predefined() bool { return k.predefined }

// Usable returns nil if the key may be used to set, get or delete.
func (k *Key) Usable() error {
	if k.freed.Load() {
		return ErrFreed
	}
	return nil
}

// Free frees the key (MPI_*_free_keyval).
func (k *Key) Free() error {
	if k.predefined {
		return ErrPredefined
	}
	if k.freed.Swap(true) {
		return ErrFreed
	}
	return nil
}

type entry struct {
	key *Key
	val any
	seq uint64 // when it was set
}

// mu guards every Set: attribute calls are rare, and one lock lets a Set's
// zero value be ready to use inside the objects that hold one.
var mu sync.Mutex

// Set is the attributes one object holds. Its zero value is empty and
// ready to use. A Set must not be copied after first use.
type Set struct {
	m   map[*Key]*entry
	seq uint64
}

// Get returns the value of k in s.
func (s *Set) Get(k *Key) (any, bool) {
	mu.Lock()
	defer mu.Unlock()
	e, ok := s.m[k]
	if !ok {
		return nil, false
	}
	return e.val, true
}

// Len is the number of attributes set.
func (s *Set) Len() int {
	mu.Lock()
	defer mu.Unlock()
	return len(s.m)
}

func (s *Set) store(k *Key, v any) {
	if s.m == nil {
		s.m = make(map[*Key]*entry)
	}
	s.seq++
	s.m[k] = &entry{key: k, val: v, seq: s.seq}
}

// Put sets k to v on obj, whose attributes s holds. A value already set is
// deleted first (its delete callback runs); if that fails, the old value
// stays and the callback's error is returned.
func (s *Set) Put(obj any, k *Key, v any) error {
	if k.predefined {
		return ErrPredefined
	}
	if err := k.Usable(); err != nil {
		return err
	}
	if old, ok := s.Get(k); ok && k.del != nil {
		if err := k.del(obj, old); err != nil {
			return err
		}
	}
	mu.Lock()
	s.store(k, v)
	mu.Unlock()
	return nil
}

// Delete removes k's value from obj, running its delete callback; if the
// callback fails, the value stays. Deleting a value that is not set does
// nothing.
func (s *Set) Delete(obj any, k *Key) error {
	if k.predefined {
		return ErrPredefined
	}
	if err := k.Usable(); err != nil {
		return err
	}
	return s.remove(obj, k)
}

func (s *Set) remove(obj any, k *Key) error {
	old, ok := s.Get(k)
	if !ok {
		return nil
	}
	if k.del != nil {
		if err := k.del(obj, old); err != nil {
			return err
		}
	}
	mu.Lock()
	delete(s.m, k)
	mu.Unlock()
	return nil
}

func (s *Set) entries() []entry {
	mu.Lock()
	defer mu.Unlock()
	es := make([]entry, 0, len(s.m))
	for _, e := range s.m {
		es = append(es, *e)
	}
	return es
}

// Each calls f with every attribute of s, in the order they were set.
func (s *Set) Each(f func(k *Key, v any)) {
	es := s.entries()
	slices.SortFunc(es, func(a, b entry) int { return cmp.Compare(a.seq, b.seq) })
	for _, e := range es {
		f(e.key, e.val)
	}
}

// CopyTo runs the copy callback of every attribute of old (held in s) in
// key creation order, and sets on dst those the callbacks keep. On an
// error it stops and returns it; dst keeps what was copied before (the
// caller deletes it with DeleteAll).
func (s *Set) CopyTo(old any, dst *Set) error {
	es := s.entries()
	slices.SortFunc(es, func(a, b entry) int { return cmp.Compare(a.key.id, b.key.id) })
	for _, e := range es {
		if e.key.copy == nil {
			continue
		}
		v, keep, err := e.key.copy(old, e.val)
		if err != nil {
			return err
		}
		if keep {
			mu.Lock()
			dst.store(e.key, v)
			mu.Unlock()
		}
	}
	return nil
}

// DeleteAll deletes every attribute of obj (held in s), running the delete
// callbacks in the reverse order the attributes were set. The first
// callback to fail stops it: that attribute and those not reached stay.
func (s *Set) DeleteAll(obj any) error {
	es := s.entries()
	slices.SortFunc(es, func(a, b entry) int { return cmp.Compare(b.seq, a.seq) })
	for _, e := range es {
		if err := s.remove(obj, e.key); err != nil {
			return err
		}
	}
	return nil
}
