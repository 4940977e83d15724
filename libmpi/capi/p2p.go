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

// capiGo_Send is MPI_Send's Go path (fast.c's capi_Send tries the C fast
// path first).
//
//export capiGo_Send
func capiGo_Send(buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, dest, tag C.int, comm C.MPI_Comm) C.int {
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

// capiGo_Recv is MPI_Recv's Go path (fast.c's capi_Recv tries the C fast
// path first).
//
//export capiGo_Recv
func capiGo_Recv(buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, source, tag C.int, comm C.MPI_Comm, status *C.MPI_Status) C.int {
	return recv("MPI_Recv", buf, count, datatype, source, tag, comm, status)
}

// recv is a blocking receive for the MPI call fn (MPI_Recv, a
// Sendrecv's receive).
func recv(fn string, buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, source, tag C.int, comm C.MPI_Comm, status *C.MPI_Status) C.int {
	c, rc := commArg(comm, fn)
	if c == nil {
		return rc
	}
	b, walk, n, rc := bufArgs(c, buf, count, datatype, fn)
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
		*count = intCount(n / int64(t.size))
	}
	return C.MPI_SUCCESS
}

// The send modes of the C calls.
type sendMode int

const (
	standard sendMode = iota
	buffered
	synchronous
	ready
)

var sendNames = [...][3]string{ // blocking, nonblocking, persistent
	standard:    {"MPI_Send", "MPI_Isend", "MPI_Send_init"},
	buffered:    {"MPI_Bsend", "MPI_Ibsend", "MPI_Bsend_init"},
	synchronous: {"MPI_Ssend", "MPI_Issend", "MPI_Ssend_init"},
	ready:       {"MPI_Rsend", "MPI_Irsend", "MPI_Rsend_init"},
}

// sendBytes is the bytes a send of (b, n, walk) puts on the wire: b
// itself for a contiguous type; for a derived type (other than the
// standard-mode calls, which walk it themselves) the elements packed.
func sendBytes(c *mpi.Comm, b []byte, n int, walk *mpi.Datatype, fn string) ([]byte, C.int) {
	if walk == nil {
		return b, C.MPI_SUCCESS
	}
	out := make([]byte, mpi.PackSize(n, walk))
	pos := 0
	if err := mpi.Pack(b, n, walk, out, &pos); err != nil {
		return nil, fail(c, mpi.Class(err), fn+": "+err.Error())
	}
	return out[:pos], C.MPI_SUCCESS
}

