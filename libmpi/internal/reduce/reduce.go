// Package reduce holds the kernels of MPI's predefined reduction
// operations: typed loops over byte buffers, chosen by operation and
// element kind.
package reduce

import "unsafe"

// The predefined operations, as the mpi package numbers them (0 is a
// user's op).
const (
	Max = iota + 1
	Min
	Sum
	Prod
	Land
	Band
	Lor
	Bor
	Lxor
	Bxor
	MaxLoc
	MinLoc
)

// Loc is the layout of MPI's value-and-index pairs (the mpi package's
// Loc has the same).
type Loc[V LocValue] struct {
	Value V
	Index int32
}

// LocValue is the value types of Loc.
type LocValue interface {
	~int16 | ~int32 | ~int64 | ~int | ~float32 | ~float64
}

// Kind classifies element types for the predefined ops.
type Kind int

const (
	Invalid Kind = iota
	Int8
	Uint8
	Int16
	Uint16
	Int32
	Uint32
	Int64
	Uint64
	Int
	Uint
	Float32
	Float64
	Complex64
	Complex128
	LocInt16
	LocInt32
	LocInt64
	LocInt
	LocFloat32
	LocFloat64
)

// operands views a kernel's in and inout as elements, in cut to inout's
// length so that the kernel's loop checks bounds once.
func operands[T any](in, inout []byte) (a, b []T) {
	a, b = View[T](in), View[T](inout)
	return a[:len(b)], b
}

// View is the typed slice over bytes that hold whole elements.
func View[T any](b []byte) []T {
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

// Fn is a kernel: inout[i] = in[i] op inout[i], over whole elements.
type Fn = func(in, inout []byte)

// Kernel returns the predefined op's function for elements of kind k (nil
// if the op does not apply), and whether it is exact (the same bits
// however the reduction is grouped).
func Kernel(id int, k Kind) (Fn, bool) {
	fn, exact := kernel(id, k)
	if add := vectorSum(k); id == Sum && fn != nil && add != nil {
		fn = withVector(add, fn)
	}
	return fn, exact
}

// withVector is a kernel that runs add (a vector loop) over inout's
// whole 64-byte blocks and scalar over the rest. 64 is a multiple of
// every element's size, so the blocks hold whole elements.
func withVector(add func(in, inout *byte, n int), scalar Fn) Fn {
	return func(in, inout []byte) {
		if n := len(inout) &^ 63; n > 0 {
			_ = in[n-1] // a short in panics here, as the scalar loop's would
			add(&in[0], &inout[0], n)
			in, inout = in[n:], inout[n:]
		}
		scalar(in, inout)
	}
}

func kernel(id int, k Kind) (Fn, bool) {
	switch k {
	case Int8:
		return intKernel[int8](id), true
	case Uint8:
		return intKernel[uint8](id), true
	case Int16:
		return intKernel[int16](id), true
	case Uint16:
		return intKernel[uint16](id), true
	case Int32:
		return intKernel[int32](id), true
	case Uint32:
		return intKernel[uint32](id), true
	case Int64:
		return intKernel[int64](id), true
	case Uint64:
		return intKernel[uint64](id), true
	case Int:
		return intKernel[int](id), true
	case Uint:
		return intKernel[uint](id), true
	case Float32:
		return floatKernel[float32](id)
	case Float64:
		return floatKernel[float64](id)
	case Complex64:
		return complexKernel[complex64](id), false
	case Complex128:
		return complexKernel[complex128](id), false
	case LocInt16:
		return locKernel[int16](id), true
	case LocInt32:
		return locKernel[int32](id), true
	case LocInt64:
		return locKernel[int64](id), true
	case LocInt:
		return locKernel[int](id), true
	case LocFloat32:
		return locKernel[float32](id), true
	case LocFloat64:
		return locKernel[float64](id), true
	}
	return nil, false
}

func intKernel[T integer](id int) Fn {
	switch id {
	case Max:
		return maxK[T]
	case Min:
		return minK[T]
	case Sum:
		return sumK[T]
	case Prod:
		return prodK[T]
	case Land:
		return landK[T]
	case Lor:
		return lorK[T]
	case Lxor:
		return lxorK[T]
	case Band:
		return bandK[T]
	case Bor:
		return borK[T]
	case Bxor:
		return bxorK[T]
	}
	return nil
}

func floatKernel[T float](id int) (Fn, bool) {
	switch id {
	case Max:
		return maxK[T], true
	case Min:
		return minK[T], true
	case Sum:
		return sumK[T], false
	case Prod:
		return prodK[T], false
	}
	return nil, false
}

func complexKernel[T ~complex64 | ~complex128](id int) Fn {
	switch id {
	case Sum:
		return sumK[T]
	case Prod:
		return prodK[T]
	}
	return nil
}

func locKernel[V LocValue](id int) Fn {
	switch id {
	case MaxLoc:
		return maxLocK[V]
	case MinLoc:
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
