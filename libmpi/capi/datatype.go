package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include <wchar.h>
#include <stdbool.h>
#include <stdalign.h>
typedef long double long_double_t;
enum { lamgo_alignof_long_double = alignof(long double) };
#include "mpi.h"
*/
import "C"

import (
	"fmt"
	"math"
	"sync/atomic"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// A dtype is what the C layer keeps of a datatype: the Go datatype and
// whether count elements are one block of count*size bytes from the
// buffer's address (then messages move as bytes, with no datatype walk).
//
// A derived type (made by a constructor) also keeps the C handles it was
// made from (for MPI_Type_get_contents), whether it was committed, and,
// once committed, its view: the Go datatype shifted so that its data
// starts at displacement 0, which dtype.buffer walks.
type dtype struct {
	d      *mpi.Datatype
	size   int  // bytes of data in one element
	contig bool // extent == size and lb == 0, the data one block

	derived   bool
	owner     bool   // Type_free frees d (false for Type_get_contents's copies)
	parts     []part // the types it was made from
	committed atomic.Bool
	view      atomic.Pointer[mpi.Datatype]
}

// A part is a type a derived type was made from: its handle if it is
// predefined (handles of derived types may be freed and reused), and its
// entry.
type part struct {
	h C.MPI_Datatype
	t *dtype
}

// The datatype table, with the predefined C and Fortran types of mpi.h.
var types = func() *table[dtype] {
	t := new(table[dtype])
	opaque := func(name string, n, align int) *mpi.Datatype { // a type Go has no name for
		d, err := mpi.TypeOpaque(name, n, align)
		if err != nil {
			panic(err) // cannot happen: n > 0 and align is a power of 2
		}
		return d
	}
	basic := map[C.MPI_Datatype]*mpi.Datatype{
		C.MPI_CHAR: mpi.Char, C.MPI_SIGNED_CHAR: mpi.Int8, C.MPI_UNSIGNED_CHAR: mpi.Uint8,
		C.MPI_BYTE: mpi.Byte, C.MPI_SHORT: mpi.Int16, C.MPI_UNSIGNED_SHORT: mpi.Uint16,
		C.MPI_INT: mpi.Int32, C.MPI_UNSIGNED: mpi.Uint32,
		C.MPI_LONG: intType(C.sizeof_long, true), C.MPI_UNSIGNED_LONG: intType(C.sizeof_long, false),
		C.MPI_LONG_LONG_INT: mpi.Int64, C.MPI_UNSIGNED_LONG_LONG: mpi.Uint64,
		C.MPI_FLOAT: mpi.Float32, C.MPI_DOUBLE: mpi.Float64,
		C.MPI_LONG_DOUBLE: opaque("MPI_LONG_DOUBLE", C.sizeof_long_double_t, int(C.lamgo_alignof_long_double)),
		C.MPI_WCHAR:       intType(C.sizeof_wchar_t, true),
		C.MPI_PACKED:      mpi.Byte,
		C.MPI_C_BOOL:      mpi.Bool,
		C.MPI_INT8_T:      mpi.Int8, C.MPI_INT16_T: mpi.Int16, C.MPI_INT32_T: mpi.Int32, C.MPI_INT64_T: mpi.Int64,
		C.MPI_UINT8_T: mpi.Uint8, C.MPI_UINT16_T: mpi.Uint16, C.MPI_UINT32_T: mpi.Uint32, C.MPI_UINT64_T: mpi.Uint64,
		C.MPI_C_FLOAT_COMPLEX: mpi.Complex64, C.MPI_C_DOUBLE_COMPLEX: mpi.Complex128,
		C.MPI_AINT: intType(C.sizeof_MPI_Aint, true), C.MPI_OFFSET: mpi.Int64, C.MPI_COUNT: mpi.Int64,
		// Fortran 77, as gfortran lays them out.
		C.MPI_CHARACTER: mpi.Char, C.MPI_LOGICAL: mpi.Int32, C.MPI_INTEGER: mpi.Int32,
		C.MPI_REAL: mpi.Float32, C.MPI_DOUBLE_PRECISION: mpi.Float64,
		C.MPI_COMPLEX: mpi.Complex64, C.MPI_DOUBLE_COMPLEX: mpi.Complex128,
		C.MPI_INTEGER1: mpi.Int8, C.MPI_INTEGER2: mpi.Int16, C.MPI_INTEGER4: mpi.Int32, C.MPI_INTEGER8: mpi.Int64,
		C.MPI_REAL4: mpi.Float32, C.MPI_REAL8: mpi.Float64,
	}
	for h, d := range basic {
		t.set(int(h), &dtype{d: d, size: d.Size(), contig: true})
	}
	// The MPI-1 bound markers, for MPI_Type_struct: no data.
	t.set(int(C.MPI_LB), &dtype{d: mpi.LB, contig: true})
	t.set(int(C.MPI_UB), &dtype{d: mpi.UB, contig: true})
	// Handles below LAMGO_PREDEFINED_TYPES are never given out, even
	// those (the pair types) set up elsewhere.
	t.set(C.LAMGO_PREDEFINED_TYPES-1, t.get(C.LAMGO_PREDEFINED_TYPES-1)) // keeps MPI_REAL8
	return t
}()

// intType is the Go datatype of a C integer type of n bytes.
func intType(n int, signed bool) *mpi.Datatype {
	switch {
	case n == 2 && signed:
		return mpi.Int16
	case n == 2:
		return mpi.Uint16
	case n == 4 && signed:
		return mpi.Int32
	case n == 4:
		return mpi.Uint32
	case signed:
		return mpi.Int64
	}
	return mpi.Uint64
}

// typeArg is the datatype of handle h; an invalid handle raises
// MPI_ERR_TYPE through c's handler.
func typeArg(c *mpi.Comm, h C.MPI_Datatype, fn string) (*dtype, C.int) {
	t := types.get(int(h))
	if t == nil {
		return nil, fail(c, mpi.ErrType, fn+": invalid datatype")
	}
	return t, C.MPI_SUCCESS
}

//export capi_Type_size
func capi_Type_size(datatype C.MPI_Datatype, size *C.int) C.int {
	t, rc := typeArg(nil, datatype, "MPI_Type_size")
	if t == nil {
		return rc
	}
	if size == nil {
		return fail(nil, mpi.ErrArg, "MPI_Type_size: NULL size")
	}
	*size = C.int(t.size)
	if t.size > math.MaxInt32 {
		*size = C.MPI_UNDEFINED // MPI-3: use MPI_Type_size_x
	}
	return C.MPI_SUCCESS
}

// maxSpan bounds the bytes one buffer may cover (unsafe.Slice refuses
// more than the address space).
const maxSpan = 1 << 46

// buffer is what count elements of t at buf are to the Go API. For a
// contiguous type: the bytes, walk nil (pass them to the byte-slice
// calls, mpi.Send and friends). For a derived type: bytes covering every
// byte the elements touch and the datatype to walk over them with the
// datatype calls (mpi.SendType and friends), n elements of it.
//
// A derived type's data may lie before buf (a negative lower bound) or,
// with buf MPI_BOTTOM, anywhere in memory (displacements that are
// addresses from MPI_Get_address): the bytes start at the lowest byte of
// data, buf+true_lb, and the walk is the type shifted by -true_lb, built
// once at commit. Only a type with a negative extent, whose elements go
// down in memory from buf, needs a walk built for the call.
//
// The v and w collectives, whose blocks sit at displacements displs[i]
// (in elements, all >= 0) of buf, take buffer(buf, max(displs[i] +
// counts[i])): element k of the walk is at k*extent in the bytes, so
// block i starts at displs[i]*extent, as the Go API expects.
//
// This is the one place that turns a C buffer into Go's view of it:
// every call with a (buf, count, datatype) triple goes through it.
func (t *dtype) buffer(buf unsafe.Pointer, count int) (b []byte, walk *mpi.Datatype, n int, err error) {
	if count < 0 {
		return nil, nil, 0, &mpi.Error{Class: mpi.ErrCount, Msg: "negative count"}
	}
	if t.derived && !t.committed.Load() {
		return nil, nil, 0, &mpi.Error{Class: mpi.ErrType, Msg: "datatype not committed (MPI_Type_commit)"}
	}
	if t.contig {
		if t.size > 0 && count > maxSpan/t.size {
			return nil, nil, 0, &mpi.Error{Class: mpi.ErrCount, Msg: fmt.Sprintf("%d elements of %d bytes are too many", count, t.size)}
		}
		size := count * t.size
		if buf == nil && size > 0 {
			return nil, nil, 0, &mpi.Error{Class: mpi.ErrBuffer, Msg: "NULL buffer"}
		}
		return bytesAt(buf, size), nil, count, nil
	}
	walk = t.view.Load()
	if walk == nil { // cannot happen: commit sets it
		return nil, nil, 0, &mpi.Error{Class: mpi.ErrIntern, Msg: "committed datatype without a view"}
	}
	if count == 0 || t.size == 0 {
		return nil, walk, count, nil
	}
	ext, tlb, tub := t.d.Extent(), t.d.TrueLB(), t.d.TrueLB()+t.d.TrueExtent()
	if count > 1 && (ext > maxSpan/(count-1) || ext < -maxSpan/(count-1)) {
		return nil, nil, 0, &mpi.Error{Class: mpi.ErrCount, Msg: fmt.Sprintf("%d elements %d bytes apart span too much", count, ext)}
	}
	lo, hi := tlb, tub+(count-1)*ext
	if ext < 0 {
		lo, hi = tlb+(count-1)*ext, tub
		if walk, err = mpi.TypeHindexed([]int{1}, []int{-lo}, t.d); err != nil {
			return nil, nil, 0, err
		}
	}
	if hi-lo > maxSpan || hi < lo {
		return nil, nil, 0, &mpi.Error{Class: mpi.ErrCount, Msg: fmt.Sprintf("%d elements span %d bytes", count, hi-lo)}
	}
	if buf == nil && lo < 4096 {
		// MPI_BOTTOM with displacements that are not addresses: the
		// first page is never mapped, nor are negative addresses (the
		// kernel's half) for a program.
		return nil, nil, 0, &mpi.Error{Class: mpi.ErrBuffer, Msg: fmt.Sprintf("MPI_BOTTOM buffer and data at address %#x (displacements from MPI_Get_address?)", lo)}
	}
	return unsafe.Slice((*byte)(unsafe.Add(buf, lo)), hi-lo), walk, count, nil
}

// newDerived is the table entry of a type made by a constructor from
// parts; d's view is built when it is committed.
func newDerived(d *mpi.Datatype, parts []part) *dtype {
	return &dtype{d: d, size: d.Size(), contig: d.IsContiguous(), derived: true, owner: true, parts: parts}
}

// commit readies t for communication: it builds the view buffer walks.
func (t *dtype) commit() error {
	if !t.derived || t.committed.Load() {
		return nil
	}
	if !t.contig {
		v, err := mpi.TypeHindexed([]int{1}, []int{-t.d.TrueLB()}, t.d)
		if err != nil {
			return err
		}
		t.view.Store(v)
	}
	t.committed.Store(true)
	return nil
}

//export capi_Type_commit
func capi_Type_commit(datatype *C.MPI_Datatype) C.int {
	if datatype == nil {
		return fail(nil, mpi.ErrArg, "MPI_Type_commit: NULL datatype")
	}
	t, rc := typeArg(nil, *datatype, "MPI_Type_commit")
	if t == nil {
		return rc
	}
	if err := t.commit(); err != nil {
		return fail(nil, mpi.Class(err), "MPI_Type_commit: "+err.Error())
	}
	return C.MPI_SUCCESS
}

// Type_free releases the handle; operations pending on the type keep
// the Go datatype they hold, which the garbage collector keeps alive.
//
//export capi_Type_free
func capi_Type_free(datatype *C.MPI_Datatype) C.int {
	if datatype == nil {
		return fail(nil, mpi.ErrArg, "MPI_Type_free: NULL datatype")
	}
	t, rc := typeArg(nil, *datatype, "MPI_Type_free")
	if t == nil {
		return rc
	}
	if *datatype < C.LAMGO_PREDEFINED_TYPES {
		return fail(nil, mpi.ErrType, "MPI_Type_free: predefined datatype")
	}
	if t.owner {
		if err := t.d.Free(); err != nil {
			return fail(nil, mpi.Class(err), "MPI_Type_free: "+err.Error())
		}
	}
	types.remove(int(*datatype))
	*datatype = C.MPI_DATATYPE_NULL
	return C.MPI_SUCCESS
}

//export capi_Type_extent
func capi_Type_extent(datatype C.MPI_Datatype, extent *C.MPI_Aint) C.int {
	t, rc := typeArg(nil, datatype, "MPI_Type_extent")
	if t == nil {
		return rc
	}
	if extent == nil {
		return fail(nil, mpi.ErrArg, "MPI_Type_extent: NULL extent")
	}
	*extent = C.MPI_Aint(t.d.Extent())
	return C.MPI_SUCCESS
}

//export capi_Type_lb
func capi_Type_lb(datatype C.MPI_Datatype, lb *C.MPI_Aint) C.int {
	t, rc := typeArg(nil, datatype, "MPI_Type_lb")
	if t == nil {
		return rc
	}
	if lb == nil {
		return fail(nil, mpi.ErrArg, "MPI_Type_lb: NULL displacement")
	}
	*lb = C.MPI_Aint(t.d.LB())
	return C.MPI_SUCCESS
}

//export capi_Type_ub
func capi_Type_ub(datatype C.MPI_Datatype, ub *C.MPI_Aint) C.int {
	t, rc := typeArg(nil, datatype, "MPI_Type_ub")
	if t == nil {
		return rc
	}
	if ub == nil {
		return fail(nil, mpi.ErrArg, "MPI_Type_ub: NULL displacement")
	}
	*ub = C.MPI_Aint(t.d.UB())
	return C.MPI_SUCCESS
}

//export capi_Type_get_extent
func capi_Type_get_extent(datatype C.MPI_Datatype, lb, extent *C.MPI_Aint) C.int {
	t, rc := typeArg(nil, datatype, "MPI_Type_get_extent")
	if t == nil {
		return rc
	}
	if lb == nil || extent == nil {
		return fail(nil, mpi.ErrArg, "MPI_Type_get_extent: NULL lb or extent")
	}
	*lb, *extent = C.MPI_Aint(t.d.LB()), C.MPI_Aint(t.d.Extent())
	return C.MPI_SUCCESS
}

//export capi_Type_get_true_extent
func capi_Type_get_true_extent(datatype C.MPI_Datatype, lb, extent *C.MPI_Aint) C.int {
	t, rc := typeArg(nil, datatype, "MPI_Type_get_true_extent")
	if t == nil {
		return rc
	}
	if lb == nil || extent == nil {
		return fail(nil, mpi.ErrArg, "MPI_Type_get_true_extent: NULL true_lb or true_extent")
	}
	*lb, *extent = C.MPI_Aint(t.d.TrueLB()), C.MPI_Aint(t.d.TrueExtent())
	return C.MPI_SUCCESS
}

//export capi_Address
func capi_Address(location unsafe.Pointer, address *C.MPI_Aint) C.int {
	return getAddress(location, address, "MPI_Address")
}

//export capi_Get_address
func capi_Get_address(location unsafe.Pointer, address *C.MPI_Aint) C.int {
	return getAddress(location, address, "MPI_Get_address")
}

func getAddress(location unsafe.Pointer, address *C.MPI_Aint, fn string) C.int {
	if address == nil {
		return fail(nil, mpi.ErrArg, fn+": NULL address")
	}
	*address = C.MPI_Aint(uintptr(location))
	return C.MPI_SUCCESS
}

// Get_elements counts basic elements: each predefined type (a long
// double too) is one.
//
//export capi_Get_elements
func capi_Get_elements(status *C.MPI_Status, datatype C.MPI_Datatype, count *C.int) C.int {
	t, rc := typeArg(nil, datatype, "MPI_Get_elements")
	if t == nil {
		return rc
	}
	if status == nil || count == nil {
		return fail(nil, mpi.ErrArg, "MPI_Get_elements: NULL status or count")
	}
	*count = intCount(int64(elements(status, t)))
	return C.MPI_SUCCESS
}

// intCount is a count as MPI_Get_count and MPI_Get_elements return it: an
// int, or MPI_UNDEFINED when it does not fit one (the _x forms have it).
func intCount(n int64) C.int {
	if n > math.MaxInt32 || n < math.MinInt32 {
		return C.MPI_UNDEFINED
	}
	return C.int(n)
}

// The MPI-3 _x forms answer in MPI_Count.

//export capi_Type_size_x
func capi_Type_size_x(datatype C.MPI_Datatype, size *C.MPI_Count) C.int {
	t, rc := typeArg(nil, datatype, "MPI_Type_size_x")
	if t == nil {
		return rc
	}
	if size == nil {
		return fail(nil, mpi.ErrArg, "MPI_Type_size_x: NULL size")
	}
	*size = C.MPI_Count(t.size)
	return C.MPI_SUCCESS
}

//export capi_Type_get_extent_x
func capi_Type_get_extent_x(datatype C.MPI_Datatype, lb, extent *C.MPI_Count) C.int {
	t, rc := typeArg(nil, datatype, "MPI_Type_get_extent_x")
	if t == nil {
		return rc
	}
	if lb == nil || extent == nil {
		return fail(nil, mpi.ErrArg, "MPI_Type_get_extent_x: NULL lb or extent")
	}
	*lb, *extent = C.MPI_Count(t.d.LB()), C.MPI_Count(t.d.Extent())
	return C.MPI_SUCCESS
}

//export capi_Type_get_true_extent_x
func capi_Type_get_true_extent_x(datatype C.MPI_Datatype, lb, extent *C.MPI_Count) C.int {
	t, rc := typeArg(nil, datatype, "MPI_Type_get_true_extent_x")
	if t == nil {
		return rc
	}
	if lb == nil || extent == nil {
		return fail(nil, mpi.ErrArg, "MPI_Type_get_true_extent_x: NULL true_lb or true_extent")
	}
	*lb, *extent = C.MPI_Count(t.d.TrueLB()), C.MPI_Count(t.d.TrueExtent())
	return C.MPI_SUCCESS
}

//export capi_Get_elements_x
func capi_Get_elements_x(status *C.MPI_Status, datatype C.MPI_Datatype, count *C.MPI_Count) C.int {
	t, rc := typeArg(nil, datatype, "MPI_Get_elements_x")
	if t == nil {
		return rc
	}
	if status == nil || count == nil {
		return fail(nil, mpi.ErrArg, "MPI_Get_elements_x: NULL status or count")
	}
	*count = C.MPI_Count(elements(status, t))
	return C.MPI_SUCCESS
}

// elements is MPI_Get_elements's count (MPI_UNDEFINED if the message
// ends inside a basic element).
func elements(status *C.MPI_Status, t *dtype) int {
	n := mpi.GetElements(mpi.Status{Bytes: int(status.st_length)}, t.d)
	if n == mpi.Undefined {
		return C.MPI_UNDEFINED
	}
	return n
}

// lamgo_fail_arg raises MPI_ERR_ARG through MPI_COMM_WORLD's handler for
// the library's C side (the Fortran bindings' conversions, fortran_dt.c)
// and returns its code.
//
//export lamgo_fail_arg
func lamgo_fail_arg(msg *C.char) C.int {
	return fail(nil, mpi.ErrArg, C.GoString(msg))
}
