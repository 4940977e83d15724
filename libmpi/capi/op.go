package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include <stddef.h>
#include "mpi.h"
typedef long double long_double_t;
struct lamgo_float_int { float v; int i; };
struct lamgo_double_int { double v; int i; };
struct lamgo_long_int { long v; int i; };
struct lamgo_short_int { short v; int i; };
struct lamgo_long_double_int { long double v; int i; };
enum {
	lamgo_long_double_int_off = offsetof(struct lamgo_long_double_int, i),
	lamgo_long_double_int_size = sizeof(struct lamgo_long_double_int),
};
*/
import "C"

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// A cop is what the C layer keeps of an MPI_Op: a predefined op's Go op
// and number, or a user's C function. A user's op becomes one Go op per
// datatype it is used with (the Go API's ops are typed), made on first
// use and kept until MPI_Op_free.
type cop struct {
	op      *mpi.Op // predefined; nil for a user's op
	id      C.MPI_Op
	fn      *C.MPI_User_function
	commute bool

	mu     sync.Mutex                                 // serialises adding to byType
	byType atomic.Pointer[map[C.MPI_Datatype]*mpi.Op] // read without a lock
	freed  bool
}

// The op table, with the predefined ops of mpi.h. MPI_REPLACE and
// MPI_NO_OP are for one-sided accumulates only: every reduction refuses
// them (MPI_ERR_OP).
var ops = func() *table[cop] {
	t := new(table[cop])
	for h, o := range map[C.MPI_Op]*mpi.Op{
		C.MPI_MAX: mpi.Max, C.MPI_MIN: mpi.Min, C.MPI_SUM: mpi.Sum, C.MPI_PROD: mpi.Prod,
		C.MPI_LAND: mpi.Land, C.MPI_BAND: mpi.Band, C.MPI_LOR: mpi.Lor, C.MPI_BOR: mpi.Bor,
		C.MPI_LXOR: mpi.Lxor, C.MPI_BXOR: mpi.Bxor, C.MPI_MAXLOC: mpi.MaxLoc, C.MPI_MINLOC: mpi.MinLoc,
	} {
		t.set(int(h), &cop{op: o, id: h, commute: true})
	}
	t.set(int(C.MPI_REPLACE), &cop{id: C.MPI_REPLACE, commute: true})
	t.set(int(C.MPI_NO_OP), &cop{id: C.MPI_NO_OP, commute: true})
	return t
}()

// The classes of predefined types MPI allows each predefined op on
// (MPI-3 §5.9.2).
type typeClass uint8

const (
	cInteger typeClass = 1 << iota
	fInteger
	floating
	logical
	complexT
	byteT
	pair
)

var opClasses = [C.MPI_NO_OP + 1]typeClass{ // an array: no hashing per call
	C.MPI_MAX: cInteger | fInteger | floating, C.MPI_MIN: cInteger | fInteger | floating,
	C.MPI_SUM: cInteger | fInteger | floating | complexT, C.MPI_PROD: cInteger | fInteger | floating | complexT,
	C.MPI_LAND: cInteger | logical, C.MPI_LOR: cInteger | logical, C.MPI_LXOR: cInteger | logical,
	C.MPI_BAND: cInteger | fInteger | byteT, C.MPI_BOR: cInteger | fInteger | byteT, C.MPI_BXOR: cInteger | fInteger | byteT,
	C.MPI_MAXLOC: pair, C.MPI_MINLOC: pair,
}

// A redType is a predefined datatype as reductions see it: the class of
// ops it allows, the bytes of one element in C memory (a pair type's
// padding included) and the reductions run as its Go element type.
type redType struct {
	class  typeClass
	stride int
	r      reducer
	locOps *[2]*mpi.Op // MAXLOC and MINLOC for the pairs Go has no Loc for
}

