package mpi

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"io"
	"sync"

	"github.com/lamgo/lam/libmpi/internal/attr"
)

// Attributes in a checkpoint. A keyval is a pair of functions of this
// process, so a checkpoint cannot save an attribute by itself: the
// program makes a keyval restorable (NewRestorableKeyval,
// NewRestorableTypeKeyval) by giving it a name that identifies it across
// a restart, with a value type that encoding/gob encodes. A checkpoint
// saves the attributes of those keyvals on the communicators and
// datatypes it saves (World and Self too), by name and encoded value; a
// restarted process, which makes the same keyvals before MPI_Init, gets
// them back on the communicators and datatypes it restores, set in the
// order they were set. Attributes of other keyvals are refused, as
// before, with the reason.

// restorable is a keyval whose attributes a checkpoint saves.
type restorable struct {
	name string
	key  *attr.Key
	enc  func(v any) ([]byte, error)
	dec  func(b []byte) (any, error)
}

// crKeyvals are the restorable keyvals, by key and by kind and name.
var crKeyvals struct {
	mu     sync.Mutex
	byKey  map[*attr.Key]*restorable
	byName map[string]*restorable // "comm:" or "type:", then the name
}

// crAttr is a saved attribute.
type crAttr struct {
	Keyval string // the restorable keyval's name
	Value  []byte // gob
}

// NewRestorableKeyval makes a keyval for communicator attributes, as
// NewKeyval does, whose attributes a checkpoint saves and a restart sets
// again. name identifies the keyval across the restart: it must be
// unique among the process's restorable communicator keyvals, and the
// restarted program must make the keyval with the same name before
// MPI_Init (the communicators are restored inside it). T's values are
// saved with encoding/gob: a T that gob cannot encode is refused here.
func NewRestorableKeyval[T any](name string, copy func(oldComm *Comm, v T) (T, bool, error), del func(c *Comm, v T) error) (*Keyval[T], error) {
	k := attr.NewKey(eraseCopy(copy), eraseDelete(del))
	if err := registerRestorable[T]("comm:", name, k); err != nil {
		return nil, err
	}
	return &Keyval[T]{k}, nil
}

// NewRestorableTypeKeyval is NewRestorableKeyval for datatype attributes.
func NewRestorableTypeKeyval[T any](name string, copy func(oldType *Datatype, v T) (T, bool, error), del func(d *Datatype, v T) error) (*TypeKeyval[T], error) {
	k := attr.NewKey(eraseCopy(copy), eraseDelete(del))
	if err := registerRestorable[T]("type:", name, k); err != nil {
		return nil, err
	}
	return &TypeKeyval[T]{k}, nil
}

// Restorable makes k, a keyval made by NewKeyval, restorable as
// NewRestorableKeyval would have made it, under name (the C and Fortran
// programs' MPIL_Cr_keyval_name). The same rules hold: the restarted
// program names its keyval the same before MPI_Init.
func (k *Keyval[T]) Restorable(name string) error {
	return registerRestorable[T]("comm:", name, k.k)
}

// Restorable is Keyval.Restorable for a datatype keyval.
func (k *TypeKeyval[T]) Restorable(name string) error {
	return registerRestorable[T]("type:", name, k.k)
}

func registerRestorable[T any](kind, name string, k *attr.Key) error {
	if name == "" {
		return errorf(ErrKeyval, "a restorable keyval needs a name")
	}
	var zero T
	if err := gob.NewEncoder(io.Discard).Encode(&zero); err != nil {
		return errorf(ErrKeyval, "restorable keyval %q: its values cannot be saved: %v", name, err)
	}
	crKeyvals.mu.Lock()
	defer crKeyvals.mu.Unlock()
	if r := crKeyvals.byKey[k]; r != nil {
		return errorf(ErrKeyval, "the keyval is restorable already, named %q", r.name)
	}
	if crKeyvals.byName[kind+name] != nil {
		return errorf(ErrKeyval, "a restorable keyval named %q exists already", name)
	}
	if crKeyvals.byKey == nil {
		crKeyvals.byKey, crKeyvals.byName = map[*attr.Key]*restorable{}, map[string]*restorable{}
	}
	r := &restorable{name: name, key: k,
		enc: func(v any) ([]byte, error) {
			var b bytes.Buffer
			t := v.(T)
			err := gob.NewEncoder(&b).Encode(&t)
			return b.Bytes(), err
		},
		dec: func(b []byte) (any, error) {
			var t T
			err := gob.NewDecoder(bytes.NewReader(b)).Decode(&t)
			return t, err
		}}
	crKeyvals.byKey[k], crKeyvals.byName[kind+name] = r, r
	return nil
}

// saveAttrs returns the attributes of set (the object what) to save,
// or an error naming those that cannot be.
func saveAttrs(set *attrSet, what string) ([]crAttr, error) {
	var out []crAttr
	bad := 0
	var encErr error
	set.Each(func(k *attr.Key, v any) {
		crKeyvals.mu.Lock()
		r := crKeyvals.byKey[k]
		crKeyvals.mu.Unlock()
		if r == nil {
			bad++
			return
		}
		b, err := r.enc(v)
		if err != nil && encErr == nil {
			encErr = fmt.Errorf("checkpoint: %s: the attribute of keyval %q: %w", what, r.name, err)
		}
		out = append(out, crAttr{Keyval: r.name, Value: b})
	})
	switch {
	case bad > 0:
		return nil, fmt.Errorf("checkpoint: %s has %d cached attributes of keyvals that are not restorable, which a checkpoint does not save (make the keyval with a name, NewRestorableKeyval or NewRestorableTypeKeyval; or delete them first and set them again in the restart callback)", what, bad)
	case encErr != nil:
		return nil, encErr
	}
	return out, nil
}

// restoreAttrs sets the saved attributes on obj, whose attributes set
// holds (kind "comm:" or "type:").
func restoreAttrs(set *attrSet, obj any, kind, what string, saved []crAttr) error {
	for _, a := range saved {
		crKeyvals.mu.Lock()
		r := crKeyvals.byName[kind+a.Keyval]
		crKeyvals.mu.Unlock()
		if r == nil {
			return fmt.Errorf("%s had an attribute of the restorable keyval %q, which this program has not made before MPI_Init", what, a.Keyval)
		}
		v, err := r.dec(a.Value)
		if err != nil {
			return fmt.Errorf("%s: the attribute of keyval %q: %w", what, a.Keyval, err)
		}
		if err := set.Put(obj, r.key, v); err != nil {
			return fmt.Errorf("%s: setting the attribute of keyval %q: %w", what, a.Keyval, err)
		}
	}
	return nil
}
