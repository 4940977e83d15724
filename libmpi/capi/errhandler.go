package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include <stdio.h>
#include <stdlib.h>
#include "mpi.h"
void lamgo_call_errhandler(MPI_Comm_errhandler_function *fn, MPI_Comm comm, int code, const char *msg);
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// fatal is MPI_ERRORS_ARE_FATAL for C programs: it prints the error as
// LAM did and aborts the job through mpirun with the error's class as
// the exit status (LAM aborted with its error code, whose low byte is
// the class).
var fatal = mpi.NewErrhandler(lamFatal)

// The error handler table: MPI_ERRORS_ARE_FATAL and MPI_ERRORS_RETURN
// are predefined; MPI_Comm_create_errhandler adds to it.
var errhandlers = func() *table[mpi.Errhandler] {
	t := new(table[mpi.Errhandler])
	t.set(int(C.MPI_ERRORS_ARE_FATAL), fatal)
	t.set(int(C.MPI_ERRORS_RETURN), mpi.ErrorsReturn)
	return t
}()

// C programs get the C fatal handler on the predefined communicators
// (and so on every communicator made from them).
func init() {
	mpi.World.SetErrhandler(fatal)
	mpi.Self.SetErrhandler(fatal)
}

// errhRefs counts the references to each user handler's handle: one
// from MPI_Comm_create_errhandler and one per MPI_Comm_get_errhandler;
// MPI_Errhandler_free drops one and frees the handle at none.
var errhRefs struct {
	mu sync.Mutex
	n  map[C.MPI_Errhandler]int
}

func errhRef(h C.MPI_Errhandler, delta int) (left int) {
	errhRefs.mu.Lock()
	defer errhRefs.mu.Unlock()
	if errhRefs.n == nil {
		errhRefs.n = map[C.MPI_Errhandler]int{}
	}
	errhRefs.n[h] += delta
	left = errhRefs.n[h]
	if left <= 0 {
		delete(errhRefs.n, h)
	}
	return left
}

// errhandlerHandle is the handle of h, making one if h has none.
func errhandlerHandle(h *mpi.Errhandler) C.MPI_Errhandler {
	if h == mpi.ErrorsAreFatal || h == fatal {
		return C.MPI_ERRORS_ARE_FATAL
	}
	if h == mpi.ErrorsReturn {
		return C.MPI_ERRORS_RETURN
	}
	if s := errhandlers.slots.Load(); s != nil {
		for i, sl := range *s {
			if sl.v.Load() == h {
				return C.MPI_Errhandler(i)
			}
		}
	}
	return C.MPI_Errhandler(errhandlers.add(h)) // a freed one in use
}

// commHandle is the C handle of c, for the error path only (a scan of
// the communicator table); MPI_COMM_NULL if C has no handle for it.
func commHandle(c *mpi.Comm) C.MPI_Comm {
	if c == nil || c == mpi.World {
		return C.MPI_COMM_WORLD
	}
	if s := comms.slots.Load(); s != nil {
		for i, sl := range *s {
			if sl.v.Load() == c {
				return C.MPI_Comm(i)
			}
		}
	}
	return C.MPI_COMM_NULL
}

// newCHandler is a Go error handler that calls the C function fn.
func newCHandler(fn *C.MPI_Comm_errhandler_function) *mpi.Errhandler {
	return mpi.NewErrhandler(func(c *mpi.Comm, err error) {
		msg := C.CString(errText(err))
		defer C.free(unsafe.Pointer(msg))
		C.lamgo_call_errhandler(fn, commHandle(c), code(err), msg)
	})
}

// errText is the message of an error, without its class.
func errText(err error) string {
	var e *mpi.Error
	if errors.As(err, &e) {
		return e.Msg
	}
	return err.Error()
}

// lamText is LAM's text for each error class (MPI_Error_string's).
var lamText = [...]string{
	"no errors", "invalid buffer pointer", "invalid count argument", "invalid datatype argument",
	"invalid tag argument", "invalid communicator", "invalid rank", "invalid request handle",
	"invalid root", "invalid group", "invalid operation", "invalid topology",
	"invalid dimension argument", "invalid argument", "unknown error", "message truncated",
	"unclassified", "internal MPI error", "error code is in status", "pending request",
	"out of system resources", "process in local group is dead", "process in remote group is dead",
	"info value truncated", "mismatched run-time flags", "publishing service", "publishing service",
	"error spawning process", "invalid key value", "no such info key", "invalid window",
	"invalid epoch", "operation not supported on type", "invalid info key", "invalid info value",
	"could not allocate memory", "invalid base argument", "invalid info object",
	"a process has failed",
}

