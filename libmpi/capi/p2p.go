package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include "mpi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// bytesAt is the n bytes of C memory at p (nil for none).
func bytesAt(p unsafe.Pointer, n int) []byte {
	if n <= 0 || p == nil {
		return nil
	}
	return unsafe.Slice((*byte)(p), n)
}

// bufArgs checks a buffer, count and datatype of a call on c and returns
// the bytes count elements of a contiguous type occupy.
func bufArgs(c *mpi.Comm, buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, fn string) (*dtype, []byte, C.int) {
	t, rc := typeArg(c, datatype, fn)
	if t == nil {
		return nil, nil, rc
	}
	if count < 0 {
		return nil, nil, fail(c, mpi.ErrCount, fn+": negative count")
	}
	if !t.contig {
		return nil, nil, fail(c, mpi.ErrType, fn+": derived datatypes are not supported here yet")
	}
	n := int(count) * t.size
	if buf == nil && n > 0 {
		return nil, nil, fail(c, mpi.ErrBuffer, fn+": NULL buffer")
	}
	return t, bytesAt(buf, n), C.MPI_SUCCESS
}

// putStatus stores a Go status in a C one (none for MPI_STATUS_IGNORE).
func putStatus(p *C.MPI_Status, s mpi.Status, err error) {
	if p == nil {
		return
	}
	p.MPI_SOURCE = C.int(s.Source)
	p.MPI_TAG = C.int(s.Tag)
	p.MPI_ERROR = code(err)
	p.st_cancelled = cBool(s.Cancelled)
	p.st_length = C.longlong(s.Bytes)
}

//export capi_Send
func capi_Send(buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, dest, tag C.int, comm C.MPI_Comm) C.int {
	c, rc := commArg(comm, "MPI_Send")
	if c == nil {
		return rc
	}
	_, b, rc := bufArgs(c, buf, count, datatype, "MPI_Send")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return code(mpi.Send(c, b, int(dest), int(tag)))
}

//export capi_Recv
func capi_Recv(buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, source, tag C.int, comm C.MPI_Comm, status *C.MPI_Status) C.int {
	c, rc := commArg(comm, "MPI_Recv")
	if c == nil {
		return rc
	}
	_, b, rc := bufArgs(c, buf, count, datatype, "MPI_Recv")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	s, err := mpi.Recv(c, b, int(source), int(tag))
	putStatus(status, s, err)
	return code(err)
}

//export capi_Get_count
func capi_Get_count(status *C.MPI_Status, datatype C.MPI_Datatype, count *C.int) C.int {
	t, rc := typeArg(nil, datatype, "MPI_Get_count")
	if t == nil {
		return rc
	}
	if status == nil || count == nil {
		return fail(nil, mpi.ErrArg, "MPI_Get_count: NULL status or count")
	}
	n := int64(status.st_length)
	switch {
	case t.size == 0:
		*count = 0
	case n%int64(t.size) != 0:
		*count = C.MPI_UNDEFINED
	default:
		*count = C.int(n / int64(t.size))
	}
	return C.MPI_SUCCESS
}
