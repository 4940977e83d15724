package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include <stdint.h>
#include "mpi.h"

int lamgo_grequest_query(void *f, uintptr_t extra, MPI_Status *status);
int lamgo_grequest_free(void *f, uintptr_t extra);
int lamgo_grequest_cancel(void *f, uintptr_t extra, int complete);
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// Generalized requests (MPI-2 §8.2) map onto the Go API's GrequestStart:
// the C query, free and cancel functions become the Go callbacks, called
// through the trampolines of grequest.c with the program's extra_state.
// The request is an ordinary handle of the request table, so MPI_Wait,
// MPI_Test and the rest complete it. As in the Go API, the query and free
// functions run in MPI_Grequest_complete (MPI lets them run at the Wait
// or Test that returns the request): the status they leave is what Wait
// then reports.

// callbackErr is the Go error of a C callback's return code.
func callbackErr(rc C.int, what string) error {
	if rc == C.MPI_SUCCESS {
		return nil
	}
	msg := fmt.Sprintf("%s returned error %d", what, int(rc))
	class, ok := goClass(rc)
	if !ok {
		// A class the Go API lacks (MPI_ERR_NO_MEM, …) keeps its C number.
		return &mpi.Error{Class: mpi.ErrOther, Msg: msg, Err: cOnlyClass(rc)}
	}
	return &mpi.Error{Class: class, Msg: msg}
}

//export capi_Grequest_start
func capi_Grequest_start(queryFn *C.MPI_Grequest_query_function, freeFn *C.MPI_Grequest_free_function, cancelFn *C.MPI_Grequest_cancel_function, extra unsafe.Pointer, request *C.MPI_Request) C.int {
	if request == nil {
		return fail(nil, mpi.ErrArg, "MPI_Grequest_start: NULL request")
	}
	x := C.uintptr_t(uintptr(extra))
	var query func() (mpi.Status, error)
	if queryFn != nil {
		f := unsafe.Pointer(queryFn)
		query = func() (mpi.Status, error) {
			var s C.MPI_Status
			s.MPI_SOURCE, s.MPI_TAG = C.MPI_ANY_SOURCE, C.MPI_ANY_TAG
			err := callbackErr(C.lamgo_grequest_query(f, x, &s), "the query function")
			return mpi.Status{Source: int(s.MPI_SOURCE), Tag: int(s.MPI_TAG), Bytes: int(s.st_length), Cancelled: s.st_cancelled != 0}, err
		}
	}
	var free func() error
	if freeFn != nil {
		f := unsafe.Pointer(freeFn)
		free = func() error { return callbackErr(C.lamgo_grequest_free(f, x), "the free function") }
	}
	var cancel func(bool) error
	if cancelFn != nil {
		f := unsafe.Pointer(cancelFn)
		cancel = func(complete bool) error {
			return callbackErr(C.lamgo_grequest_cancel(f, x, cBool(complete)), "the cancel function")
		}
	}
	r, err := mpi.GrequestStart(query, free, cancel)
	return putRequest(request, r, false, err)
}

//export capi_Grequest_complete
func capi_Grequest_complete(request C.MPI_Request) C.int {
	sl := reqAt(request)
	if sl == nil {
		return fail(nil, mpi.ErrRequest, "MPI_Grequest_complete: invalid request")
	}
	if err := mpi.GrequestComplete(sl.v.Load()); err != nil {
		return fail(nil, mpi.Class(err), "MPI_Grequest_complete: "+err.Error())
	}
	return C.MPI_SUCCESS
}

//export capi_Status_set_cancelled
func capi_Status_set_cancelled(status *C.MPI_Status, flag C.int) C.int {
	if status == nil {
		return fail(nil, mpi.ErrArg, "MPI_Status_set_cancelled: NULL status")
	}
	status.st_cancelled = cBool(flag != 0)
	return C.MPI_SUCCESS
}

// setElements makes status say count basic elements of datatype were
// received (what MPI_Get_elements then returns; MPI_Get_count too when
// count is a whole number of datatypes).
func setElements(status *C.MPI_Status, datatype C.MPI_Datatype, count int, fn string) C.int {
	t, rc := typeArg(nil, datatype, fn)
	if t == nil {
		return rc
	}
	switch {
	case status == nil:
		return fail(nil, mpi.ErrArg, fn+": NULL status")
	case count < 0:
		return fail(nil, mpi.ErrCount, fn+": negative count")
	}
	b, ok := elementBytes(t.d, count)
	if !ok {
		return fail(nil, mpi.ErrArg, fmt.Sprintf("%s: %d elements of a datatype of none", fn, count))
	}
	status.st_length = C.longlong(b)
	return C.MPI_SUCCESS
}

// elementBytes is the size of the first count basic elements of a
// sequence of d: whole copies of d, then the bytes of the rest of the
// elements of one more.
func elementBytes(d *mpi.Datatype, count int) (int, bool) {
	if count == 0 {
		return 0, true
	}
	size := d.Size()
	per := mpi.GetElements(mpi.Status{Bytes: size}, d)
	if per <= 0 || per == mpi.Undefined {
		return 0, false
	}
	b := count / per * size
	rest := count % per
	for k := 0; rest > 0 && k < size; k++ {
		if mpi.GetElements(mpi.Status{Bytes: k}, d) == rest {
			return b + k, true
		}
	}
	return b, rest == 0
}

//export capi_Status_set_elements
func capi_Status_set_elements(status *C.MPI_Status, datatype C.MPI_Datatype, count C.int) C.int {
	return setElements(status, datatype, int(count), "MPI_Status_set_elements")
}

//export capi_Status_set_elements_x
func capi_Status_set_elements_x(status *C.MPI_Status, datatype C.MPI_Datatype, count C.MPI_Count) C.int {
	return setElements(status, datatype, int(count), "MPI_Status_set_elements_x")
}