// classText is LAM's text for a C error class or code.
func classText(c C.int) string {
	if c >= 0 && int(c) < len(lamText) {
		return lamText[c]
	}
	if g, ok := goClass(c); ok {
		if k, err := mpi.ErrorClassOf(g); err == nil && k != g {
			return classText(cCode(k))
		}
		if s := mpi.ErrorString(g); s != "" {
			return s
		}
	}
	return "unknown error class"
}

// lamFatal prints an error as LAM's MPI_ERRORS_ARE_FATAL did,
//
//	MPI_Send: invalid rank: rank 9 out of range (rank 0, MPI_COMM_WORLD)
//	Rank (0, MPI_COMM_WORLD): Call stack within LAM:
//	Rank (0, MPI_COMM_WORLD):  - MPI_Send()
//	Rank (0, MPI_COMM_WORLD):  - main()
//
// (the function named when the error says which), and aborts the job.
func lamFatal(c *mpi.Comm, err error) {
	cls := code(err)
	fn, detail := splitFn(errText(err), c.Name())
	if fn == "" {
		fn = mpiCaller()
	}
	text := classText(cls)
	if fn != "" {
		text = fn + ": " + text
	}
	if detail != "" && detail != classText(cls) {
		text += ": " + detail
	}
	name := c.Name()
	if name == "" {
		name = fmt.Sprintf("comm %d", commHandle(c))
	}
	world := mpi.World.Rank()
	var b strings.Builder
	fmt.Fprintf(&b, "%s (rank %d, %s)\n", text, c.Rank(), name)
	if fn != "" {
		fmt.Fprintf(&b, "Rank (%d, MPI_COMM_WORLD): Call stack within LAM:\n", world)
		fmt.Fprintf(&b, "Rank (%d, MPI_COMM_WORLD):  - %s()\n", world, fn)
		fmt.Fprintf(&b, "Rank (%d, MPI_COMM_WORLD):  - main()\n", world)
	}
	C.fflush(nil) // what the program printed comes first
	os.Stderr.WriteString(b.String())
	mpi.AbortOn(c, int(cls), strings.TrimSuffix(strings.SplitN(b.String(), "\n", 2)[0], "\n"), err)
}

// splitFn takes the MPI function an error's text begins with from it:
// "MPI_Send: rank 9 …" is MPI_Send and "rank 9 …". The name of the
// communicator comm before it ("MPI_COMM_WORLD: MPI_Bcast: …", a
// collective's error) is dropped, since the message names the
// communicator at its end.
func splitFn(detail, comm string) (fn, rest string) {
	if comm != "" {
		detail = strings.TrimPrefix(detail, comm+": ")
	}
	i := strings.Index(detail, ": ")
	if !strings.HasPrefix(detail, "MPI_") || i < 0 || strings.ContainsAny(detail[:i], " ") {
		return "", detail
	}
	return detail[:i], detail[i+2:]
}

// mpiCaller is the MPI function the C program called that is on the
// stack (capi_Send and capiGo_Send are MPI_Send), or "" if none is: the error path finds
// out which call failed this way, so the fast path records nothing.
func mpiCaller() string {
	var pcs [64]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs[:])])
	name := ""
	for {
		f, more := frames.Next()
		for _, prefix := range []string{".capi_", ".capiGo_"} {
			if i := strings.LastIndex(f.Function, prefix); i >= 0 {
				name = "MPI_" + f.Function[i+len(prefix):] // the outermost one
			}
		}
		if !more {
			return name
		}
	}
}

// errhArg is the error handler of handle h.
func errhArg(c *mpi.Comm, h C.MPI_Errhandler, fn string) (*mpi.Errhandler, C.int) {
	e := errhandlers.get(int(h))
	if e == nil {
		return nil, fail(c, mpi.ErrArg, fn+": invalid error handler")
	}
	return e, C.MPI_SUCCESS
}