// send is the blocking sends.
func send(mode sendMode, buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, dest, tag C.int, comm C.MPI_Comm) C.int {
	fn := sendNames[mode][0]
	c, rc := commArg(comm, fn)
	if c == nil {
		return rc
	}
	b, walk, n, rc := bufArgs(c, buf, count, datatype, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if walk != nil && mode == standard {
		return code(mpi.SendType(c, b, n, walk, int(dest), int(tag)))
	}
	if b, rc = sendBytes(c, b, n, walk, fn); rc != C.MPI_SUCCESS {
		return rc
	}
	var err error
	switch mode {
	case standard:
		err = mpi.Send(c, b, int(dest), int(tag))
	case buffered:
		err = mpi.Bsend(c, b, int(dest), int(tag))
	case synchronous:
		err = mpi.Ssend(c, b, int(dest), int(tag))
	case ready:
		err = mpi.Rsend(c, b, int(dest), int(tag))
	}
	return code(err)
}

// isend is the nonblocking (persistent false) and persistent sends.
func isend(mode sendMode, persistent bool, buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, dest, tag C.int, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	fn := sendNames[mode][1]
	if persistent {
		fn = sendNames[mode][2]
	}
	if request == nil {
		return fail(nil, mpi.ErrRequest, fn+": NULL request")
	}
	*request = C.MPI_REQUEST_NULL
	c, rc := commArg(comm, fn)
	if c == nil {
		return rc
	}
	b, walk, n, rc := bufArgs(c, buf, count, datatype, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if walk != nil && mode == standard && !persistent {
		r, err := mpi.IsendType(c, b, n, walk, int(dest), int(tag))
		return putRequest(request, r, false, err)
	}
	if walk != nil && persistent {
		// Each Start packs what the buffer holds then.
		var r *mpi.Request
		var err error
		switch mode {
		case standard:
			r, err = mpi.SendTypeInit(c, b, n, walk, int(dest), int(tag))
		case buffered:
			r, err = mpi.BsendTypeInit(c, b, n, walk, int(dest), int(tag))
		case synchronous:
			r, err = mpi.SsendTypeInit(c, b, n, walk, int(dest), int(tag))
		default:
			r, err = mpi.RsendTypeInit(c, b, n, walk, int(dest), int(tag))
		}
		return putRequest(request, r, true, err)
	}
	if b, rc = sendBytes(c, b, n, walk, fn); rc != C.MPI_SUCCESS {
		return rc
	}
	d, t := int(dest), int(tag)
	var r *mpi.Request
	var err error
	switch {
	case mode == standard && !persistent:
		r, err = mpi.Isend(c, b, d, t)
	case mode == buffered && !persistent:
		if r, err = mpi.Ibsend(c, b, d, t); r == nil && err == nil {
			// The Go API's Ibsend has nothing left to wait for and
			// returns no request; C programs get a real one, complete,
			// which they may Wait for or free (a send to MPI_PROC_NULL).
			r, err = mpi.Isend(c, []byte(nil), mpi.ProcNull, t)
		}
	case mode == synchronous && !persistent:
		r, err = mpi.Issend(c, b, d, t)
	case mode == ready && !persistent:
		r, err = mpi.Irsend(c, b, d, t)
	case mode == standard:
		r, err = mpi.SendInit(c, b, d, t)
	case mode == buffered:
		r, err = mpi.BsendInit(c, b, d, t)
	case mode == synchronous:
		r, err = mpi.SsendInit(c, b, d, t)
	default:
		r, err = mpi.RsendInit(c, b, d, t)
	}
	return putRequest(request, r, persistent, err)
}

//export capi_Bsend
func capi_Bsend(buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, dest, tag C.int, comm C.MPI_Comm) C.int {
	return send(buffered, buf, count, datatype, dest, tag, comm)
}

//export capi_Ssend
func capi_Ssend(buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, dest, tag C.int, comm C.MPI_Comm) C.int {
	return send(synchronous, buf, count, datatype, dest, tag, comm)
}

//export capi_Rsend
func capi_Rsend(buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, dest, tag C.int, comm C.MPI_Comm) C.int {
	return send(ready, buf, count, datatype, dest, tag, comm)
}

//export capi_Isend
func capi_Isend(buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, dest, tag C.int, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	return isend(standard, false, buf, count, datatype, dest, tag, comm, request)
}

//export capi_Ibsend
func capi_Ibsend(buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, dest, tag C.int, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	return isend(buffered, false, buf, count, datatype, dest, tag, comm, request)
}

//export capi_Issend
func capi_Issend(buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, dest, tag C.int, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	return isend(synchronous, false, buf, count, datatype, dest, tag, comm, request)
}

//export capi_Irsend
func capi_Irsend(buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, dest, tag C.int, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	return isend(ready, false, buf, count, datatype, dest, tag, comm, request)
}

//export capi_Send_init
func capi_Send_init(buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, dest, tag C.int, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	return isend(standard, true, buf, count, datatype, dest, tag, comm, request)
}

//export capi_Bsend_init
func capi_Bsend_init(buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, dest, tag C.int, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	return isend(buffered, true, buf, count, datatype, dest, tag, comm, request)
}

//export capi_Ssend_init
func capi_Ssend_init(buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, dest, tag C.int, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	return isend(synchronous, true, buf, count, datatype, dest, tag, comm, request)
}

//export capi_Rsend_init
func capi_Rsend_init(buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, dest, tag C.int, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	return isend(ready, true, buf, count, datatype, dest, tag, comm, request)
}

// irecv is Irecv (persistent false) and Recv_init.
func irecv(persistent bool, buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, source, tag C.int, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	fn := "MPI_Irecv"
	if persistent {
		fn = "MPI_Recv_init"
	}
	if request == nil {
		return fail(nil, mpi.ErrRequest, fn+": NULL request")
	}
	*request = C.MPI_REQUEST_NULL
	c, rc := commArg(comm, fn)
	if c == nil {
		return rc
	}
	b, walk, n, rc := bufArgs(c, buf, count, datatype, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	var r *mpi.Request
	var err error
	switch {
	case walk != nil && persistent:
		r, err = mpi.RecvTypeInit(c, b, n, walk, int(source), int(tag))
	case walk != nil:
		r, err = mpi.IrecvType(c, b, n, walk, int(source), int(tag))
	case persistent:
		r, err = mpi.RecvInit(c, b, int(source), int(tag))
	default:
		r, err = mpi.Irecv(c, b, int(source), int(tag))
	}
	return putRequest(request, r, persistent, err)
}

//export capi_Irecv
func capi_Irecv(buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, source, tag C.int, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	return irecv(false, buf, count, datatype, source, tag, comm, request)
}

//export capi_Recv_init
func capi_Recv_init(buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, source, tag C.int, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	return irecv(true, buf, count, datatype, source, tag, comm, request)
}

// capiGo_Sendrecv is MPI_Sendrecv's Go path: the whole call, or, when
// sent is not 0 (fast.c's capi_Sendrecv sent the message on the C fast
// path), its receive.
//
//export capiGo_Sendrecv
func capiGo_Sendrecv(sendbuf unsafe.Pointer, sendcount C.int, sendtype C.MPI_Datatype, dest, sendtag C.int,
	recvbuf unsafe.Pointer, recvcount C.int, recvtype C.MPI_Datatype, source, recvtag C.int, comm C.MPI_Comm, status *C.MPI_Status, sent C.int) C.int {
	if sent != 0 {
		return recv("MPI_Sendrecv", recvbuf, recvcount, recvtype, source, recvtag, comm, status)
	}
	c, rc := commArg(comm, "MPI_Sendrecv")
	if c == nil {
		return rc
	}
	sb, swalk, sn, rc := bufArgs(c, sendbuf, sendcount, sendtype, "MPI_Sendrecv")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	rb, rwalk, rn, rc := bufArgs(c, recvbuf, recvcount, recvtype, "MPI_Sendrecv")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	var s mpi.Status
	var err error
	if swalk == nil && rwalk == nil {
		s, err = mpi.Sendrecv(c, sb, int(dest), int(sendtag), rb, int(source), int(recvtag))
	} else {
		s, err = sendrecvType(c, sb, sn, swalk, int(dest), int(sendtag), rb, rn, rwalk, int(source), int(recvtag))
	}
	putStatus(status, s, err)
	return code(err)
}

// sendrecvType is Sendrecv with a derived datatype on either side: the
// send goes first, nonblocking, then the receive.
func sendrecvType(c *mpi.Comm, sb []byte, sn int, swalk *mpi.Datatype, dest, sendtag int, rb []byte, rn int, rwalk *mpi.Datatype, source, recvtag int) (mpi.Status, error) {
	var sr *mpi.Request
	var err error
	if swalk != nil {
		sr, err = mpi.IsendType(c, sb, sn, swalk, dest, sendtag)
	} else {
		sr, err = mpi.Isend(c, sb, dest, sendtag)
	}
	if err != nil {
		return mpi.Status{}, err
	}
	var s mpi.Status
	if rwalk != nil {
		s, err = mpi.RecvType(c, rb, rn, rwalk, source, recvtag)
	} else {
		s, err = mpi.Recv(c, rb, source, recvtag)
	}
	if _, serr := sr.Wait(); err == nil {
		err = serr
	}
	return s, err
}

//export capi_Sendrecv_replace
func capi_Sendrecv_replace(buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, dest, sendtag, source, recvtag C.int, comm C.MPI_Comm, status *C.MPI_Status) C.int {
	c, rc := commArg(comm, "MPI_Sendrecv_replace")
	if c == nil {
		return rc
	}
	b, walk, n, rc := bufArgs(c, buf, count, datatype, "MPI_Sendrecv_replace")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	var s mpi.Status
	var err error
	if walk == nil {
		s, err = mpi.SendrecvReplace(c, b, int(dest), int(sendtag), int(source), int(recvtag))
	} else {
		var packed []byte
		if packed, rc = sendBytes(c, b, n, walk, "MPI_Sendrecv_replace"); rc != C.MPI_SUCCESS {
			return rc
		}
		s, err = sendrecvType(c, packed, len(packed), nil, int(dest), int(sendtag), b, n, walk, int(source), int(recvtag))
	}
	putStatus(status, s, err)
	return code(err)
}
