package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include "mpi.h"
*/
import "C"

import (
	"sync"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// attached is the C address and size of the buffer MPI_Buffer_attach
// gave, which MPI_Buffer_detach hands back.
var attached struct {
	mu   sync.Mutex
	addr unsafe.Pointer
	size C.int
}

//export capi_Buffer_attach
func capi_Buffer_attach(buffer unsafe.Pointer, size C.int) C.int {
	if size < 0 {
		return fail(nil, mpi.ErrArg, "MPI_Buffer_attach: negative size")
	}
	if buffer == nil && size > 0 {
		return fail(nil, mpi.ErrBuffer, "MPI_Buffer_attach: NULL buffer")
	}
	attached.mu.Lock()
	defer attached.mu.Unlock()
	if err := mpi.BufferAttach(bytesAt(buffer, int(size))); err != nil {
		return fail(nil, mpi.Class(err), "MPI_Buffer_attach: "+err.Error())
	}
	attached.addr, attached.size = buffer, size
	return C.MPI_SUCCESS
}

// capi_Buffer_detach's buffer argument is a void* in C that is in fact a
// void** (MPI's binding): the buffer's address is stored through it.
//
//export capi_Buffer_detach
func capi_Buffer_detach(buffer unsafe.Pointer, size *C.int) C.int {
	if buffer == nil || size == nil {
		return fail(nil, mpi.ErrArg, "MPI_Buffer_detach: NULL buffer or size")
	}
	attached.mu.Lock()
	defer attached.mu.Unlock()
	if _, err := mpi.BufferDetach(); err != nil {
		return fail(nil, mpi.Class(err), "MPI_Buffer_detach: "+err.Error())
	}
	*(*unsafe.Pointer)(buffer) = attached.addr
	*size = attached.size
	attached.addr, attached.size = nil, 0
	return C.MPI_SUCCESS
}
