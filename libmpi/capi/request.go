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

// requests is the table of MPI_Request handles (0 is MPI_REQUEST_NULL);
// a slot's keep flag says the request is persistent: its handle stays
// when it completes.
var requests table[mpi.Request]

// reqSlot is one entry of the request table.
type reqSlot = slot[mpi.Request]

// reqAt returns the slot of handle h, or nil if h names no request.
func reqAt(h C.MPI_Request) *reqSlot { return requests.entry(int(h)) }

// putRequest stores the handle of a new request in *out (MPI_REQUEST_NULL
// if the call failed) and returns the call's code. Every C call that
// makes a request (point-to-point, probes, collectives) ends with it.
func putRequest(out *C.MPI_Request, r *mpi.Request, persistent bool, err error) C.int {
	if err != nil || r == nil {
		*out = C.MPI_REQUEST_NULL
		return code(err)
	}
	*out = C.MPI_Request(requests.addKeep(r, persistent))
	return C.MPI_SUCCESS
}

// done is what happens to a request's handle when the request completes
// in a Wait or Test call: a nonpersistent request is freed and its
// handle becomes MPI_REQUEST_NULL; a persistent one stays, inactive.
func done(p *C.MPI_Request, sl *reqSlot) {
	if sl != nil && !sl.keep.Load() {
		requests.remove(int(*p))
		*p = C.MPI_REQUEST_NULL
	}
}

// emptyStatus stores the status of a null or inactive request.
func emptyStatus(p *C.MPI_Status) {
	if p != nil {
		*p = C.MPI_Status{MPI_SOURCE: C.MPI_ANY_SOURCE, MPI_TAG: C.MPI_ANY_TAG}
	}
}

// reqScratch holds the []*mpi.Request of the multi-request calls, so
// that Waitall and friends allocate nothing of their own.
var reqScratch = sync.Pool{New: func() any { return new([]*mpi.Request) }}

// requestArray looks up n handles of a C array (rs[i] nil for
// MPI_REQUEST_NULL); rc is the error code if one names no request. The
// caller gives the scratch sp back with putScratch.
func requestArray(arr *C.MPI_Request, n C.int, fn string) (handles []C.MPI_Request, rs []*mpi.Request, sp *[]*mpi.Request, rc C.int) {
	if n < 0 {
		return nil, nil, nil, fail(nil, mpi.ErrCount, fn+": negative count")
	}
	if n > 0 && arr == nil {
		return nil, nil, nil, fail(nil, mpi.ErrRequest, fn+": NULL array of requests")
	}
	sp = reqScratch.Get().(*[]*mpi.Request)
	if cap(*sp) < int(n) {
		*sp = make([]*mpi.Request, n)
	}
	rs = (*sp)[:n]
	if n > 0 {
		handles = unsafe.Slice(arr, n)
	}
	for i, h := range handles {
		if h == C.MPI_REQUEST_NULL {
			rs[i] = nil
			continue
		}
		sl := reqAt(h)
		if sl == nil {
			putScratch(sp, rs)
			return nil, nil, nil, fail(nil, mpi.ErrRequest, fn+": invalid request")
		}
		rs[i] = sl.v.Load()
	}
	return handles, rs, sp, C.MPI_SUCCESS
}

func allNull(rs []*mpi.Request) bool {
	for _, r := range rs {
		if r != nil {
			return false
		}
	}
	return true
}

func putScratch(sp *[]*mpi.Request, rs []*mpi.Request) {
	clear(rs)
	reqScratch.Put(sp)
}

// statusAt is the i'th status of a C array (nil for MPI_STATUSES_IGNORE).
func statusAt(sts *C.MPI_Status, i int) *C.MPI_Status {
	if sts == nil {
		return nil
	}
	return (*C.MPI_Status)(unsafe.Add(unsafe.Pointer(sts), uintptr(i)*unsafe.Sizeof(*sts)))
}

// reqArg is the request of handle *p; sl is nil for MPI_REQUEST_NULL.
func reqArg(p *C.MPI_Request, fn string) (sl *reqSlot, rc C.int) {
	if p == nil {
		return nil, fail(nil, mpi.ErrRequest, fn+": NULL request")
	}
	if *p == C.MPI_REQUEST_NULL {
		return nil, C.MPI_SUCCESS
	}
	if sl = reqAt(*p); sl == nil {
		return nil, fail(nil, mpi.ErrRequest, fn+": invalid request")
	}
	return sl, C.MPI_SUCCESS
}

//export capi_Wait
func capi_Wait(request *C.MPI_Request, status *C.MPI_Status) C.int {
	sl, rc := reqArg(request, "MPI_Wait")
	if sl == nil {
		if rc == C.MPI_SUCCESS {
			emptyStatus(status)
		}
		return rc
	}
	s, err := sl.v.Load().Wait()
	putStatus(status, s, err)
	done(request, sl)
	return code(err)
}