// reds is indexed by the predefined datatype handles; nil for a type no
// op applies to (MPI_CHAR, MPI_WCHAR, MPI_PACKED, …).
var reds = func() []*redType {
	r := make([]*redType, C.LAMGO_PREDEFINED_TYPES)
	set := func(class typeClass, hs ...C.MPI_Datatype) {
		for _, h := range hs {
			d := types.get(int(h)).d
			r[h] = &redType{class: class, stride: d.Size(), r: reducerOf(d)}
		}
	}
	set(cInteger, C.MPI_SIGNED_CHAR, C.MPI_UNSIGNED_CHAR, C.MPI_SHORT, C.MPI_UNSIGNED_SHORT,
		C.MPI_INT, C.MPI_UNSIGNED, C.MPI_LONG, C.MPI_UNSIGNED_LONG, C.MPI_LONG_LONG_INT,
		C.MPI_UNSIGNED_LONG_LONG, C.MPI_INT8_T, C.MPI_INT16_T, C.MPI_INT32_T, C.MPI_INT64_T,
		C.MPI_UINT8_T, C.MPI_UINT16_T, C.MPI_UINT32_T, C.MPI_UINT64_T, C.MPI_AINT, C.MPI_OFFSET, C.MPI_COUNT)
	set(fInteger, C.MPI_INTEGER, C.MPI_INTEGER1, C.MPI_INTEGER2, C.MPI_INTEGER4, C.MPI_INTEGER8)
	set(floating, C.MPI_FLOAT, C.MPI_DOUBLE, C.MPI_REAL, C.MPI_DOUBLE_PRECISION, C.MPI_REAL4, C.MPI_REAL8)
	set(logical, C.MPI_LOGICAL, C.MPI_C_BOOL)
	set(complexT, C.MPI_C_FLOAT_COMPLEX, C.MPI_C_DOUBLE_COMPLEX, C.MPI_COMPLEX, C.MPI_DOUBLE_COMPLEX)
	set(byteT, C.MPI_BYTE)
	// Types no predefined op applies to that user ops may still reduce:
	// the element is then only moved, never interpreted, by Go.
	r[C.MPI_CHAR] = &redType{stride: 1, r: typed[uint8]{}}
	r[C.MPI_WCHAR] = &redType{stride: C.sizeof_wchar_t, r: reducerOf(types.get(int(C.MPI_WCHAR)).d)}
	if C.sizeof_long_double_t == 16 {
		r[C.MPI_LONG_DOUBLE] = &redType{stride: 16, r: typed[complex128]{}}
	}
	// The pairs of MAXLOC and MINLOC, laid out as C lays out their
	// structs.
	r[C.MPI_2INT] = &redType{class: pair, stride: 8, r: typed[mpi.Loc[int32]]{}}
	r[C.MPI_2INTEGER] = &redType{class: pair, stride: 8, r: typed[mpi.Loc[int32]]{}}
	r[C.MPI_SHORT_INT] = &redType{class: pair, stride: C.sizeof_struct_lamgo_short_int, r: typed[mpi.Loc[int16]]{}}
	r[C.MPI_FLOAT_INT] = &redType{class: pair, stride: C.sizeof_struct_lamgo_float_int, r: typed[mpi.Loc[float32]]{}}
	r[C.MPI_DOUBLE_INT] = &redType{class: pair, stride: C.sizeof_struct_lamgo_double_int, r: typed[mpi.Loc[float64]]{}}
	if C.sizeof_long == 8 {
		r[C.MPI_LONG_INT] = &redType{class: pair, stride: C.sizeof_struct_lamgo_long_int, r: typed[mpi.Loc[int64]]{}}
	} else {
		r[C.MPI_LONG_INT] = &redType{class: pair, stride: C.sizeof_struct_lamgo_long_int, r: typed[mpi.Loc[int32]]{}}
	}
	r[C.MPI_2REAL] = &redType{class: pair, stride: 8, r: typed[complex64]{}, locOps: &[2]*mpi.Op{
		mustOp(pairLoc[complex64, float32](true)), mustOp(pairLoc[complex64, float32](false))}}
	r[C.MPI_2DOUBLE_PRECISION] = &redType{class: pair, stride: 16, r: typed[complex128]{}, locOps: &[2]*mpi.Op{
		mustOp(pairLoc[complex128, float64](true)), mustOp(pairLoc[complex128, float64](false))}}
	return r
}()

