package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include <stdio.h>
#include "mpi.h"
*/
import "C"

import (
	"github.com/lamgo/lam/libmpi/mpi"
)

//export capi_Init
func capi_Init(argc *C.int, argv ***C.char) C.int {
	if err := mpi.Init(); err != nil {
		return fail(nil, mpi.Class(err), err.Error())
	}
	startFast()
	return C.MPI_SUCCESS
}

//export capi_Finalize
func capi_Finalize() C.int {
	stopFast()
	return code(mpi.Finalize())
}

//export capi_Initialized
func capi_Initialized(flag *C.int) C.int {
	if flag == nil {
		return fail(nil, mpi.ErrArg, "MPI_Initialized: NULL flag")
	}
	*flag = cBool(mpi.Initialized())
	return C.MPI_SUCCESS
}

//export capi_Finalized
func capi_Finalized(flag *C.int) C.int {
	if flag == nil {
		return fail(nil, mpi.ErrArg, "MPI_Finalized: NULL flag")
	}
	*flag = cBool(mpi.Finalized())
	return C.MPI_SUCCESS
}

//export capi_Abort
func capi_Abort(comm C.MPI_Comm, errorcode C.int) C.int {
	c := comms.get(int(comm))
	if c == nil {
		c = mpi.World
	}
	C.fflush(nil) // what the program printed is not lost
	mpi.Abort(c, int(errorcode))
	return C.MPI_SUCCESS // not reached: Abort ends the process
}

//export capi_Get_processor_name
func capi_Get_processor_name(name *C.char, length *C.int) C.int {
	if name == nil || length == nil {
		return fail(nil, mpi.ErrArg, "MPI_Get_processor_name: NULL name or resultlen")
	}
	putString(name, C.MPI_MAX_PROCESSOR_NAME, mpi.ProcessorName(), length)
	return C.MPI_SUCCESS
}

//export capi_Get_version
func capi_Get_version(version, subversion *C.int) C.int {
	if version == nil || subversion == nil {
		return fail(nil, mpi.ErrArg, "MPI_Get_version: NULL argument")
	}
	*version, *subversion = C.MPI_VERSION, C.MPI_SUBVERSION
	return C.MPI_SUCCESS
}

//export capi_Init_thread
func capi_Init_thread(argc *C.int, argv ***C.char, required C.int, provided *C.int) C.int {
	if provided == nil {
		return fail(nil, mpi.ErrArg, "MPI_Init_thread: NULL provided")
	}
	if required < C.MPI_THREAD_SINGLE || required > C.MPI_THREAD_MULTIPLE {
		return fail(nil, mpi.ErrArg, "MPI_Init_thread: invalid thread level")
	}
	p, err := mpi.InitThread(int(required))
	if err != nil {
		return fail(nil, mpi.Class(err), err.Error())
	}
	*provided = C.int(p)
	startFast()
	return C.MPI_SUCCESS
}

//export capi_Query_thread
func capi_Query_thread(provided *C.int) C.int {
	if provided == nil {
		return fail(nil, mpi.ErrArg, "MPI_Query_thread: NULL provided")
	}
	*provided = C.int(mpi.QueryThread())
	return C.MPI_SUCCESS
}

//export capi_Is_thread_main
func capi_Is_thread_main(flag *C.int) C.int {
	if flag == nil {
		return fail(nil, mpi.ErrArg, "MPI_Is_thread_main: NULL flag")
	}
	*flag = cBool(mpi.IsThreadMain())
	return C.MPI_SUCCESS
}

//export capi_Get_library_version
func capi_Get_library_version(version *C.char, resultlen *C.int) C.int {
	if version == nil || resultlen == nil {
		return fail(nil, mpi.ErrArg, "MPI_Get_library_version: NULL version or resultlen")
	}
	putString(version, C.MPI_MAX_LIBRARY_VERSION_STRING, mpi.GetLibraryVersion(), resultlen)
	return C.MPI_SUCCESS
}

// lamgo_Pcontrol is MPI_Pcontrol without its variadic arguments (which
// the profiling level alone ignores): pcontrol.c defines PMPI_Pcontrol,
// since cgo cannot export a variadic function.
//
//export lamgo_Pcontrol
func lamgo_Pcontrol(level C.int) C.int {
	return code(mpi.Pcontrol(int(level)))
}

func cBool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