//export capi_Comm_create_errhandler
func capi_Comm_create_errhandler(function *C.MPI_Comm_errhandler_function, errhandler *C.MPI_Errhandler) C.int {
	return createErrhandler(function, errhandler, "MPI_Comm_create_errhandler")
}

//export capi_Errhandler_create
func capi_Errhandler_create(function *C.MPI_Handler_function, errhandler *C.MPI_Errhandler) C.int {
	return createErrhandler((*C.MPI_Comm_errhandler_function)(unsafe.Pointer(function)), errhandler, "MPI_Errhandler_create")
}

func createErrhandler(function *C.MPI_Comm_errhandler_function, errhandler *C.MPI_Errhandler, fn string) C.int {
	if function == nil || errhandler == nil {
		return fail(nil, mpi.ErrArg, fn+": NULL function or errhandler")
	}
	*errhandler = C.MPI_Errhandler(errhandlers.add(newCHandler(function)))
	errhRef(*errhandler, 1)
	return C.MPI_SUCCESS
}

//export capi_Comm_set_errhandler
func capi_Comm_set_errhandler(comm C.MPI_Comm, errhandler C.MPI_Errhandler) C.int {
	return setErrhandler(comm, errhandler, "MPI_Comm_set_errhandler")
}

//export capi_Errhandler_set
func capi_Errhandler_set(comm C.MPI_Comm, errhandler C.MPI_Errhandler) C.int {
	return setErrhandler(comm, errhandler, "MPI_Errhandler_set")
}

func setErrhandler(comm C.MPI_Comm, errhandler C.MPI_Errhandler, fn string) C.int {
	c, rc := commArg(comm, fn)
	if c == nil {
		return rc
	}
	h, rc := errhArg(c, errhandler, fn)
	if h == nil {
		return rc
	}
	if err := c.SetErrhandler(h); err != nil {
		return fail(c, mpi.Class(err), fn+": "+err.Error())
	}
	return C.MPI_SUCCESS
}

//export capi_Comm_get_errhandler
func capi_Comm_get_errhandler(comm C.MPI_Comm, errhandler *C.MPI_Errhandler) C.int {
	return getErrhandler(comm, errhandler, "MPI_Comm_get_errhandler")
}

//export capi_Errhandler_get
func capi_Errhandler_get(comm C.MPI_Comm, errhandler *C.MPI_Errhandler) C.int {
	return getErrhandler(comm, errhandler, "MPI_Errhandler_get")
}

func getErrhandler(comm C.MPI_Comm, errhandler *C.MPI_Errhandler, fn string) C.int {
	c, rc := commArg(comm, fn)
	if c == nil {
		return rc
	}
	if errhandler == nil {
		return fail(c, mpi.ErrArg, fn+": NULL errhandler")
	}
	*errhandler = errhandlerHandle(c.Errhandler())
	if *errhandler > C.MPI_ERRORS_RETURN {
		errhRef(*errhandler, 1)
	}
	return C.MPI_SUCCESS
}

//export capi_Errhandler_free
func capi_Errhandler_free(errhandler *C.MPI_Errhandler) C.int {
	if errhandler == nil || errhandlers.get(int(*errhandler)) == nil {
		return fail(nil, mpi.ErrArg, "MPI_Errhandler_free: invalid error handler")
	}
	// The predefined handlers stay (a handle MPI_Comm_get_errhandler
	// returned may be freed); a user's handler lives on in the
	// communicators that use it.
	if *errhandler > C.MPI_ERRORS_RETURN && errhRef(*errhandler, -1) == 0 {
		errhandlers.remove(int(*errhandler))
	}
	*errhandler = C.MPI_ERRHANDLER_NULL
	return C.MPI_SUCCESS
}

//export capi_Comm_call_errhandler
func capi_Comm_call_errhandler(comm C.MPI_Comm, errorcode C.int) C.int {
	c, rc := commArg(comm, "MPI_Comm_call_errhandler")
	if c == nil {
		return rc
	}
	g, ok := goClass(errorcode)
	if !ok {
		g = mpi.ErrOther
	}
	c.CallErrhandler(&mpi.Error{Class: g, Msg: "MPI_Comm_call_errhandler: error code " + fmt.Sprint(int(errorcode))})
	return C.MPI_SUCCESS
}
