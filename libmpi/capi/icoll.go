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

// The nonblocking collectives (MPI-3 §5.12): the blocking forms' code
// (coll.go) with a request to return, started by the Go API's I*
// functions. Their requests are completed by MPI_Wait, MPI_Test and the
// rest like any other. Derived datatypes are not supported here yet,
// except by MPI_Ialltoallw (the Go API has no nonblocking datatype forms
// of the others).

// outReq is where a nonblocking collective's request goes.
type outReq struct{ p *C.MPI_Request }

// set stores the request of a collective that started (MPI_REQUEST_NULL
// if it did not: err went through the handler).
func (o outReq) set(r *mpi.Request, err error) C.int {
	return putRequest(o.p, r, false, err)
}

// nonblocking is the nonblocking reductions of a reducer.
type nonblocking interface {
	ireduce(c *mpi.Comm, s, r []byte, op *mpi.Op, root int) (*mpi.Request, error)
	iallreduce(c *mpi.Comm, s, r []byte, op *mpi.Op) (*mpi.Request, error)
	ireduceScatter(c *mpi.Comm, s, r []byte, counts []int, op *mpi.Op) (*mpi.Request, error)
	ireduceScatterBlock(c *mpi.Comm, s, r []byte, op *mpi.Op) (*mpi.Request, error)
	iscan(c *mpi.Comm, s, r []byte, op *mpi.Op, ex bool) (*mpi.Request, error)
}

func (typed[T]) ireduce(c *mpi.Comm, s, r []byte, op *mpi.Op, root int) (*mpi.Request, error) {
	return mpi.Ireduce(c, view[T](s), view[T](r), op, root)
}

func (typed[T]) iallreduce(c *mpi.Comm, s, r []byte, op *mpi.Op) (*mpi.Request, error) {
	return mpi.Iallreduce(c, view[T](s), view[T](r), op)
}

func (typed[T]) ireduceScatter(c *mpi.Comm, s, r []byte, counts []int, op *mpi.Op) (*mpi.Request, error) {
	return mpi.IreduceScatter(c, view[T](s), view[T](r), counts, op)
}

func (typed[T]) ireduceScatterBlock(c *mpi.Comm, s, r []byte, op *mpi.Op) (*mpi.Request, error) {
	return mpi.IreduceScatterBlock(c, view[T](s), view[T](r), op)
}

func (typed[T]) iscan(c *mpi.Comm, s, r []byte, op *mpi.Op, ex bool) (*mpi.Request, error) {
	if ex {
		return mpi.Iexscan(c, view[T](s), view[T](r), op)
	}
	return mpi.Iscan(c, view[T](s), view[T](r), op)
}

//export capi_Ibarrier
func capi_Ibarrier(comm C.MPI_Comm, request *C.MPI_Request) C.int {
	if request == nil {
		return fail(nil, mpi.ErrArg, "MPI_Ibarrier: NULL request")
	}
	return barrierCall(comm, request)
}

//export capi_Ibcast
func capi_Ibcast(buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, root C.int, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	if request == nil {
		return fail(nil, mpi.ErrArg, "MPI_Ibcast: NULL request")
	}
	return bcastCall(buf, count, datatype, root, comm, request)
}

//export capi_Igather
func capi_Igather(sendbuf unsafe.Pointer, sendcount C.int, sendtype C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.int, recvtype C.MPI_Datatype, root C.int, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	if request == nil {
		return fail(nil, mpi.ErrArg, "MPI_Igather: NULL request")
	}
	return gatherCall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request)
}

//export capi_Iscatter
func capi_Iscatter(sendbuf unsafe.Pointer, sendcount C.int, sendtype C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.int, recvtype C.MPI_Datatype, root C.int, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	if request == nil {
		return fail(nil, mpi.ErrArg, "MPI_Iscatter: NULL request")
	}
	return scatterCall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request)
}

//export capi_Igatherv
func capi_Igatherv(sendbuf unsafe.Pointer, sendcount C.int, sendtype C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts, displs *C.int, recvtype C.MPI_Datatype, root C.int, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	if request == nil {
		return fail(nil, mpi.ErrArg, "MPI_Igatherv: NULL request")
	}
	return gathervCall(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request)
}

