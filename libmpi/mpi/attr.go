package mpi

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/lamgo/lam/libmpi/internal/attr"
)

// Attributes (MPI-2 §6.7 "Caching") let a program or a library cache data
// on a communicator or a datatype under a key, a keyval. A key is typed:
// a Keyval[T] holds values of type T, so no casts are needed. The calls
// map one-to-one onto MPI's:
//
//	MPI_Comm_create_keyval(copy, del, &k, extra)  k := NewKeyval[T](copy, del)
//	MPI_Comm_set_attr(c, k, v)                    SetAttr(c, k, v)
//	MPI_Comm_get_attr(c, k, &v, &flag)            v, flag, err := GetAttr(c, k)
//	MPI_Comm_delete_attr(c, k)                    DeleteAttr(c, k)
//	MPI_Comm_free_keyval(&k)                      k.Free()
//	MPI_COMM_NULL_COPY_FN / MPI_COMM_DUP_FN       a nil copy / CommDupFn[T]
//	MPI_COMM_NULL_DELETE_FN                       a nil del
//
// and for datatypes NewTypeKeyval, SetTypeAttr, GetTypeAttr,
// DeleteTypeAttr and (*TypeKeyval[T]).Free map MPI_Type_create_keyval,
// MPI_Type_set_attr, MPI_Type_get_attr, MPI_Type_delete_attr and
// MPI_Type_free_keyval. MPI-1's MPI_Keyval_create, MPI_Attr_put,
// MPI_Attr_get, MPI_Attr_delete and MPI_Keyval_free are the communicator
// calls under older names. The extra_state argument of the C calls is
// what a Go closure captures.
//
// The callbacks run as MPI orders them. (*Comm).Dup runs the copy callback
// of every attribute of the old communicator in the order the keyvals were
// created, and the new communicator gets a value only when the callback
// returns keep=true; a callback error makes Dup fail (the attributes
// already copied are deleted again and the new communicator freed).
// (*Comm).Free runs the delete callbacks, in the reverse order the
// attributes were set, before the communicator goes; SetAttr over a value
// already set runs the delete callback on the old value; DeleteAttr runs
// it on the value it removes. A delete callback that returns an error
// stops the call, which returns that error (with its MPI class if it is an
// *Error, MPI_ERR_OTHER otherwise): the attribute stays set, and a Free
// that failed leaves the communicator usable. Finalize deletes Self's
// attributes first of all, as MPI-2.2 says, so a library can hook the end
// of MPI there.
//
// A freed keyval cannot set or get any more (MPI_ERR_KEYVAL), but the
// values already set under it keep their callbacks until deleted.

// attrSet is the attributes an object holds (a field of Comm and Datatype).
type attrSet = attr.Set

// Keyval is a key for attributes of type T on communicators
// (MPI_Comm_create_keyval's keyval).
type Keyval[T any] struct{ k *attr.Key }

// NewKeyval makes a keyval for communicator attributes
// (MPI_Comm_create_keyval). copy runs when a communicator holding the
// attribute is duplicated: it returns the value for the duplicate and
// whether the duplicate gets it; nil never copies (MPI_COMM_NULL_COPY_FN,
// and CommDupFn[T] is MPI_COMM_DUP_FN). del runs on a value leaving a
// communicator; nil does nothing (MPI_COMM_NULL_DELETE_FN).
func NewKeyval[T any](copy func(oldComm *Comm, v T) (T, bool, error), del func(c *Comm, v T) error) *Keyval[T] {
	return &Keyval[T]{attr.NewKey(eraseCopy(copy), eraseDelete(del))}
}

// CommDupFn is MPI_COMM_DUP_FN: it copies the value as it is.
func CommDupFn[T any](_ *Comm, v T) (T, bool, error) { return v, true, nil }

// Free frees the keyval (MPI_Comm_free_keyval). Predefined keyvals cannot
// be freed.
func (k *Keyval[T]) Free() error {
	if k == nil || k.k == nil {
		return errorf(ErrKeyval, "nil keyval")
	}
	return keyvalError(k.k.Free())
}

// SetAttr sets the attribute k of c to v (MPI_Comm_set_attr), after
// running the delete callback on the value it replaces.
func SetAttr[T any](c *Comm, k *Keyval[T], v T) error {
	if err := c.check(); err != nil {
		return World.fail(err)
	}
	if k == nil || k.k == nil {
		return c.fail(errorf(ErrKeyval, "nil keyval"))
	}
	if err := c.attrs.Put(c, k.k, v); err != nil {
		return c.fail(callbackError(err, "set attribute on %s", c.name))
	}
	return nil
}

