package mpi

import (
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"github.com/lamgo/lam/libmpi/coll"
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
	mu      sync.Mutex
	freed   bool
}

// The predefined operations. Max and Min apply to integers and floating
// point; Sum and Prod to every numeric type; Land, Lor and Lxor (logical:
// non-zero is true, the result 1 or 0) and Band, Bor and Bxor (bitwise) to
// integers; MaxLoc and MinLoc to Loc pairs (the greatest or least value,
// and the least index among equal values). All are commutative.
var (
	Max    = &Op{name: "MPI_MAX", id: 1, commute: true}
	Min    = &Op{name: "MPI_MIN", id: 2, commute: true}
	Sum    = &Op{name: "MPI_SUM", id: 3, commute: true}
	Prod   = &Op{name: "MPI_PROD", id: 4, commute: true}
	Land   = &Op{name: "MPI_LAND", id: 5, commute: true}
	Band   = &Op{name: "MPI_BAND", id: 6, commute: true}
	Lor    = &Op{name: "MPI_LOR", id: 7, commute: true}
	Bor    = &Op{name: "MPI_BOR", id: 8, commute: true}
	Lxor   = &Op{name: "MPI_LXOR", id: 9, commute: true}
	Bxor   = &Op{name: "MPI_BXOR", id: 10, commute: true}
	MaxLoc = &Op{name: "MPI_MAXLOC", id: 11, commute: true}
	MinLoc = &Op{name: "MPI_MINLOC", id: 12, commute: true}
)

const (
	opMax = iota + 1
	opMin
	opSum
	opProd
	opLand
	opBand
	opLor
	opBor
	opLxor
	opBxor
	opMaxLoc
	opMinLoc
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

// elemKind classifies element types for the predefined ops.
type elemKind int

const (
	kInvalid elemKind = iota
	kInt8
	kUint8
	kInt16
	kUint16
	kInt32
	kUint32
	kInt64
	kUint64
	kInt
	kUint
	kFloat32
	kFloat64
	kComplex64
	kComplex128
	kLocInt16
	kLocInt32
	kLocInt64
	kLocInt
	kLocFloat32
	kLocFloat64
)

func kindOf[T CollElem]() elemKind {
	var z T
	switch any(z).(type) {
	case Loc[int16]:
		return kLocInt16
	case Loc[int32]:
		return kLocInt32
	case Loc[int64]:
		return kLocInt64
	case Loc[int]:
		return kLocInt
	case Loc[float32]:
		return kLocFloat32
	case Loc[float64]:
		return kLocFloat64
	}
	switch reflect.TypeFor[T]().Kind() {
	case reflect.Int8:
		return kInt8
	case reflect.Uint8:
		return kUint8
	case reflect.Int16:
		return kInt16
	case reflect.Uint16:
		return kUint16
	case reflect.Int32:
		return kInt32
	case reflect.Uint32:
		return kUint32
	case reflect.Int64:
		return kInt64
	case reflect.Uint64:
		return kUint64
	case reflect.Int:
		return kInt
	case reflect.Uint:
		return kUint
	case reflect.Float32:
		return kFloat32
	case reflect.Float64:
		return kFloat64
	case reflect.Complex64:
		return kComplex64
	case reflect.Complex128:
		return kComplex128
	}
	return kInvalid
}

// collOp turns op, applied to elements of T, into what the coll modules
// use; the second result identifies the element type for the argument
// check.
func collOp[T CollElem](op *Op) (*coll.Op, int, *Error) {
	k := kindOf[T]()
	size := int(unsafe.Sizeof(*new(T)))
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
			fn(view[T](in), view[T](inout))
		}}, int(k), nil
	}
	apply, exact := kernel(op.id, k)
	if apply == nil {
		return nil, int(k), errorf(ErrOp, "%s is not defined for %v", op.name, reflect.TypeFor[T]())
	}
	return &coll.Op{Size: size, Commutative: true, Exact: exact, Apply: apply}, int(k), nil
}

// view is the typed slice over bytes that hold whole elements.
// operands views a kernel's in and inout as elements, in cut to inout's
// length so that the kernel's loop checks bounds once.
func operands[T any](in, inout []byte) (a, b []T) {
	a, b = view[T](in), view[T](inout)
	return a[:len(b)], b
}

func view[T any](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

type integer interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~int | ~uint
}

type float interface{ ~float32 | ~float64 }

type number interface {
	integer | float | ~complex64 | ~complex128
}

type ordered interface{ integer | float }

type kernelFn = func(in, inout []byte)

