package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include "mpi.h"
*/
import "C"

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// MPI_Pack and friends. The packed form is the data bytes in type-map
// order (what travels as MPI_PACKED); the external32 form is the same
// with every basic element big-endian.

//export capi_Pack
func capi_Pack(inbuf unsafe.Pointer, incount C.int, datatype C.MPI_Datatype, outbuf unsafe.Pointer, outsize C.int, position *C.int, comm C.MPI_Comm) C.int {
	const fn = "MPI_Pack"
	c, rc := commArg(comm, fn)
	if c == nil {
		return rc
	}
	if position == nil || outsize < 0 {
		return fail(c, mpi.ErrArg, fn+": NULL position or negative outsize")
	}
	b, walk, n, rc := bufArgs(c, inbuf, incount, datatype, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	out, pos := bytesAt(outbuf, int(outsize)), int(*position)
	if walk == nil {
		if pos < 0 || pos+len(b) > len(out) {
			return fail(c, mpi.ErrBuffer, fmt.Sprintf("%s: %d bytes at position %d overflow a buffer of %d", fn, len(b), pos, len(out)))
		}
		pos += copy(out[pos:], b)
	} else if err := mpi.Pack(b, n, walk, out, &pos); err != nil {
		return fail(c, mpi.Class(err), fn+": "+err.Error())
	}
	*position = C.int(pos)
	return C.MPI_SUCCESS
}

//export capi_Unpack
func capi_Unpack(inbuf unsafe.Pointer, insize C.int, position *C.int, outbuf unsafe.Pointer, outcount C.int, datatype C.MPI_Datatype, comm C.MPI_Comm) C.int {
	const fn = "MPI_Unpack"
	c, rc := commArg(comm, fn)
	if c == nil {
		return rc
	}
	if position == nil || insize < 0 {
		return fail(c, mpi.ErrArg, fn+": NULL position or negative insize")
	}
	b, walk, n, rc := bufArgs(c, outbuf, outcount, datatype, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	in, pos := bytesAt(inbuf, int(insize)), int(*position)
	if walk == nil {
		if pos < 0 || pos+len(b) > len(in) {
			return fail(c, mpi.ErrTruncate, fmt.Sprintf("%s: %d bytes at position %d: past the end of %d packed bytes", fn, len(b), pos, len(in)))
		}
		pos += copy(b, in[pos:])
	} else if err := mpi.Unpack(in, &pos, b, n, walk); err != nil {
		return fail(c, mpi.Class(err), fn+": "+err.Error())
	}
	*position = C.int(pos)
	return C.MPI_SUCCESS
}

//export capi_Pack_size
func capi_Pack_size(incount C.int, datatype C.MPI_Datatype, comm C.MPI_Comm, size *C.int) C.int {
	const fn = "MPI_Pack_size"
	c, rc := commArg(comm, fn)
	if c == nil {
		return rc
	}
	t, rc := typeArg(c, datatype, fn)
	if t == nil {
		return rc
	}
	if size == nil {
		return fail(c, mpi.ErrArg, fn+": NULL size")
	}
	if incount < 0 {
		return fail(c, mpi.ErrCount, fn+": negative count")
	}
	n := mpi.PackSize(int(incount), t.d)
	if n > math.MaxInt32 {
		return fail(c, mpi.ErrCount, fmt.Sprintf("%s: %d bytes do not fit in an int", fn, n))
	}
	*size = C.int(n)
	return C.MPI_SUCCESS
}

// externalArgs is the representation and the Go view of a buffer for the
// external32 calls: the walk is always a datatype, the contiguous type's
// own when buffer gives bytes, since every basic element is swapped.
func externalArgs(datarep *C.char, buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, fn string) (rep string, b []byte, walk *mpi.Datatype, n int, rc C.int) {
	if datarep == nil {
		return "", nil, nil, 0, fail(nil, mpi.ErrArg, fn+": NULL datarep")
	}
	b, walk, n, rc = bufArgs(nil, buf, count, datatype, fn)
	if rc != C.MPI_SUCCESS {
		return "", nil, nil, 0, rc
	}
	if walk == nil {
		walk = types.get(int(datatype)).d
	}
	return C.GoString(datarep), b, walk, n, C.MPI_SUCCESS
}

//export capi_Pack_external
func capi_Pack_external(datarep *C.char, inbuf unsafe.Pointer, incount C.int, datatype C.MPI_Datatype, outbuf unsafe.Pointer, outsize C.MPI_Aint, position *C.MPI_Aint) C.int {
	const fn = "MPI_Pack_external"
	if position == nil || outsize < 0 {
		return fail(nil, mpi.ErrArg, fn+": NULL position or negative outsize")
	}
	rep, b, walk, n, rc := externalArgs(datarep, inbuf, incount, datatype, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	pos := int(*position)
	if err := mpi.PackExternal(rep, b, n, walk, bytesAt(outbuf, int(outsize)), &pos); err != nil {
		return fail(nil, mpi.Class(err), fn+": "+err.Error())
	}
	*position = C.MPI_Aint(pos)
	return C.MPI_SUCCESS
}

//export capi_Unpack_external
func capi_Unpack_external(datarep *C.char, inbuf unsafe.Pointer, insize C.MPI_Aint, position *C.MPI_Aint, outbuf unsafe.Pointer, outcount C.int, datatype C.MPI_Datatype) C.int {
	const fn = "MPI_Unpack_external"
	if position == nil || insize < 0 {
		return fail(nil, mpi.ErrArg, fn+": NULL position or negative insize")
	}
	rep, b, walk, n, rc := externalArgs(datarep, outbuf, outcount, datatype, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	pos := int(*position)
	if err := mpi.UnpackExternal(rep, bytesAt(inbuf, int(insize)), &pos, b, n, walk); err != nil {
		return fail(nil, mpi.Class(err), fn+": "+err.Error())
	}
	*position = C.MPI_Aint(pos)
	return C.MPI_SUCCESS
}

//export capi_Pack_external_size
func capi_Pack_external_size(datarep *C.char, incount C.int, datatype C.MPI_Datatype, size *C.MPI_Aint) C.int {
	const fn = "MPI_Pack_external_size"
	t, rc := typeArg(nil, datatype, fn)
	if t == nil {
		return rc
	}
	if datarep == nil || size == nil {
		return fail(nil, mpi.ErrArg, fn+": NULL datarep or size")
	}
	n, err := mpi.PackExternalSize(C.GoString(datarep), int(incount), t.d)
	if err != nil {
		return fail(nil, mpi.Class(err), fn+": "+err.Error())
	}
	*size = C.MPI_Aint(n)
	return C.MPI_SUCCESS
}
