package mpi

import (
	"slices"
	"strings"
	"sync"
)

// MPI's limits on Info keys and values (MPI_MAX_INFO_KEY,
// MPI_MAX_INFO_VAL, as LAM sets them): lengths in bytes, without C's
// terminating NUL.
const (
	MaxInfoKey = 255
	MaxInfoVal = 1024
)

// Info is an MPI_Info object: an ordered set of (key, value) string pairs
// passed as hints to calls that take them. The calls map one-to-one onto
// MPI's:
//
//	MPI_Info_create(&info)                      info, err := NewInfo()
//	MPI_Info_set(info, key, value)              info.Set(key, value)
//	MPI_Info_get(info, key, len, value, &flag)  value, flag, err := info.Get(key)
//	MPI_Info_get_valuelen(info, key, &n, &flag) n, flag, err := info.GetValuelen(key)
//	MPI_Info_delete(info, key)                  info.Delete(key)
//	MPI_Info_get_nkeys(info, &n)                n, err := info.NKeys()
//	MPI_Info_get_nthkey(info, n, key)           key, err := info.NthKey(n)
//	MPI_Info_dup(info, &newinfo)                newinfo, err := info.Dup()
//	MPI_Info_free(&info)                        info.Free()
//
// A nil *Info is MPI_INFO_NULL: calls that take hints accept it, its
// methods fail with MPI_ERR_INFO, as do those of a freed Info. Keys are
// 1 to MaxInfoKey bytes (else MPI_ERR_INFO_KEY), values 1 to MaxInfoVal
// bytes (else MPI_ERR_INFO_VALUE), neither holding a NUL byte; keys are
// case-sensitive. An Info is safe for concurrent use.
type Info struct {
	mu    sync.Mutex
	keys  []string // in the order they were first set: NthKey's order
	vals  map[string]string
	freed bool
}

// NewInfo makes an empty Info (MPI_Info_create).
func NewInfo() (*Info, error) {
	return &Info{vals: make(map[string]string)}, nil
}

// lock locks a usable Info.
func (in *Info) lock() error {
	if in == nil {
		return errorf(ErrInfo, "MPI_INFO_NULL")
	}
	in.mu.Lock()
	if in.freed {
		in.mu.Unlock()
		return errorf(ErrInfo, "the Info has been freed")
	}
	return nil
}

func checkInfoKey(key string) error {
	switch {
	case key == "":
		return errorf(ErrInfoKey, "empty key")
	case len(key) > MaxInfoKey:
		return errorf(ErrInfoKey, "a key of %d bytes is longer than MPI_MAX_INFO_KEY (%d)", len(key), MaxInfoKey)
	case strings.IndexByte(key, 0) >= 0:
		return errorf(ErrInfoKey, "key %q holds a NUL byte", key)
	}
	return nil
}

// Set sets key to value, replacing a value already set
// (MPI_Info_set).
func (in *Info) Set(key, value string) error {
	if err := checkInfoKey(key); err != nil {
		return err
	}
	switch {
	case value == "":
		return errorf(ErrInfoValue, "empty value for key %q", key)
	case len(value) > MaxInfoVal:
		return errorf(ErrInfoValue, "the value of %q (%d bytes) is longer than MPI_MAX_INFO_VAL (%d)", key, len(value), MaxInfoVal)
	case strings.IndexByte(value, 0) >= 0:
		return errorf(ErrInfoValue, "the value of %q holds a NUL byte", key)
	}
	if err := in.lock(); err != nil {
		return err
	}
	defer in.mu.Unlock()
	if _, ok := in.vals[key]; !ok {
		in.keys = append(in.keys, key)
	}
	in.vals[key] = value
	return nil
}

// Get returns the value of key and whether it is set (MPI_Info_get with
// a buffer of MaxInfoVal bytes, so never truncated).
func (in *Info) Get(key string) (string, bool, error) {
	if err := checkInfoKey(key); err != nil {
		return "", false, err
	}
	if err := in.lock(); err != nil {
		return "", false, err
	}
	defer in.mu.Unlock()
	v, ok := in.vals[key]
	return v, ok, nil
}

// GetValuelen returns the length in bytes of key's value and whether it
// is set (MPI_Info_get_valuelen).
func (in *Info) GetValuelen(key string) (int, bool, error) {
	v, ok, err := in.Get(key)
	return len(v), ok, err
}

// Delete removes key (MPI_Info_delete); MPI_ERR_INFO_NOKEY if it is not
// set.
func (in *Info) Delete(key string) error {
	if err := checkInfoKey(key); err != nil {
		return err
	}
	if err := in.lock(); err != nil {
		return err
	}
	defer in.mu.Unlock()
	if _, ok := in.vals[key]; !ok {
		return errorf(ErrInfoNokey, "key %q is not set", key)
	}
	delete(in.vals, key)
	in.keys = slices.DeleteFunc(in.keys, func(k string) bool { return k == key })
	return nil
}

// NKeys is the number of keys set (MPI_Info_get_nkeys).
func (in *Info) NKeys() (int, error) {
	if err := in.lock(); err != nil {
		return 0, err
	}
	defer in.mu.Unlock()
	return len(in.keys), nil
}

// NthKey returns the nth key, counting from 0 in the order the keys were
// first set (MPI_Info_get_nthkey); MPI_ERR_ARG if n is not below NKeys.
func (in *Info) NthKey(n int) (string, error) {
	if err := in.lock(); err != nil {
		return "", err
	}
	defer in.mu.Unlock()
	if n < 0 || n >= len(in.keys) {
		return "", errorf(ErrArg, "key %d of an Info with %d keys", n, len(in.keys))
	}
	return in.keys[n], nil
}

// Dup makes a copy holding the same pairs in the same order
// (MPI_Info_dup).
func (in *Info) Dup() (*Info, error) {
	if err := in.lock(); err != nil {
		return nil, err
	}
	defer in.mu.Unlock()
	n := &Info{keys: slices.Clone(in.keys), vals: make(map[string]string, len(in.vals))}
	for k, v := range in.vals {
		n.vals[k] = v
	}
	return n, nil
}

// Free frees the Info (MPI_Info_free): it can no longer be used.
func (in *Info) Free() error {
	if err := in.lock(); err != nil {
		return err
	}
	defer in.mu.Unlock()
	in.freed, in.keys, in.vals = true, nil, nil
	return nil
}