// The pair datatypes in the types table: C's structs (MPI_FLOAT_INT is
// struct {float; int}, 8 bytes; MPI_DOUBLE_INT struct {double; int}, 16
// with its padding) and Fortran's pairs of one type.
func init() {
	str := func(name string, v *mpi.Datatype, off, extent int) *mpi.Datatype {
		d, err := mpi.TypeStruct([]int{1, 1}, []int{0, off}, []*mpi.Datatype{v, mpi.Int32})
		if err == nil && d.Extent() != extent {
			d, err = mpi.TypeCreateResized(d, 0, extent)
		}
		if err != nil {
			panic(err) // cannot happen: the arguments are valid
		}
		_ = d.SetName(name)
		return d
	}
	two := func(name string, v *mpi.Datatype) *mpi.Datatype {
		d, err := mpi.TypeContiguous(2, v)
		if err != nil {
			panic(err) // cannot happen
		}
		_ = d.SetName(name)
		return d
	}
	ld := types.get(int(C.MPI_LONG_DOUBLE)).d
	pairs := map[C.MPI_Datatype]*mpi.Datatype{
		C.MPI_FLOAT_INT:         str("MPI_FLOAT_INT", mpi.Float32, int(unsafe.Offsetof(C.struct_lamgo_float_int{}.i)), C.sizeof_struct_lamgo_float_int),
		C.MPI_DOUBLE_INT:        str("MPI_DOUBLE_INT", mpi.Float64, int(unsafe.Offsetof(C.struct_lamgo_double_int{}.i)), C.sizeof_struct_lamgo_double_int),
		C.MPI_LONG_INT:          str("MPI_LONG_INT", intType(C.sizeof_long, true), int(unsafe.Offsetof(C.struct_lamgo_long_int{}.i)), C.sizeof_struct_lamgo_long_int),
		C.MPI_SHORT_INT:         str("MPI_SHORT_INT", mpi.Int16, int(unsafe.Offsetof(C.struct_lamgo_short_int{}.i)), C.sizeof_struct_lamgo_short_int),
		C.MPI_LONG_DOUBLE_INT:   str("MPI_LONG_DOUBLE_INT", ld, C.lamgo_long_double_int_off, C.lamgo_long_double_int_size),
		C.MPI_2INT:              two("MPI_2INT", mpi.Int32),
		C.MPI_2INTEGER:          two("MPI_2INTEGER", mpi.Int32),
		C.MPI_2REAL:             two("MPI_2REAL", mpi.Float32),
		C.MPI_2DOUBLE_PRECISION: two("MPI_2DOUBLE_PRECISION", mpi.Float64),
	}
	for h, d := range pairs {
		t := &dtype{d: d, size: d.Size(), contig: d.Size() == d.Extent() && d.LB() == 0}
		t.view.Store(d) // what dtype.buffer walks: the data starts at 0
		types.set(int(h), t)
	}
}

func mustOp(o *mpi.Op, err error) *mpi.Op {
	if err != nil {
		panic(err) // cannot happen: the function is not nil
	}
	return o
}

// pairLoc is MAXLOC (max) or MINLOC over Fortran's pairs of one real
// type F (MPI_2REAL, MPI_2DOUBLE_PRECISION: value, then index), held as
// the complex type P of two F since Go has no Loc of them. Ties keep the
// lower index, as MPI says.
func pairLoc[P complex64 | complex128, F float32 | float64](max bool) (*mpi.Op, error) {
	return mpi.NewOp(func(in, inout []P) {
		for i := range min(len(in), len(inout)) {
			a := (*[2]F)(unsafe.Pointer(&in[i]))
			b := (*[2]F)(unsafe.Pointer(&inout[i]))
			switch {
			case a[0] == b[0]:
				b[1] = min(a[1], b[1])
			case (a[0] > b[0]) == max:
				*b = *a
			}
		}
	}, true)
}

