package mpi

import (
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/internal/reduce"
)

// Loc is a value with an index, the element of the MaxLoc and MinLoc
// reductions (MPI's pair types: Loc[float32] is MPI_FLOAT_INT,
// Loc[float64] MPI_DOUBLE_INT, Loc[int32] MPI_2INT, Loc[int16]
// MPI_SHORT_INT, Loc[int64] MPI_LONG_INT).
type Loc[V LocValue] struct {
	Value V
	Index int32
}

// LocValue is the value types of Loc.
type LocValue interface {
	~int16 | ~int32 | ~int64 | ~int | ~float32 | ~float64
}

// CollElem is the element types collective buffers may hold: every Elem,
// and the Loc pairs of MaxLoc and MinLoc.
type CollElem interface {
	Elem | Loc[int16] | Loc[int32] | Loc[int64] | Loc[int] | Loc[float32] | Loc[float64]
}

// Op is a reduction operation (MPI_Op): one of the predefined ones, or a
// function of the program's made with NewOp.
type Op struct {
	name    string
	id      int // 1 + index in predefined; 0 for a user's op
	commute bool
	user    any // func(in, inout []T)
	typ     reflect.Type
	mem     *typeOp // NewTypeOp's op over whole values (datatype_reduce.go)
	mu      sync.Mutex
	freed   bool
}

// The predefined operations. Max and Min apply to integers and floating
// point; Sum and Prod to every numeric type; Land, Lor and Lxor (logical:
// non-zero is true, the result 1 or 0) and Band, Bor and Bxor (bitwise) to
// integers; MaxLoc and MinLoc to Loc pairs (the greatest or least value,
// and the least index among equal values). All are commutative.
var (
	Max    = &Op{name: "MPI_MAX", id: reduce.Max, commute: true}
	Min    = &Op{name: "MPI_MIN", id: reduce.Min, commute: true}
	Sum    = &Op{name: "MPI_SUM", id: reduce.Sum, commute: true}
	Prod   = &Op{name: "MPI_PROD", id: reduce.Prod, commute: true}
	Land   = &Op{name: "MPI_LAND", id: reduce.Land, commute: true}
	Band   = &Op{name: "MPI_BAND", id: reduce.Band, commute: true}
	Lor    = &Op{name: "MPI_LOR", id: reduce.Lor, commute: true}
	Bor    = &Op{name: "MPI_BOR", id: reduce.Bor, commute: true}
	Lxor   = &Op{name: "MPI_LXOR", id: reduce.Lxor, commute: true}
	Bxor   = &Op{name: "MPI_BXOR", id: reduce.Bxor, commute: true}
	MaxLoc = &Op{name: "MPI_MAXLOC", id: reduce.MaxLoc, commute: true}
	MinLoc = &Op{name: "MPI_MINLOC", id: reduce.MinLoc, commute: true}
)

// NewOp makes a reduction from fn (MPI_Op_create), which must set
// inout[i] = in[i] ∘ inout[i] for every i, where in holds the contribution
// of lower ranks. A commutative op may be applied in any order of ranks;
// a non-commutative one is applied in rank order. The op works on slices
// of T only: using it on another element type is an ErrOp error.
func NewOp[T CollElem](fn func(in, inout []T), commutative bool) (*Op, error) {
	if fn == nil {
		return nil, errorf(ErrOp, "NewOp with a nil function")
	}
	return &Op{name: "user op", commute: commutative, user: fn, typ: reflect.TypeFor[T]()}, nil
}

// Free releases a user's op (MPI_Op_free); the predefined ones cannot be
// freed, and an op cannot be freed twice or used after.
func (o *Op) Free() error {
	if o == nil {
		return errorf(ErrOp, "Free of a nil op")
	}
	if o.id != 0 {
		return errorf(ErrOp, "%s is predefined and cannot be freed", o.name)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.freed {
		return errorf(ErrOp, "the op was freed already")
	}
	o.freed = true
	return nil
}

// Commutative reports whether the op is commutative.
func (o *Op) Commutative() bool { return o.commute }

// Name is the op's name (MPI_SUM, …; "user op" for a user's).
func (o *Op) Name() string { return o.name }

// kindOf is the kernels' name for the element type T.
func kindOf[T CollElem]() reduce.Kind {
	var z T
	switch any(z).(type) { // the common types without reflect, then by kind
	case float64:
		return reduce.Float64
	case float32:
		return reduce.Float32
	case int:
		return reduce.Int
	case int32:
		return reduce.Int32
	case int64:
		return reduce.Int64
	case uint8:
		return reduce.Uint8
	case Loc[int16]:
		return reduce.LocInt16
	case Loc[int32]:
		return reduce.LocInt32
	case Loc[int64]:
		return reduce.LocInt64
	case Loc[int]:
		return reduce.LocInt
	case Loc[float32]:
		return reduce.LocFloat32
	case Loc[float64]:
		return reduce.LocFloat64
	}
	switch reflect.TypeFor[T]().Kind() {
	case reflect.Int8:
		return reduce.Int8
	case reflect.Uint8:
		return reduce.Uint8
	case reflect.Int16:
		return reduce.Int16
	case reflect.Uint16:
		return reduce.Uint16
	case reflect.Int32:
		return reduce.Int32
	case reflect.Uint32:
		return reduce.Uint32
	case reflect.Int64:
		return reduce.Int64
	case reflect.Uint64:
		return reduce.Uint64
	case reflect.Int:
		return reduce.Int
	case reflect.Uint:
		return reduce.Uint
	case reflect.Float32:
		return reduce.Float32
	case reflect.Float64:
		return reduce.Float64
	case reflect.Complex64:
		return reduce.Complex64
	case reflect.Complex128:
		return reduce.Complex128
	}
	return reduce.Invalid
}

// collOp turns op, applied to elements of T, into what the coll modules
// use; the second result identifies the element type for the argument
// check.
func collOp[T CollElem](op *Op) (*coll.Op, int, *Error) {
	k := kindOf[T]()
	size := sizeOf[T]()
	if op == nil {
		return nil, int(k), errorf(ErrOp, "nil op")
	}
	if op.id == 0 {
		op.mu.Lock()
		freed := op.freed
		op.mu.Unlock()
		if freed {
			return nil, int(k), errorf(ErrOp, "the op was freed")
		}
		fn, ok := op.user.(func(in, inout []T))
		if !ok {
			return nil, int(k), errorf(ErrOp, "the op was made for %v, not %v", op.typ, reflect.TypeFor[T]())
		}
		return &coll.Op{Size: size, Commutative: op.commute, Apply: func(in, inout []byte) {
			fn(reduce.View[T](in), reduce.View[T](inout))
		}}, int(k), nil
	}
	slot := &predefinedOps[op.id][k]
	if o := slot.Load(); o != nil {
		return o, int(k), nil
	}
	apply, exact := reduce.Kernel(op.id, k)
	if apply == nil {
		return nil, int(k), errorf(ErrOp, "%s is not defined for %v", op.name, reflect.TypeFor[T]())
	}
	slot.CompareAndSwap(nil, &coll.Op{Size: size, Commutative: true, Exact: exact, Apply: apply})
	return slot.Load(), int(k), nil
}

// predefinedOps holds what collOp made of each predefined op for each
// element kind (every type of a kind has its size), so that a reduction
// allocates nothing for its op after the first (the coll modules only
// read a coll.Op).
var predefinedOps [reduce.MinLoc + 1][reduce.LocFloat64 + 1]atomic.Pointer[coll.Op]

func (o *Op) String() string { return fmt.Sprintf("op %s", o.name) }
