package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include <stddef.h>
#include "mpi.h"

void *lamgo_malloc(size_t n);
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// Small MPI-2 and MPI-3 calls: memory allocation, a duplicate with hints,
// Fortran's sized types by size. The ones that need no Go (MPI_Free_mem,
// MPI_Aint_add, MPI_Aint_diff, MPI_Status_c2f, MPI_Status_f2c) are in
// misc.c.

// MPI_Alloc_mem is C's malloc: the transports need no special memory, so
// no hint of info changes anything (an invalid info is still an error).
//
//export capi_Alloc_mem
func capi_Alloc_mem(size C.MPI_Aint, info C.MPI_Info, baseptr unsafe.Pointer) C.int {
	const fn = "MPI_Alloc_mem"
	if in, rc := infoArg(nil, info, true, fn); in == nil && rc != C.MPI_SUCCESS {
		return rc
	}
	switch {
	case baseptr == nil:
		return fail(nil, mpi.ErrArg, fn+": NULL baseptr")
	case size < 0:
		return fail(nil, mpi.ErrArg, fmt.Sprintf("%s: negative size %d", fn, int64(size)))
	}
	p := C.lamgo_malloc(C.size_t(size))
	if p == nil {
		return code(mpi.World.CallErrhandler(&mpi.Error{Class: mpi.ErrOther,
			Msg: fmt.Sprintf("%s: out of memory (%d bytes)", fn, int64(size)), Err: cOnlyClass(C.MPI_ERR_NO_MEM)}))
	}
	*(*unsafe.Pointer)(baseptr) = p
	return C.MPI_SUCCESS
}

// MPI_Comm_dup_with_info is MPI_Comm_dup: this library takes no
// communicator hints, so info (MPI_INFO_NULL or a valid Info) is checked
// and ignored, as MPI allows.
//
//export capi_Comm_dup_with_info
func capi_Comm_dup_with_info(comm C.MPI_Comm, info C.MPI_Info, newcomm *C.MPI_Comm) C.int {
	const fn = "MPI_Comm_dup_with_info"
	c, rc := commArg(comm, fn)
	if c == nil {
		return rc
	}
	if in, rc := infoArg(c, info, true, fn); in == nil && rc != C.MPI_SUCCESS {
		return rc
	}
	return dupComm(c, newcomm, fn)
}

// matchSizes are the Fortran types MPI_Type_match_size gives, by type
// class and size in bytes: the default kinds where they have the size
// (MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION, as Open MPI answers), else
// the sized names.
var matchSizes = map[C.int]map[C.int]C.MPI_Datatype{
	C.MPI_TYPECLASS_INTEGER: {1: C.MPI_INTEGER1, 2: C.MPI_INTEGER2, 4: C.MPI_INTEGER, 8: C.MPI_INTEGER8},
	C.MPI_TYPECLASS_REAL:    {4: C.MPI_REAL, 8: C.MPI_DOUBLE_PRECISION},
	C.MPI_TYPECLASS_COMPLEX: {8: C.MPI_COMPLEX, 16: C.MPI_DOUBLE_COMPLEX},
}

//export capi_Type_match_size
func capi_Type_match_size(typeclass, size C.int, datatype *C.MPI_Datatype) C.int {
	const fn = "MPI_Type_match_size"
	if datatype == nil {
		return fail(nil, mpi.ErrArg, fn+": NULL datatype")
	}
	bySize, ok := matchSizes[typeclass]
	if !ok {
		return fail(nil, mpi.ErrArg, fmt.Sprintf("%s: unknown type class %d", fn, int(typeclass)))
	}
	t, ok := bySize[size]
	if !ok {
		return fail(nil, mpi.ErrArg, fmt.Sprintf("%s: no type of class %d has %d bytes", fn, int(typeclass), int(size)))
	}
	*datatype = t
	return C.MPI_SUCCESS
}

// MPI_Comm_set_info and MPI_Comm_get_info: the library uses no
// communicator hints, so set checks info and keeps nothing, and get
// returns a new, empty Info ("the hints actually used", MPI-3 §6.4.4).
//
//export capi_Comm_set_info
func capi_Comm_set_info(comm C.MPI_Comm, info C.MPI_Info) C.int {
	const fn = "MPI_Comm_set_info"
	c, rc := commArg(comm, fn)
	if c == nil {
		return rc
	}
	if in, rc := infoArg(c, info, false, fn); in == nil {
		return rc
	}
	return C.MPI_SUCCESS
}

//export capi_Comm_get_info
func capi_Comm_get_info(comm C.MPI_Comm, info *C.MPI_Info) C.int {
	const fn = "MPI_Comm_get_info"
	c, rc := commArg(comm, fn)
	if c == nil {
		return rc
	}
	if info == nil {
		return fail(c, mpi.ErrArg, fn+": NULL info")
	}
	in, err := mpi.NewInfo()
	if err != nil {
		return raise(err, fn)
	}
	*info = C.MPI_Info(infos.add(in))
	return C.MPI_SUCCESS
}