// GetAttr returns the attribute k of c and whether c has it
// (MPI_Comm_get_attr). The predefined attributes are on World only.
func GetAttr[T any](c *Comm, k *Keyval[T]) (T, bool, error) {
	var zero T
	if err := c.check(); err != nil {
		return zero, false, World.fail(err)
	}
	if k == nil || k.k == nil {
		return zero, false, c.fail(errorf(ErrKeyval, "nil keyval"))
	}
	if err := k.k.Usable(); err != nil {
		return zero, false, c.fail(keyvalError(err))
	}
	if k.k.Predefined() {
		if c != World {
			return zero, false, nil
		}
		v, err := predefinedValue(k.k)
		if err != nil {
			return zero, false, c.fail(err)
		}
		t, ok := v.(T)
		return t, ok, nil
	}
	v, ok := c.attrs.Get(k.k)
	if !ok {
		return zero, false, nil
	}
	return v.(T), true, nil
}

// DeleteAttr deletes the attribute k of c, running its delete callback
// (MPI_Comm_delete_attr). Deleting an attribute that is not set does
// nothing.
func DeleteAttr[T any](c *Comm, k *Keyval[T]) error {
	if err := c.check(); err != nil {
		return World.fail(err)
	}
	if k == nil || k.k == nil {
		return c.fail(errorf(ErrKeyval, "nil keyval"))
	}
	if err := c.attrs.Delete(c, k.k); err != nil {
		return c.fail(callbackError(err, "delete attribute of %s", c.name))
	}
	return nil
}

// dupAttrs gives n, just duplicated from c, the attributes c's copy
// callbacks keep (Dup's hook). On a callback error n is freed.
func (c *Comm) dupAttrs(n *Comm, err error) (*Comm, error) {
	if err != nil || n == nil {
		return n, err
	}
	if err := c.attrs.CopyTo(c, &n.attrs); err != nil {
		n.attrs.DeleteAll(n) // the copies made so far; the first error is the one to report
		n.release()
		n.ready = false
		st.comms.Drop(n.context)
		return nil, c.fail(callbackError(err, "Dup of %s: copy callback", c.name))
	}
	return n, nil
}

// deleteAttrs deletes every attribute of c (Free's hook).
func (c *Comm) deleteAttrs() error {
	if err := c.attrs.DeleteAll(c); err != nil {
		return callbackError(err, "Free of %s: delete callback", c.name)
	}
	return nil
}

// finalizeSelf deletes Self's attributes, first thing in Finalize.
func finalizeSelf() error {
	if !Self.ready {
		return nil
	}
	if err := Self.attrs.DeleteAll(Self); err != nil {
		return callbackError(err, "Finalize: delete callback of an attribute of %s", Self.name)
	}
	return nil
}

// TypeKeyval is a key for attributes of type T on datatypes
// (MPI_Type_create_keyval's keyval).
type TypeKeyval[T any] struct{ k *attr.Key }

// NewTypeKeyval makes a keyval for datatype attributes
// (MPI_Type_create_keyval); copy and del are as for NewKeyval
// (TypeDupFn[T] is MPI_TYPE_DUP_FN).
func NewTypeKeyval[T any](copy func(oldType *Datatype, v T) (T, bool, error), del func(d *Datatype, v T) error) *TypeKeyval[T] {
	return &TypeKeyval[T]{attr.NewKey(eraseCopy(copy), eraseDelete(del))}
}

// TypeDupFn is MPI_TYPE_DUP_FN: it copies the value as it is.
func TypeDupFn[T any](_ *Datatype, v T) (T, bool, error) { return v, true, nil }

// Free frees the keyval (MPI_Type_free_keyval).
func (k *TypeKeyval[T]) Free() error {
	if k == nil || k.k == nil {
		return errorf(ErrKeyval, "nil keyval")
	}
	return keyvalError(k.k.Free())
}

// SetTypeAttr sets the attribute k of d to v (MPI_Type_set_attr).
func SetTypeAttr[T any](d *Datatype, k *TypeKeyval[T], v T) error {
	if err := typeAttrArgs(d, k); err != nil {
		return err
	}
	return callbackError(d.attrs.Put(d, k.k, v), "set attribute on %s", d.name)
}

// GetTypeAttr returns the attribute k of d and whether d has it
// (MPI_Type_get_attr).
func GetTypeAttr[T any](d *Datatype, k *TypeKeyval[T]) (T, bool, error) {
	var zero T
	if err := typeAttrArgs(d, k); err != nil {
		return zero, false, err
	}
	if err := k.k.Usable(); err != nil {
		return zero, false, keyvalError(err)
	}
	v, ok := d.attrs.Get(k.k)
	if !ok {
		return zero, false, nil
	}
	return v.(T), true, nil
}

// DeleteTypeAttr deletes the attribute k of d (MPI_Type_delete_attr).
func DeleteTypeAttr[T any](d *Datatype, k *TypeKeyval[T]) error {
	if err := typeAttrArgs(d, k); err != nil {
		return err
	}
	return callbackError(d.attrs.Delete(d, k.k), "delete attribute of %s", d.name)
}