//export capi_Test
func capi_Test(request *C.MPI_Request, flag *C.int, status *C.MPI_Status) C.int {
	if flag == nil {
		return fail(nil, mpi.ErrArg, "MPI_Test: NULL flag")
	}
	sl, rc := reqArg(request, "MPI_Test")
	if sl == nil {
		if rc == C.MPI_SUCCESS {
			*flag = 1
			emptyStatus(status)
		}
		return rc
	}
	s, ok, err := sl.v.Load().Test()
	*flag = cBool(ok)
	if !ok {
		return code(err)
	}
	putStatus(status, s, err)
	done(request, sl)
	return code(err)
}

//export capi_Request_get_status
func capi_Request_get_status(request C.MPI_Request, flag *C.int, status *C.MPI_Status) C.int {
	if flag == nil {
		return fail(nil, mpi.ErrArg, "MPI_Request_get_status: NULL flag")
	}
	if request == C.MPI_REQUEST_NULL {
		*flag = 1
		emptyStatus(status)
		return C.MPI_SUCCESS
	}
	sl := reqAt(request)
	if sl == nil {
		return fail(nil, mpi.ErrRequest, "MPI_Request_get_status: invalid request")
	}
	s, ok, err := mpi.RequestGetStatus(sl.v.Load())
	*flag = cBool(ok)
	if ok {
		putStatus(status, s, err)
	}
	if err != nil { // the request failed: as MPI_Test reports it
		return fail(nil, mpi.Class(err), "MPI_Request_get_status: "+errText(err))
	}
	return C.MPI_SUCCESS
}

//export capi_Request_free
func capi_Request_free(request *C.MPI_Request) C.int {
	sl, rc := reqArg(request, "MPI_Request_free")
	if sl == nil {
		if rc == C.MPI_SUCCESS {
			return fail(nil, mpi.ErrRequest, "MPI_Request_free: MPI_REQUEST_NULL")
		}
		return rc
	}
	sl.v.Load().Free()
	requests.remove(int(*request))
	*request = C.MPI_REQUEST_NULL
	return C.MPI_SUCCESS
}

//export capi_Cancel
func capi_Cancel(request *C.MPI_Request) C.int {
	sl, rc := reqArg(request, "MPI_Cancel")
	if sl == nil {
		if rc == C.MPI_SUCCESS {
			return fail(nil, mpi.ErrRequest, "MPI_Cancel: MPI_REQUEST_NULL")
		}
		return rc
	}
	return code(sl.v.Load().Cancel())
}

//export capi_Test_cancelled
func capi_Test_cancelled(status *C.MPI_Status, flag *C.int) C.int {
	if status == nil || flag == nil {
		return fail(nil, mpi.ErrArg, "MPI_Test_cancelled: NULL status or flag")
	}
	*flag = cBool(status.st_cancelled != 0)
	return C.MPI_SUCCESS
}

//export capi_Start
func capi_Start(request *C.MPI_Request) C.int {
	sl, rc := reqArg(request, "MPI_Start")
	if sl == nil {
		if rc == C.MPI_SUCCESS {
			return fail(nil, mpi.ErrRequest, "MPI_Start: MPI_REQUEST_NULL")
		}
		return rc
	}
	if !sl.keep.Load() {
		return fail(nil, mpi.ErrRequest, "MPI_Start: not a persistent request")
	}
	return code(sl.v.Load().Start())
}

//export capi_Startall
func capi_Startall(count C.int, arr *C.MPI_Request) C.int {
	handles, rs, sp, rc := requestArray(arr, count, "MPI_Startall")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	defer putScratch(sp, rs)
	for i, r := range rs {
		if r == nil || !reqAt(handles[i]).keep.Load() {
			return fail(nil, mpi.ErrRequest, "MPI_Startall: not a persistent request")
		}
	}
	return code(mpi.Startall(rs...))
}

//export capi_Waitall
func capi_Waitall(count C.int, arr *C.MPI_Request, statuses *C.MPI_Status) C.int {
	handles, rs, sp, rc := requestArray(arr, count, "MPI_Waitall")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if allNull(rs) { // nothing to wait for: no Go call, no allocation
		finishAll(handles, rs, nil, statuses)
		putScratch(sp, rs)
		return C.MPI_SUCCESS
	}
	sts, err := mpi.Waitall(rs...)
	finishAll(handles, rs, sts, statuses)
	putScratch(sp, rs)
	return code(err)
}