// kernel returns the predefined op's function for elements of kind k (nil
// if the op does not apply), and whether it is exact (the same bits
// however the reduction is grouped).
func kernel(id int, k elemKind) (kernelFn, bool) {
	switch k {
	case kInt8:
		return intKernel[int8](id), true
	case kUint8:
		return intKernel[uint8](id), true
	case kInt16:
		return intKernel[int16](id), true
	case kUint16:
		return intKernel[uint16](id), true
	case kInt32:
		return intKernel[int32](id), true
	case kUint32:
		return intKernel[uint32](id), true
	case kInt64:
		return intKernel[int64](id), true
	case kUint64:
		return intKernel[uint64](id), true
	case kInt:
		return intKernel[int](id), true
	case kUint:
		return intKernel[uint](id), true
	case kFloat32:
		return floatKernel[float32](id)
	case kFloat64:
		return floatKernel[float64](id)
	case kComplex64:
		return complexKernel[complex64](id), false
	case kComplex128:
		return complexKernel[complex128](id), false
	case kLocInt16:
		return locKernel[int16](id), true
	case kLocInt32:
		return locKernel[int32](id), true
	case kLocInt64:
		return locKernel[int64](id), true
	case kLocInt:
		return locKernel[int](id), true
	case kLocFloat32:
		return locKernel[float32](id), true
	case kLocFloat64:
		return locKernel[float64](id), true
	}
	return nil, false
}

func intKernel[T integer](id int) kernelFn {
	switch id {
	case opMax:
		return maxK[T]
	case opMin:
		return minK[T]
	case opSum:
		return sumK[T]
	case opProd:
		return prodK[T]
	case opLand:
		return landK[T]
	case opLor:
		return lorK[T]
	case opLxor:
		return lxorK[T]
	case opBand:
		return bandK[T]
	case opBor:
		return borK[T]
	case opBxor:
		return bxorK[T]
	}
	return nil
}

func floatKernel[T float](id int) (kernelFn, bool) {
	switch id {
	case opMax:
		return maxK[T], true
	case opMin:
		return minK[T], true
	case opSum:
		return sumK[T], false
	case opProd:
		return prodK[T], false
	}
	return nil, false
}

func complexKernel[T ~complex64 | ~complex128](id int) kernelFn {
	switch id {
	case opSum:
		return sumK[T]
	case opProd:
		return prodK[T]
	}
	return nil
}

func locKernel[V LocValue](id int) kernelFn {
	switch id {
	case opMaxLoc:
		return maxLocK[V]
	case opMinLoc:
		return minLocK[V]
	}
	return nil
}

func sumK[T number](in, inout []byte) {
	a, b := operands[T](in, inout)
	for len(b) >= 8 { // unrolled: the common reduction of large arrays
		x, y := a[:8:8], b[:8:8]
		y[0], y[1], y[2], y[3] = x[0]+y[0], x[1]+y[1], x[2]+y[2], x[3]+y[3]
		y[4], y[5], y[6], y[7] = x[4]+y[4], x[5]+y[5], x[6]+y[6], x[7]+y[7]
		a, b = a[8:], b[8:]
	}
	for i := range b {
		b[i] = a[i] + b[i]
	}
}

func prodK[T number](in, inout []byte) {
	a, b := operands[T](in, inout)
	for i := range b {
		b[i] = a[i] * b[i]
	}
}

func maxK[T ordered](in, inout []byte) {
	a, b := operands[T](in, inout)
	for i := range b {
		b[i] = max(a[i], b[i])
	}
}

func minK[T ordered](in, inout []byte) {
	a, b := operands[T](in, inout)
	for i := range b {
		b[i] = min(a[i], b[i])
	}
}

func truth[T integer](x bool) T {
	if x {
		return 1
	}
	return 0
}

func landK[T integer](in, inout []byte) {
	a, b := operands[T](in, inout)
	for i := range b {
		b[i] = truth[T](a[i] != 0 && b[i] != 0)
	}
}

func lorK[T integer](in, inout []byte) {
	a, b := operands[T](in, inout)
	for i := range b {
		b[i] = truth[T](a[i] != 0 || b[i] != 0)
	}
}

func lxorK[T integer](in, inout []byte) {
	a, b := operands[T](in, inout)
	for i := range b {
		b[i] = truth[T]((a[i] != 0) != (b[i] != 0))
	}
}

func bandK[T integer](in, inout []byte) {
	a, b := operands[T](in, inout)
	for i := range b {
		b[i] = a[i] & b[i]
	}
}

func borK[T integer](in, inout []byte) {
	a, b := operands[T](in, inout)
	for i := range b {
		b[i] = a[i] | b[i]
	}
}

func bxorK[T integer](in, inout []byte) {
	a, b := operands[T](in, inout)
	for i := range b {
		b[i] = a[i] ^ b[i]
	}
}

func maxLocK[V LocValue](in, inout []byte) {
	a, b := operands[Loc[V]](in, inout)
	for i := range b {
		switch {
		case a[i].Value > b[i].Value:
			b[i] = a[i]
		case a[i].Value == b[i].Value:
			b[i].Index = min(a[i].Index, b[i].Index)
		}
	}
}

func minLocK[V LocValue](in, inout []byte) {
	a, b := operands[Loc[V]](in, inout)
	for i := range b {
		switch {
		case a[i].Value < b[i].Value:
			b[i] = a[i]
		case a[i].Value == b[i].Value:
			b[i].Index = min(a[i].Index, b[i].Index)
		}
	}
}

func (o *Op) String() string { return fmt.Sprintf("op %s", o.name) }
