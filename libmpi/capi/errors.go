package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include <stdlib.h>
#include "mpi.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// The C error codes of the Go error classes. Classes up to
// MPI_ERR_PENDING have the same numbers in both; the rest have LAM's C
// numbers (mpi.h). User classes and codes (MPI_Add_error_class) follow
// MPI_ERR_LASTCODE in C as they follow mpi.ErrLastCode in Go.
var cCodeOf = map[mpi.ErrorClass]C.int{
	mpi.ErrProcFailed: C.MPI_ERR_PROC_FAILED,
	mpi.ErrKeyval:     C.MPI_ERR_KEYVAL,
	mpi.ErrInfo:       C.MPI_ERR_INFO,
	mpi.ErrInfoKey:    C.MPI_ERR_INFO_KEY,
	mpi.ErrInfoValue:  C.MPI_ERR_INFO_VALUE,
	mpi.ErrInfoNokey:  C.MPI_ERR_INFO_NOKEY,
	mpi.ErrLastCode:   C.MPI_ERR_LASTCODE,
}

var goClassOf = func() map[C.int]mpi.ErrorClass {
	m := make(map[C.int]mpi.ErrorClass, len(cCodeOf))
	for g, c := range cCodeOf {
		m[c] = g
	}
	return m
}()

// cCode is the C error code of a Go error class or code.
func cCode(g mpi.ErrorClass) C.int {
	switch {
	case g <= mpi.ErrPending:
		return C.int(g)
	case g > mpi.ErrLastCode:
		return C.int(g-mpi.ErrLastCode) + C.MPI_ERR_LASTCODE
	}
	if c, ok := cCodeOf[g]; ok {
		return c
	}
	return C.MPI_ERR_OTHER
}

// goClass is the Go error class or code of a C error code; ok is false
// for the C classes the Go API never raises (MPI_ERR_SPAWN, …).
func goClass(c C.int) (mpi.ErrorClass, bool) {
	switch {
	case c < 0:
		return 0, false
	case c <= C.MPI_ERR_PENDING:
		return mpi.ErrorClass(c), true
	case c > C.MPI_ERR_LASTCODE:
		return mpi.ErrorClass(c-C.MPI_ERR_LASTCODE) + mpi.ErrLastCode, true
	}
	g, ok := goClassOf[c]
	return g, ok
}

// The names of the C-only classes, for MPI_Error_string.
var cOnlyNames = map[C.int]string{
	C.MPI_ERR_SYSRESOURCE: "MPI_ERR_SYSRESOURCE", C.MPI_ERR_LOCALDEAD: "MPI_ERR_LOCALDEAD",
	C.MPI_ERR_REMOTEDEAD: "MPI_ERR_REMOTEDEAD", C.MPI_ERR_VALUE: "MPI_ERR_VALUE",
	C.MPI_ERR_FLAGS: "MPI_ERR_FLAGS", C.MPI_ERR_SERVICE: "MPI_ERR_SERVICE",
	C.MPI_ERR_NAME: "MPI_ERR_NAME", C.MPI_ERR_SPAWN: "MPI_ERR_SPAWN",
	C.MPI_ERR_WIN: "MPI_ERR_WIN", C.MPI_ERR_EPOCH: "MPI_ERR_EPOCH",
	C.MPI_ERR_TYPENOTSUP: "MPI_ERR_TYPENOTSUP", C.MPI_ERR_NO_MEM: "MPI_ERR_NO_MEM",
	C.MPI_ERR_BASE: "MPI_ERR_BASE",
}

//export capi_Add_error_class
func capi_Add_error_class(errorclass *C.int) C.int {
	if errorclass == nil {
		return fail(nil, mpi.ErrArg, "MPI_Add_error_class: NULL errorclass")
	}
	g, err := mpi.AddErrorClass()
	if err != nil {
		return fail(nil, mpi.Class(err), "MPI_Add_error_class: "+err.Error())
	}
	*errorclass = cCode(g)
	return C.MPI_SUCCESS
}

