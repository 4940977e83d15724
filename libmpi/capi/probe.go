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

// The message table (MPI_Message, from the matched probes): 0 is
// MPI_MESSAGE_NULL and 1 MPI_MESSAGE_NO_PROC, the message of a probe of
// MPI_PROC_NULL.
var messages = func() *table[mpi.Message] {
	t := new(table[mpi.Message])
	t.set(int(C.MPI_MESSAGE_NO_PROC), mpi.MessageNoProc)
	return t
}()

//export capi_Probe
func capi_Probe(source, tag C.int, comm C.MPI_Comm, status *C.MPI_Status) C.int {
	c, rc := commArg(comm, "MPI_Probe")
	if c == nil {
		return rc
	}
	s, err := mpi.Probe(c, int(source), int(tag))
	if err == nil {
		putStatus(status, s, nil)
	}
	return code(err)
}

//export capi_Iprobe
func capi_Iprobe(source, tag C.int, comm C.MPI_Comm, flag *C.int, status *C.MPI_Status) C.int {
	c, rc := commOut(comm, flag, "MPI_Iprobe", "flag")
	if c == nil {
		return rc
	}
	s, ok, err := mpi.Iprobe(c, int(source), int(tag))
	*flag = cBool(ok)
	if ok && err == nil {
		putStatus(status, s, nil)
	}
	return code(err)
}

// putMessage stores the handle of a message a matched probe took.
func putMessage(out *C.MPI_Message, m *mpi.Message) {
	if m == mpi.MessageNoProc {
		*out = C.MPI_MESSAGE_NO_PROC
		return
	}
	*out = C.MPI_Message(messages.add(m))
}

//export capi_Mprobe
func capi_Mprobe(source, tag C.int, comm C.MPI_Comm, message *C.MPI_Message, status *C.MPI_Status) C.int {
	c, rc := commOut(comm, message, "MPI_Mprobe", "message")
	if c == nil {
		return rc
	}
	m, s, err := mpi.Mprobe(c, int(source), int(tag))
	if err != nil {
		*message = C.MPI_MESSAGE_NULL
		return code(err)
	}
	putMessage(message, m)
	putStatus(status, s, nil)
	return C.MPI_SUCCESS
}

//export capi_Improbe
func capi_Improbe(source, tag C.int, comm C.MPI_Comm, flag *C.int, message *C.MPI_Message, status *C.MPI_Status) C.int {
	c, rc := commArg(comm, "MPI_Improbe")
	if c == nil {
		return rc
	}
	if flag == nil || message == nil {
		return fail(c, mpi.ErrArg, "MPI_Improbe: NULL flag or message")
	}
	m, s, ok, err := mpi.Improbe(c, int(source), int(tag))
	*flag = cBool(ok)
	if err != nil || !ok {
		*message = C.MPI_MESSAGE_NULL
		return code(err)
	}
	putMessage(message, m)
	putStatus(status, s, nil)
	return C.MPI_SUCCESS
}

// messageArg takes the message of handle *p for a receive: the handle
// becomes MPI_MESSAGE_NULL, as MPI says.
func messageArg(p *C.MPI_Message, fn string) (*mpi.Message, C.int) {
	if p == nil {
		return nil, fail(nil, mpi.ErrArg, fn+": NULL message")
	}
	h := *p
	m := messages.get(int(h))
	if m == nil {
		return nil, fail(nil, mpi.ErrRequest, fn+": invalid message (MPI_MESSAGE_NULL or received already)")
	}
	if h != C.MPI_MESSAGE_NO_PROC {
		messages.remove(int(h))
	}
	*p = C.MPI_MESSAGE_NULL
	return m, C.MPI_SUCCESS
}

// messageBuf is the Go view of a matched receive's buffer (walk is the
// datatype to unpack into it, nil for a basic one); the message's
// communicator is not known here, so errors go to MPI_COMM_WORLD.
func messageBuf(buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, fn string) (b []byte, walk *mpi.Datatype, n int, rc C.int) {
	return bufArgs(nil, buf, count, datatype, fn)
}

//export capi_Mrecv
func capi_Mrecv(buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, message *C.MPI_Message, status *C.MPI_Status) C.int {
	b, walk, n, rc := messageBuf(buf, count, datatype, "MPI_Mrecv")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	m, rc := messageArg(message, "MPI_Mrecv")
	if m == nil {
		return rc
	}
	var s mpi.Status
	var err error
	if walk != nil {
		s, err = mpi.MrecvType(b, n, walk, m)
	} else {
		s, err = mpi.Mrecv(b, m)
	}
	putStatus(status, s, err)
	return code(err)
}

//export capi_Imrecv
func capi_Imrecv(buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, message *C.MPI_Message, request *C.MPI_Request) C.int {
	if request == nil {
		return fail(nil, mpi.ErrRequest, "MPI_Imrecv: NULL request")
	}
	*request = C.MPI_REQUEST_NULL
	b, walk, n, rc := messageBuf(buf, count, datatype, "MPI_Imrecv")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	m, rc := messageArg(message, "MPI_Imrecv")
	if m == nil {
		return rc
	}
	var r *mpi.Request
	var err error
	if walk != nil {
		r, err = mpi.ImrecvType(b, n, walk, m)
	} else {
		r, err = mpi.Imrecv(b, m)
	}
	return putRequest(request, r, false, err)
}