//export capi_Iscatterv
func capi_Iscatterv(sendbuf unsafe.Pointer, sendcounts, displs *C.int, sendtype C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.int, recvtype C.MPI_Datatype, root C.int, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	if request == nil {
		return fail(nil, mpi.ErrArg, "MPI_Iscatterv: NULL request")
	}
	return scattervCall(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, request)
}

//export capi_Iallgather
func capi_Iallgather(sendbuf unsafe.Pointer, sendcount C.int, sendtype C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.int, recvtype C.MPI_Datatype, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	if request == nil {
		return fail(nil, mpi.ErrArg, "MPI_Iallgather: NULL request")
	}
	return allgatherCall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request)
}

//export capi_Ialltoall
func capi_Ialltoall(sendbuf unsafe.Pointer, sendcount C.int, sendtype C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.int, recvtype C.MPI_Datatype, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	if request == nil {
		return fail(nil, mpi.ErrArg, "MPI_Ialltoall: NULL request")
	}
	return alltoallCall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request)
}

//export capi_Iallgatherv
func capi_Iallgatherv(sendbuf unsafe.Pointer, sendcount C.int, sendtype C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts, displs *C.int, recvtype C.MPI_Datatype, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	if request == nil {
		return fail(nil, mpi.ErrArg, "MPI_Iallgatherv: NULL request")
	}
	return allgathervCall(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request)
}

//export capi_Ialltoallv
func capi_Ialltoallv(sendbuf unsafe.Pointer, sendcounts, sdispls *C.int, sendtype C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts, rdispls *C.int, recvtype C.MPI_Datatype, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	if request == nil {
		return fail(nil, mpi.ErrArg, "MPI_Ialltoallv: NULL request")
	}
	return alltoallvCall(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request)
}

//export capi_Ialltoallw
func capi_Ialltoallw(sendbuf unsafe.Pointer, sendcounts, sdispls *C.int, sendtypes *C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts, rdispls *C.int, recvtypes *C.MPI_Datatype, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	if request == nil {
		return fail(nil, mpi.ErrArg, "MPI_Ialltoallw: NULL request")
	}
	return alltoallwCall(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, request)
}

//export capi_Ireduce
func capi_Ireduce(sendbuf, recvbuf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, op C.MPI_Op, root C.int, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	if request == nil {
		return fail(nil, mpi.ErrArg, "MPI_Ireduce: NULL request")
	}
	return reduceCall(sendbuf, recvbuf, count, datatype, op, root, comm, request)
}

//export capi_Iallreduce
func capi_Iallreduce(sendbuf, recvbuf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, op C.MPI_Op, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	if request == nil {
		return fail(nil, mpi.ErrArg, "MPI_Iallreduce: NULL request")
	}
	return allreduceCall(sendbuf, recvbuf, count, datatype, op, comm, request)
}

//export capi_Ireduce_scatter
func capi_Ireduce_scatter(sendbuf, recvbuf unsafe.Pointer, recvcounts *C.int, datatype C.MPI_Datatype, op C.MPI_Op, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	if request == nil {
		return fail(nil, mpi.ErrArg, "MPI_Ireduce_scatter: NULL request")
	}
	return reduceScatterCall(sendbuf, recvbuf, recvcounts, datatype, op, comm, request)
}

//export capi_Ireduce_scatter_block
func capi_Ireduce_scatter_block(sendbuf, recvbuf unsafe.Pointer, recvcount C.int, datatype C.MPI_Datatype, op C.MPI_Op, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	if request == nil {
		return fail(nil, mpi.ErrArg, "MPI_Ireduce_scatter_block: NULL request")
	}
	return reduceScatterBlockCall(sendbuf, recvbuf, recvcount, datatype, op, comm, request)
}

//export capi_Iscan
func capi_Iscan(sendbuf, recvbuf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, op C.MPI_Op, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	if request == nil {
		return fail(nil, mpi.ErrArg, "MPI_Iscan: NULL request")
	}
	return scanCall(sendbuf, recvbuf, count, datatype, op, comm, false, "MPI_Iscan", request)
}

//export capi_Iexscan
func capi_Iexscan(sendbuf, recvbuf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, op C.MPI_Op, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	if request == nil {
		return fail(nil, mpi.ErrArg, "MPI_Iexscan: NULL request")
	}
	return scanCall(sendbuf, recvbuf, count, datatype, op, comm, true, "MPI_Iexscan", request)
}