// opArg is the op of handle h; an invalid handle raises MPI_ERR_OP
// through c's handler.
func opArg(c *mpi.Comm, h C.MPI_Op, fn string) (*cop, C.int) {
	o := ops.get(int(h))
	if o == nil {
		return nil, fail(c, mpi.ErrOp, fn+": invalid op")
	}
	return o, C.MPI_SUCCESS
}

// goOp is the Go op that applies o to elements of the predefined type
// h (rt its reduction view); an op the type does not allow raises
// MPI_ERR_OP.
func (o *cop) goOp(c *mpi.Comm, h C.MPI_Datatype, rt *redType, fn string) (*mpi.Op, C.int) {
	if o.fn == nil {
		cl := opClasses[o.id]
		if cl&rt.class == 0 {
			return nil, fail(c, mpi.ErrOp, fn+": "+opName(o.id)+" is not defined for "+types.get(int(h)).d.Name())
		}
		if rt.locOps != nil {
			return rt.locOps[o.id-C.MPI_MAXLOC], C.MPI_SUCCESS
		}
		return o.op, C.MPI_SUCCESS
	}
	if m := o.byType.Load(); m != nil {
		if g := (*m)[h]; g != nil {
			return g, C.MPI_SUCCESS
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.freed {
		return nil, fail(c, mpi.ErrOp, fn+": the op was freed")
	}
	old := o.byType.Load()
	if old != nil && (*old)[h] != nil {
		return (*old)[h], C.MPI_SUCCESS
	}
	g, err := rt.r.newOp(o.fn, o.commute, h)
	if err != nil {
		return nil, fail(c, mpi.Class(err), fn+": "+err.Error())
	}
	m := make(map[C.MPI_Datatype]*mpi.Op, 1)
	if old != nil {
		for k, v := range *old {
			m[k] = v
		}
	}
	m[h] = g
	o.byType.Store(&m)
	return g, C.MPI_SUCCESS
}

func opName(h C.MPI_Op) string {
	switch h {
	case C.MPI_REPLACE:
		return "MPI_REPLACE"
	case C.MPI_NO_OP:
		return "MPI_NO_OP"
	}
	if o := ops.get(int(h)); o != nil && o.op != nil {
		return o.op.Name()
	}
	return "the op"
}

//export capi_Op_create
func capi_Op_create(function *C.MPI_User_function, commute C.int, op *C.MPI_Op) C.int {
	if function == nil || op == nil {
		return fail(nil, mpi.ErrArg, "MPI_Op_create: NULL function or op")
	}
	*op = C.MPI_Op(ops.add(&cop{fn: function, commute: commute != 0}))
	return C.MPI_SUCCESS
}

//export capi_Op_free
func capi_Op_free(op *C.MPI_Op) C.int {
	if op == nil {
		return fail(nil, mpi.ErrArg, "MPI_Op_free: NULL op")
	}
	o := ops.get(int(*op))
	switch {
	case o == nil:
		return fail(nil, mpi.ErrOp, "MPI_Op_free: invalid op")
	case o.fn == nil:
		return fail(nil, mpi.ErrOp, "MPI_Op_free: "+opName(*op)+" is predefined and cannot be freed")
	}
	o.mu.Lock()
	o.freed = true
	if m := o.byType.Load(); m != nil {
		for _, g := range *m {
			_ = g.Free() // a collective under way keeps the op it holds
		}
	}
	o.mu.Unlock()
	ops.remove(int(*op))
	*op = C.MPI_OP_NULL
	return C.MPI_SUCCESS
}

//export capi_Op_commutative
func capi_Op_commutative(op C.MPI_Op, commute *C.int) C.int {
	o, rc := opArg(nil, op, "MPI_Op_commutative")
	if o == nil {
		return rc
	}
	if commute == nil {
		return fail(nil, mpi.ErrArg, "MPI_Op_commutative: NULL commute")
	}
	*commute = cBool(o.commute)
	return C.MPI_SUCCESS
}

//export capi_Reduce_local
func capi_Reduce_local(inbuf, inoutbuf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, op C.MPI_Op) C.int {
	const fn = "MPI_Reduce_local"
	red, rc := reductionArgs(nil, datatype, op, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if count < 0 {
		return fail(nil, mpi.ErrCount, fn+": negative count")
	}
	if red.rt == nil { // a derived datatype
		in, rc := red.buf(nil, inbuf, count, false, fn)
		if rc != C.MPI_SUCCESS {
			return rc
		}
		inout, rc := red.buf(nil, inoutbuf, count, false, fn)
		if rc != C.MPI_SUCCESS {
			return rc
		}
		if err := mpi.ReduceLocalType(in, inout, int(count), red.walk, red.op); err != nil {
			return fail(nil, mpi.Class(err), fn+": "+err.Error())
		}
		return C.MPI_SUCCESS
	}
	n := int(count) * red.rt.stride
	if n > 0 && (inbuf == nil || inoutbuf == nil || uintptr(inbuf) == 1 || uintptr(inoutbuf) == 1) {
		return fail(nil, mpi.ErrBuffer, fn+": NULL or MPI_IN_PLACE buffer")
	}
	if err := red.rt.r.local(bytesAt(inbuf, n), bytesAt(inoutbuf, n), red.op); err != nil {
		return fail(nil, mpi.Class(err), fn+": "+err.Error())
	}
	return C.MPI_SUCCESS
}

// A reduction is a reduction's datatype and op as the Go API takes them:
// rt and op for a predefined type (the typed reducers), or walk (a
// derived datatype) and op for the datatype reductions.
type reduction struct {
	rt   *redType
	op   *mpi.Op
	t    *dtype
	walk *mpi.Datatype
}

// reductionArgs checks a reduction's datatype and op.
func reductionArgs(c *mpi.Comm, datatype C.MPI_Datatype, op C.MPI_Op, fn string) (reduction, C.int) {
	t, rc := typeArg(c, datatype, fn)
	if t == nil {
		return reduction{}, rc
	}
	o, rc := opArg(c, op, fn)
	if o == nil {
		return reduction{}, rc
	}
	if datatype >= 0 && datatype < C.LAMGO_PREDEFINED_TYPES {
		if rt := reds[datatype]; rt != nil {
			g, rc := o.goOp(c, datatype, rt, fn)
			return reduction{rt: rt, op: g, t: t}, rc
		}
		if datatype != C.MPI_LONG_DOUBLE_INT || o.fn != nil || opClasses[o.id]&pair == 0 {
			return reduction{}, fail(c, mpi.ErrOp, fn+": "+opName(op)+" is not defined for "+t.d.Name())
		}
		return reduction{}, fail(c, mpi.ErrOp, fn+": MPI_LONG_DOUBLE_INT reductions are not supported (Go has no long double)")
	}
	// A user's datatype: reduced by the Go API's datatype reductions
	// (mpi.ReduceType, …), basic element by basic element with a
	// predefined op, or whole element by whole element with a user's.
	if o.fn != nil {
		g, err := sizedOp(o.fn, o.commute, datatype, t.d.Extent())
		if err != nil {
			return reduction{}, fail(c, mpi.ErrOp, fn+": "+err.Error())
		}
		return reduction{op: g, t: t, walk: t.d}, C.MPI_SUCCESS
	}
	if o.op == nil {
		return reduction{}, fail(c, mpi.ErrOp, fn+": "+opName(op)+" is for accumulates only")
	}
	return reduction{op: o.op, t: t, walk: t.d}, C.MPI_SUCCESS
}