//export capi_Add_error_code
func capi_Add_error_code(errorclass C.int, errorcode *C.int) C.int {
	if errorcode == nil {
		return fail(nil, mpi.ErrArg, "MPI_Add_error_code: NULL errorcode")
	}
	g, ok := goClass(errorclass)
	if !ok {
		return fail(nil, mpi.ErrArg, "MPI_Add_error_code: invalid error class")
	}
	k, err := mpi.AddErrorCode(g)
	if err != nil {
		return fail(nil, mpi.Class(err), "MPI_Add_error_code: "+err.Error())
	}
	*errorcode = cCode(k)
	return C.MPI_SUCCESS
}

//export capi_Add_error_string
func capi_Add_error_string(errorcode C.int, str *C.char) C.int {
	if str == nil {
		return fail(nil, mpi.ErrArg, "MPI_Add_error_string: NULL string")
	}
	g, ok := goClass(errorcode)
	if !ok || errorcode <= C.MPI_ERR_LASTCODE {
		return fail(nil, mpi.ErrArg, "MPI_Add_error_string: not a user error class or code")
	}
	s := C.GoString(str)
	if len(s) >= C.MPI_MAX_ERROR_STRING {
		return fail(nil, mpi.ErrArg, "MPI_Add_error_string: string longer than MPI_MAX_ERROR_STRING")
	}
	if err := mpi.AddErrorString(g, s); err != nil {
		return fail(nil, mpi.Class(err), "MPI_Add_error_string: "+err.Error())
	}
	return C.MPI_SUCCESS
}

// code is the C return value of a call that ended with err: the error
// has already been through the communicator's handler (the Go API runs
// it, and fail does for errors found here).
func code(err error) C.int {
	if err == nil {
		return C.MPI_SUCCESS
	}
	var c cOnlyClass
	if errors.As(err, &c) {
		return C.int(c)
	}
	return cCode(mpi.Class(err))
}

// cOnlyClass is a C error class the Go API has no class for
// (MPI_ERR_NO_MEM, …): it travels as the cause of an mpi.ErrOther error,
// and code gives it back.
type cOnlyClass C.int

func (c cOnlyClass) Error() string { return fmt.Sprintf("C error class %d", int(c)) }

// fail raises an error found by the C layer itself (a bad handle, a
// negative count) through c's error handler (MPI_COMM_WORLD's when c is
// nil, as MPI says for an invalid communicator) and returns its code.
func fail(c *mpi.Comm, class mpi.ErrorClass, msg string) C.int {
	return code(c.CallErrhandler(&mpi.Error{Class: class, Msg: msg}))
}

// putString copies s into the C buffer buf of size n (including the
// terminating NUL) and stores its length in *length.
func putString(buf *C.char, n int, s string, length *C.int) {
	if len(s) > n-1 {
		s = s[:n-1]
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(buf)), n)
	copy(b, s)
	b[len(s)] = 0
	if length != nil {
		*length = C.int(len(s))
	}
}

//export capi_Error_class
func capi_Error_class(errorcode C.int, class *C.int) C.int {
	if class == nil {
		return fail(nil, mpi.ErrArg, "MPI_Error_class: NULL errorclass")
	}
	g, ok := goClass(errorcode)
	if !ok {
		if _, known := cOnlyNames[errorcode]; known {
			*class = errorcode
			return C.MPI_SUCCESS
		}
		return fail(nil, mpi.ErrArg, "MPI_Error_class: invalid error code")
	}
	k, err := mpi.ErrorClassOf(g)
	if err != nil {
		return fail(nil, mpi.ErrArg, "MPI_Error_class: "+err.Error())
	}
	*class = cCode(k)
	return C.MPI_SUCCESS
}

//export capi_Error_string
func capi_Error_string(errorcode C.int, str *C.char, length *C.int) C.int {
	if str == nil || length == nil {
		return fail(nil, mpi.ErrArg, "MPI_Error_string: NULL string or resultlen")
	}
	s, ok := cOnlyNames[errorcode]
	if !ok {
		g, known := goClass(errorcode)
		if !known {
			return fail(nil, mpi.ErrArg, "MPI_Error_string: invalid error code")
		}
		s = mpi.ErrorString(g)
	}
	if errorcode >= 0 && errorcode < C.MPI_ERR_LASTCODE {
		s += ": " + classText(errorcode) // and LAM's text for it
	}
	putString(str, C.MPI_MAX_ERROR_STRING, s, length)
	return C.MPI_SUCCESS
}
