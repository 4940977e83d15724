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

// bufArgs checks a buffer, count and datatype of a call on c (fn names
// it in errors) and returns the Go view of the buffer (dtype.buffer).
func bufArgs(c *mpi.Comm, buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, fn string) (b []byte, walk *mpi.Datatype, n int, rc C.int) {
	t, rc := typeArg(c, datatype, fn)
	if t == nil {
		return nil, nil, 0, rc
	}
	b, walk, n, err := t.buffer(buf, int(count))
	if err != nil {
		return nil, nil, 0, fail(c, mpi.Class(err), fn+": "+err.Error())
	}
	return b, walk, n, C.MPI_SUCCESS
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
	b, walk, n, rc := bufArgs(c, buf, count, datatype, "MPI_Send")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if walk != nil {
		return code(mpi.SendType(c, b, n, walk, int(dest), int(tag)))
	}
	return code(mpi.Send(c, b, int(dest), int(tag)))
}

//export capi_Recv
func capi_Recv(buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, source, tag C.int, comm C.MPI_Comm, status *C.MPI_Status) C.int {
	c, rc := commArg(comm, "MPI_Recv")
	if c == nil {
		return rc
	}
	b, walk, n, rc := bufArgs(c, buf, count, datatype, "MPI_Recv")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	var s mpi.Status
	var err error
	if walk != nil {
		s, err = mpi.RecvType(c, b, n, walk, int(source), int(tag))
	} else {
		s, err = mpi.Recv(c, b, int(source), int(tag))
	}
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