func typeAttrArgs[T any](d *Datatype, k *TypeKeyval[T]) error {
	if d == nil {
		return errorf(ErrType, "nil datatype")
	}
	if k == nil || k.k == nil {
		return errorf(ErrKeyval, "nil keyval")
	}
	return nil
}

// dupTypeAttrs gives n, a duplicate of d, the attributes d's copy
// callbacks keep: TypeDup's hook (MPI_Type_dup copies attributes as
// MPI_Comm_dup does). On an error the copies are deleted again.
func (d *Datatype) dupTypeAttrs(n *Datatype) error {
	if err := d.attrs.CopyTo(d, &n.attrs); err != nil {
		n.attrs.DeleteAll(n)
		return callbackError(err, "TypeDup of %s: copy callback", d.name)
	}
	return nil
}

// deleteTypeAttrs deletes every attribute of d: the hook for the moment a
// datatype is freed (MPI_Type_free).
func (d *Datatype) deleteTypeAttrs() error {
	return callbackError(d.attrs.DeleteAll(d), "Free of %s: delete callback", d.name)
}

func eraseCopy[O, T any](copy func(O, T) (T, bool, error)) attr.CopyFunc {
	if copy == nil {
		return nil
	}
	return func(old, v any) (any, bool, error) { return copy(old.(O), v.(T)) }
}

func eraseDelete[O, T any](del func(O, T) error) attr.DeleteFunc {
	if del == nil {
		return nil
	}
	return func(obj, v any) error { return del(obj.(O), v.(T)) }
}

// keyvalError gives the errors of misuse of a keyval their class.
func keyvalError(err error) error {
	if err == nil {
		return nil
	}
	return errorf(ErrKeyval, "%w", err)
}

// callbackError gives a callback's error an MPI class: its own if it is an
// *Error, MPI_ERR_OTHER otherwise.
func callbackError(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, attr.ErrFreed) || errors.Is(err, attr.ErrPredefined) {
		return keyvalError(err)
	}
	return errorf(classOf(err), format+": %w", append(args, err)...)
}

// The predefined attributes, set on World (MPI-1 §7.1.1, MPI-2 §5.5.1,
// §8.1.2). Each is a keyval whose value GetAttr(World, key) returns; they
// cannot be set, deleted or freed.
var (
	// KeyTagUB is MPI_TAG_UB: the largest tag (TagUB).
	KeyTagUB = &Keyval[int]{attr.NewPredefined()}
	// KeyHost is MPI_HOST: the rank of the host process, ProcNull as in
	// LAM (there is none).
	KeyHost = &Keyval[int]{attr.NewPredefined()}
	// KeyIO is MPI_IO: a rank that can do I/O; AnySource, since every
	// process can.
	KeyIO = &Keyval[int]{attr.NewPredefined()}
	// KeyWtimeIsGlobal is MPI_WTIME_IS_GLOBAL: false, every process's
	// Wtime counts from its own start.
	KeyWtimeIsGlobal = &Keyval[bool]{attr.NewPredefined()}
	// KeyAppNum is MPI_APPNUM: the index of this process's line in its
	// job's application schema (0 for a job of one command line), as
	// mpirun tells it. It is not set for a process started alone.
	KeyAppNum = &Keyval[int]{attr.NewPredefined()}
	// KeyUniverseSize is MPI_UNIVERSE_SIZE: the number of CPUs in the LAM
	// universe (the sum of lamnodes' CPU counts; World's size for a
	// process started alone), as LAM sets it.
	KeyUniverseSize = &Keyval[int]{attr.NewPredefined()}
	// KeyLastUsedCode is MPI_LASTUSEDCODE: the largest error code in use.
	KeyLastUsedCode = &Keyval[int]{attr.NewPredefined()}
)

var universe struct {
	sync.Mutex
	size int // 0: not asked yet
}

// predefinedValue is the value of a predefined attribute of World, or nil
// for one that is not set.
func predefinedValue(k *attr.Key) (any, error) {
	switch k {
	case KeyTagUB.k:
		return int(TagUB), nil
	case KeyHost.k:
		return int(ProcNull), nil
	case KeyIO.k:
		return int(AnySource), nil
	case KeyWtimeIsGlobal.k:
		return false, nil
	case KeyLastUsedCode.k:
		return int(LastUsedCode()), nil
	case KeyUniverseSize.k:
		return universeSize()
	case KeyAppNum.k:
		if st.proc.AppNum < 0 {
			return nil, nil
		}
		return st.proc.AppNum, nil
	}
	return nil, nil
}

// universeSize asks the lamds once for the universe's CPU count.
func universeSize() (any, error) {
	universe.Lock()
	defer universe.Unlock()
	if universe.size == 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		n, err := st.proc.UniverseSize(ctx)
		if err != nil {
			return nil, errorf(classOf(err), "MPI_UNIVERSE_SIZE: %w", err)
		}
		universe.size = n
	}
	return universe.size, nil
}