// finishAll stores the statuses of completed requests and frees their
// handles (multi-completion calls: each status has its MPI_ERROR).
func finishAll(handles []C.MPI_Request, rs []*mpi.Request, sts []mpi.Status, statuses *C.MPI_Status) {
	for i, r := range rs {
		if statuses != nil {
			if r == nil {
				emptyStatus(statusAt(statuses, i))
			} else {
				putStatus(statusAt(statuses, i), sts[i], sts[i].Err)
			}
		}
		if r != nil {
			done(&handles[i], reqAt(handles[i]))
		}
	}
}

//export capi_Testall
func capi_Testall(count C.int, arr *C.MPI_Request, flag *C.int, statuses *C.MPI_Status) C.int {
	if flag == nil {
		return fail(nil, mpi.ErrArg, "MPI_Testall: NULL flag")
	}
	handles, rs, sp, rc := requestArray(arr, count, "MPI_Testall")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	sts, ok, err := mpi.Testall(rs...)
	*flag = cBool(ok)
	if ok {
		finishAll(handles, rs, sts, statuses)
	}
	putScratch(sp, rs)
	return code(err)
}

//export capi_Waitany
func capi_Waitany(count C.int, arr *C.MPI_Request, index *C.int, status *C.MPI_Status) C.int {
	if index == nil {
		return fail(nil, mpi.ErrArg, "MPI_Waitany: NULL index")
	}
	handles, rs, sp, rc := requestArray(arr, count, "MPI_Waitany")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	i, s, err := mpi.Waitany(rs...)
	anyDone(handles, i, s, err, index, status)
	putScratch(sp, rs)
	return code(err)
}

// anyDone reports the request Waitany or Testany completed (index i, or
// MPI_UNDEFINED with an empty status when there was none to wait for).
func anyDone(handles []C.MPI_Request, i int, s mpi.Status, err error, index *C.int, status *C.MPI_Status) {
	if i == mpi.Undefined || i < 0 {
		*index = C.MPI_UNDEFINED
		emptyStatus(status)
		return
	}
	*index = C.int(i)
	putStatus(status, s, err)
	done(&handles[i], reqAt(handles[i]))
}

//export capi_Testany
func capi_Testany(count C.int, arr *C.MPI_Request, index *C.int, flag *C.int, status *C.MPI_Status) C.int {
	if index == nil || flag == nil {
		return fail(nil, mpi.ErrArg, "MPI_Testany: NULL index or flag")
	}
	handles, rs, sp, rc := requestArray(arr, count, "MPI_Testany")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	i, s, ok, err := mpi.Testany(rs...)
	*flag = cBool(ok)
	if ok {
		anyDone(handles, i, s, err, index, status)
	} else {
		*index = C.MPI_UNDEFINED
	}
	putScratch(sp, rs)
	return code(err)
}

//export capi_Waitsome
func capi_Waitsome(incount C.int, arr *C.MPI_Request, outcount *C.int, indices *C.int, statuses *C.MPI_Status) C.int {
	return some(incount, arr, outcount, indices, statuses, true, "MPI_Waitsome")
}

//export capi_Testsome
func capi_Testsome(incount C.int, arr *C.MPI_Request, outcount *C.int, indices *C.int, statuses *C.MPI_Status) C.int {
	return some(incount, arr, outcount, indices, statuses, false, "MPI_Testsome")
}

// some is Waitsome (wait) and Testsome: outcount is MPI_UNDEFINED when
// no request is active; a failed request makes the call return
// MPI_ERR_IN_STATUS with the request's error in its status.
func some(incount C.int, arr *C.MPI_Request, outcount *C.int, indices *C.int, statuses *C.MPI_Status, wait bool, fn string) C.int {
	if outcount == nil || (incount > 0 && indices == nil) {
		return fail(nil, mpi.ErrArg, fn+": NULL outcount or indices")
	}
	handles, rs, sp, rc := requestArray(arr, incount, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	defer putScratch(sp, rs)
	active := false
	for _, r := range rs {
		active = active || r.Active()
	}
	if !active {
		*outcount = C.MPI_UNDEFINED
		return C.MPI_SUCCESS
	}
	var idx []int
	var sts []mpi.Status
	var err error
	if wait {
		idx, sts, err = mpi.Waitsome(rs...)
	} else {
		idx, sts, err = mpi.Testsome(rs...)
	}
	*outcount = C.int(len(idx))
	var out []C.int
	if len(idx) > 0 {
		out = unsafe.Slice(indices, len(idx))
	}
	for k, i := range idx {
		out[k] = C.int(i)
		putStatus(statusAt(statuses, k), sts[k], sts[k].Err)
		done(&handles[i], reqAt(handles[i]))
	}
	if err != nil {
		return C.MPI_ERR_IN_STATUS
	}
	return C.MPI_SUCCESS
}
