package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include <wchar.h>
#include <stdbool.h>
typedef long double long_double_t;
#include "mpi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// A dtype is what the C layer keeps of a datatype: the Go datatype and
// whether count elements are one block of count*size bytes from the
// buffer's address (then messages move as bytes, with no datatype walk).
type dtype struct {
	d      *mpi.Datatype
	size   int  // bytes of data in one element
	contig bool // extent == size and lb == 0
}

// The datatype table, with the predefined C and Fortran types of mpi.h.
var types = func() *table[dtype] {
	t := new(table[dtype])
	opaque := func(n int) *mpi.Datatype { // a type Go has no name for (long double)
		d, err := mpi.TypeContiguous(n, mpi.Byte)
		if err != nil {
			panic(err) // cannot happen: n > 0 and Byte is valid
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
		C.MPI_LONG_DOUBLE: opaque(C.sizeof_long_double_t),
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
	// Handles below LAMGO_PREDEFINED_TYPES are never given out, even
	// those (the pair types, MPI_LB, MPI_UB) set up elsewhere.
	t.set(C.LAMGO_PREDEFINED_TYPES-1, nil)
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
	return C.MPI_SUCCESS
}

// buffer is what count elements of t at buf are to the Go API. For a
// contiguous type: the bytes, walk nil (pass them to the byte-slice
// calls, mpi.Send and friends). For a derived type: bytes covering every
// byte the elements touch and the datatype to walk over them with the
// datatype calls (mpi.SendType and friends), n elements of it.
//
// This is the one place that turns a C buffer into Go's view of it:
// every call with a (buf, count, datatype) triple goes through it.
func (t *dtype) buffer(buf unsafe.Pointer, count int) (b []byte, walk *mpi.Datatype, n int, err error) {
	if count < 0 {
		return nil, nil, 0, &mpi.Error{Class: mpi.ErrCount, Msg: "negative count"}
	}
	if !t.contig {
		return nil, nil, 0, &mpi.Error{Class: mpi.ErrType, Msg: "derived datatypes are not supported here yet"}
	}
	size := count * t.size
	if buf == nil && size > 0 {
		return nil, nil, 0, &mpi.Error{Class: mpi.ErrBuffer, Msg: "NULL buffer"}
	}
	return bytesAt(buf, size), nil, count, nil
}
