package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include "mpi.h"
*/
import "C"

import (
	"sync"

	"github.com/lamgo/lam/libmpi/mpi"
)

// Datatype names. The predefined C types share Go datatypes (MPI_INT and
// MPI_INT32_T are both mpi.Int32), so their names are kept here, by
// handle: each is its own MPI name until the program renames it.
var typeNames = struct {
	sync.Mutex
	m map[C.MPI_Datatype]string
}{m: map[C.MPI_Datatype]string{
	C.MPI_CHAR: "MPI_CHAR", C.MPI_SIGNED_CHAR: "MPI_SIGNED_CHAR", C.MPI_UNSIGNED_CHAR: "MPI_UNSIGNED_CHAR",
	C.MPI_BYTE: "MPI_BYTE", C.MPI_SHORT: "MPI_SHORT", C.MPI_UNSIGNED_SHORT: "MPI_UNSIGNED_SHORT",
	C.MPI_INT: "MPI_INT", C.MPI_UNSIGNED: "MPI_UNSIGNED", C.MPI_LONG: "MPI_LONG",
	C.MPI_UNSIGNED_LONG: "MPI_UNSIGNED_LONG", C.MPI_LONG_LONG_INT: "MPI_LONG_LONG_INT",
	C.MPI_UNSIGNED_LONG_LONG: "MPI_UNSIGNED_LONG_LONG", C.MPI_FLOAT: "MPI_FLOAT", C.MPI_DOUBLE: "MPI_DOUBLE",
	C.MPI_LONG_DOUBLE: "MPI_LONG_DOUBLE", C.MPI_WCHAR: "MPI_WCHAR", C.MPI_PACKED: "MPI_PACKED",
	C.MPI_LB: "MPI_LB", C.MPI_UB: "MPI_UB", C.MPI_FLOAT_INT: "MPI_FLOAT_INT", C.MPI_DOUBLE_INT: "MPI_DOUBLE_INT",
	C.MPI_LONG_INT: "MPI_LONG_INT", C.MPI_SHORT_INT: "MPI_SHORT_INT", C.MPI_2INT: "MPI_2INT",
	C.MPI_LONG_DOUBLE_INT: "MPI_LONG_DOUBLE_INT", C.MPI_C_BOOL: "MPI_C_BOOL",
	C.MPI_INT8_T: "MPI_INT8_T", C.MPI_INT16_T: "MPI_INT16_T", C.MPI_INT32_T: "MPI_INT32_T", C.MPI_INT64_T: "MPI_INT64_T",
	C.MPI_UINT8_T: "MPI_UINT8_T", C.MPI_UINT16_T: "MPI_UINT16_T", C.MPI_UINT32_T: "MPI_UINT32_T", C.MPI_UINT64_T: "MPI_UINT64_T",
	C.MPI_C_FLOAT_COMPLEX: "MPI_C_FLOAT_COMPLEX", C.MPI_C_DOUBLE_COMPLEX: "MPI_C_DOUBLE_COMPLEX",
	C.MPI_AINT: "MPI_AINT", C.MPI_OFFSET: "MPI_OFFSET", C.MPI_COUNT: "MPI_COUNT",
	C.MPI_CHARACTER: "MPI_CHARACTER", C.MPI_LOGICAL: "MPI_LOGICAL", C.MPI_INTEGER: "MPI_INTEGER",
	C.MPI_REAL: "MPI_REAL", C.MPI_DOUBLE_PRECISION: "MPI_DOUBLE_PRECISION", C.MPI_COMPLEX: "MPI_COMPLEX",
	C.MPI_DOUBLE_COMPLEX: "MPI_DOUBLE_COMPLEX", C.MPI_2INTEGER: "MPI_2INTEGER", C.MPI_2REAL: "MPI_2REAL",
	C.MPI_2DOUBLE_PRECISION: "MPI_2DOUBLE_PRECISION", C.MPI_INTEGER1: "MPI_INTEGER1", C.MPI_INTEGER2: "MPI_INTEGER2",
	C.MPI_INTEGER4: "MPI_INTEGER4", C.MPI_INTEGER8: "MPI_INTEGER8", C.MPI_REAL4: "MPI_REAL4", C.MPI_REAL8: "MPI_REAL8",
}}

// namedTypes are the program's datatypes it named: the others have the
// empty name, as MPI says (the Go API names them after their
// constructor).
var namedTypes sync.Map // *mpi.Datatype → struct{}

// predefinedTypeName is the name of a predefined datatype handle; ok is
// false for a program's datatype.
func predefinedTypeName(h C.MPI_Datatype) (string, bool) {
	typeNames.Lock()
	defer typeNames.Unlock()
	s, ok := typeNames.m[h]
	return s, ok
}

//export capi_Type_set_name
func capi_Type_set_name(datatype C.MPI_Datatype, name *C.char) C.int {
	if name == nil {
		return fail(nil, mpi.ErrArg, "MPI_Type_set_name: NULL name")
	}
	s := C.GoString(name)
	if len(s) >= C.MPI_MAX_OBJECT_NAME {
		s = s[:C.MPI_MAX_OBJECT_NAME-1] // truncated, as MPI says
	}
	if _, ok := predefinedTypeName(datatype); ok {
		typeNames.Lock()
		typeNames.m[datatype] = s
		typeNames.Unlock()
		return C.MPI_SUCCESS
	}
	t, rc := typeArg(nil, datatype, "MPI_Type_set_name")
	if t == nil {
		return rc
	}
	if err := t.d.SetName(s); err != nil {
		return raise(err, "MPI_Type_set_name")
	}
	namedTypes.Store(t.d, struct{}{})
	return C.MPI_SUCCESS
}

//export capi_Type_get_name
func capi_Type_get_name(datatype C.MPI_Datatype, name *C.char, length *C.int) C.int {
	if name == nil || length == nil {
		return fail(nil, mpi.ErrArg, "MPI_Type_get_name: NULL name or resultlen")
	}
	s, ok := predefinedTypeName(datatype)
	if !ok {
		t, rc := typeArg(nil, datatype, "MPI_Type_get_name")
		if t == nil {
			return rc
		}
		if _, named := namedTypes.Load(t.d); named {
			s = t.d.Name()
		}
	}
	putString(name, C.MPI_MAX_OBJECT_NAME, s, length)
	return C.MPI_SUCCESS
}
