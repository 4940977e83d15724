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

// The neighbour collectives, blocking and nonblocking (MPI_Ineighbor_*,
// whose requests MPI_Wait and the rest complete). Blocks of contiguous
// datatypes go to the Go API's byte forms as they lie in the C buffers;
// any other datatype goes through mpi.NeighborAlltoallw (or
// IneighborAlltoallw), which packs each block.

// degrees is the number of incoming and outgoing neighbours of this
// process in c's topology; ok is false when c has none (then the Go call
// raises MPI_ERR_TOPOLOGY itself).
func degrees(c *mpi.Comm) (in, out int, ok bool) {
	k, err := c.TopoTest()
	if err != nil {
		return 0, 0, false
	}
	switch k {
	case mpi.Cart:
		n, err := c.CartdimGet()
		return 2 * n, 2 * n, err == nil
	case mpi.Graph:
		n, err := c.GraphNeighborsCount(c.Rank())
		return n, n, err == nil
	case mpi.DistGraph:
		i, o, _, err := c.DistGraphNeighborsCount()
		return i, o, err == nil
	}
	return 0, 0, false
}

// neighborArgs checks what every neighbour collective takes.
func neighborArgs(comm C.MPI_Comm, sendbuf unsafe.Pointer, fn string) (c *mpi.Comm, in, out int, rc C.int) {
	c, rc = commArg(comm, fn)
	if c == nil {
		return nil, 0, 0, rc
	}
	if uintptr(sendbuf) == 1 { // MPI_IN_PLACE
		return nil, 0, 0, fail(c, mpi.ErrArg, fn+": MPI_IN_PLACE is not allowed")
	}
	in, out, ok := degrees(c)
	if !ok {
		// No topology: the Go API raises MPI_ERR_TOPOLOGY.
		return nil, 0, 0, code(mpi.NeighborAllgather[byte](c, nil, nil))
	}
	return c, in, out, C.MPI_SUCCESS
}

// fill is n copies of v.
func fill[T any](n int, v T) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// span is the bytes from a buffer's address that count elements of t at
// byte displacement displ touch.
func span(t *dtype, displ, count int) (int, error) {
	if count == 0 {
		return 0, nil
	}
	if displ < 0 || t.d.TrueLB() < 0 {
		return 0, &mpi.Error{Class: mpi.ErrArg, Msg: "a block before the buffer's address"}
	}
	return displ + t.d.TrueLB() + (count-1)*t.d.Extent() + t.d.TrueExtent(), nil
}

// wBuffer is the C buffer at p holding blocks of counts[i] elements of
// ts[i] at byte displacements displs[i], as Go sees it.
func wBuffer(p unsafe.Pointer, counts, displs []int, ts []*dtype) ([]byte, []*mpi.Datatype, error) {
	n := 0
	gts := make([]*mpi.Datatype, len(ts))
	for i, t := range ts {
		gts[i] = t.d
		if counts[i] < 0 {
			return nil, nil, &mpi.Error{Class: mpi.ErrCount, Msg: "negative count"}
		}
		s, err := span(t, displs[i], counts[i])
		if err != nil {
			return nil, nil, err
		}
		n = max(n, s)
	}
	if n > 0 && p == nil {
		return nil, nil, &mpi.Error{Class: mpi.ErrBuffer, Msg: "NULL buffer"}
	}
	return bytesAt(p, n), gts, nil
}

// neighborW runs a neighbour collective as MPI_Neighbor_alltoallw does.
func neighborW(c *mpi.Comm, sendbuf unsafe.Pointer, scounts, sdispls []int, stypes []*dtype,
	recvbuf unsafe.Pointer, rcounts, rdispls []int, rtypes []*dtype, request *C.MPI_Request, fn string) C.int {
	sb, sts, err := wBuffer(sendbuf, scounts, sdispls, stypes)
	if err != nil {
		return fail(c, mpi.Class(err), fn+": send: "+err.Error())
	}
	rb, rts, err := wBuffer(recvbuf, rcounts, rdispls, rtypes)
	if err != nil {
		return fail(c, mpi.Class(err), fn+": receive: "+err.Error())
	}
	if request != nil {
		return outReq{request}.set(mpi.IneighborAlltoallw(c, sb, scounts, sdispls, sts, rb, rcounts, rdispls, rts))
	}
	return code(mpi.NeighborAlltoallw(c, sb, scounts, sdispls, sts, rb, rcounts, rdispls, rts))
}

// scaled is counts times k (element counts or displacements to bytes).
func scaled(p *C.int, n, k int) []int {
	s := ints(p, n)
	if s == nil {
		s = make([]int, n)
	}
	for i := range s {
		s[i] *= k
	}
	return s
}

//export capi_Neighbor_allgather
func capi_Neighbor_allgather(sendbuf unsafe.Pointer, scount C.int, stype C.MPI_Datatype, recvbuf unsafe.Pointer, rcount C.int, rtype C.MPI_Datatype, comm C.MPI_Comm) C.int {
	return neighborAllgather(sendbuf, scount, stype, recvbuf, rcount, rtype, comm, nil, "MPI_Neighbor_allgather")
}

//export capi_Ineighbor_allgather
func capi_Ineighbor_allgather(sendbuf unsafe.Pointer, scount C.int, stype C.MPI_Datatype, recvbuf unsafe.Pointer, rcount C.int, rtype C.MPI_Datatype, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	if request == nil {
		return fail(nil, mpi.ErrArg, "MPI_Ineighbor_allgather: NULL request")
	}
	return neighborAllgather(sendbuf, scount, stype, recvbuf, rcount, rtype, comm, request, "MPI_Ineighbor_allgather")
}

// neighborAllgather is MPI_Neighbor_allgather, or MPI_Ineighbor_allgather when request is not nil.
func neighborAllgather(sendbuf unsafe.Pointer, scount C.int, stype C.MPI_Datatype, recvbuf unsafe.Pointer, rcount C.int, rtype C.MPI_Datatype, comm C.MPI_Comm, request *C.MPI_Request, fn string) C.int {
	c, in, out, rc := neighborArgs(comm, sendbuf, fn)
	if c == nil {
		return rc
	}
	st, rc := typeArg(c, stype, fn)
	if st == nil {
		return rc
	}
	rt, rc := typeArg(c, rtype, fn)
	if rt == nil {
		return rc
	}
	if scount < 0 || rcount < 0 {
		return fail(c, mpi.ErrCount, fn+": negative count")
	}
	if st.contig && rt.contig {
		sb, rb := bytesAt(sendbuf, int(scount)*st.size), bytesAt(recvbuf, in*int(rcount)*rt.size)
		if request != nil {
			return outReq{request}.set(mpi.IneighborAllgather(c, sb, rb))
		}
		return code(mpi.NeighborAllgather(c, sb, rb))
	}
	rdispls := make([]int, in)
	for j := range rdispls {
		rdispls[j] = j * int(rcount) * rt.d.Extent()
	}
	return neighborW(c, sendbuf, fill(out, int(scount)), make([]int, out), fill(out, st),
		recvbuf, fill(in, int(rcount)), rdispls, fill(in, rt), request, fn)
}

//export capi_Neighbor_allgatherv
func capi_Neighbor_allgatherv(sendbuf unsafe.Pointer, scount C.int, stype C.MPI_Datatype, recvbuf unsafe.Pointer, rcounts, displs *C.int, rtype C.MPI_Datatype, comm C.MPI_Comm) C.int {
	return neighborAllgatherv(sendbuf, scount, stype, recvbuf, rcounts, displs, rtype, comm, nil, "MPI_Neighbor_allgatherv")
}

//export capi_Ineighbor_allgatherv
func capi_Ineighbor_allgatherv(sendbuf unsafe.Pointer, scount C.int, stype C.MPI_Datatype, recvbuf unsafe.Pointer, rcounts, displs *C.int, rtype C.MPI_Datatype, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	if request == nil {
		return fail(nil, mpi.ErrArg, "MPI_Ineighbor_allgatherv: NULL request")
	}
	return neighborAllgatherv(sendbuf, scount, stype, recvbuf, rcounts, displs, rtype, comm, request, "MPI_Ineighbor_allgatherv")
}

// neighborAllgatherv is MPI_Neighbor_allgatherv, or MPI_Ineighbor_allgatherv when request is not nil.
func neighborAllgatherv(sendbuf unsafe.Pointer, scount C.int, stype C.MPI_Datatype, recvbuf unsafe.Pointer, rcounts, displs *C.int, rtype C.MPI_Datatype, comm C.MPI_Comm, request *C.MPI_Request, fn string) C.int {
	c, in, out, rc := neighborArgs(comm, sendbuf, fn)
	if c == nil {
		return rc
	}
	st, rc := typeArg(c, stype, fn)
	if st == nil {
		return rc
	}
	rt, rc := typeArg(c, rtype, fn)
	if rt == nil {
		return rc
	}
	switch {
	case scount < 0:
		return fail(c, mpi.ErrCount, fn+": negative count")
	case in > 0 && (rcounts == nil || displs == nil):
		return fail(c, mpi.ErrArg, fn+": NULL recvcounts or displs")
	}
	counts := ints(rcounts, in)
	if counts == nil {
		counts = []int{}
	}
	if st.contig && rt.contig {
		n := 0
		for j, k := range counts {
			n = max(n, int(unsafe.Slice(displs, in)[j])+k)
		}
		sb, rb := bytesAt(sendbuf, int(scount)*st.size), bytesAt(recvbuf, n*rt.size)
		bc, bd := scaled(rcounts, in, rt.size), scaled(displs, in, rt.size)
		if request != nil {
			return outReq{request}.set(mpi.IneighborAllgatherv(c, sb, rb, bc, bd))
		}
		return code(mpi.NeighborAllgatherv(c, sb, rb, bc, bd))
	}
	return neighborW(c, sendbuf, fill(out, int(scount)), make([]int, out), fill(out, st),
		recvbuf, counts, scaled(displs, in, rt.d.Extent()), fill(in, rt), request, fn)
}

//export capi_Neighbor_alltoall
func capi_Neighbor_alltoall(sendbuf unsafe.Pointer, scount C.int, stype C.MPI_Datatype, recvbuf unsafe.Pointer, rcount C.int, rtype C.MPI_Datatype, comm C.MPI_Comm) C.int {
	return neighborAlltoall(sendbuf, scount, stype, recvbuf, rcount, rtype, comm, nil, "MPI_Neighbor_alltoall")
}

//export capi_Ineighbor_alltoall
func capi_Ineighbor_alltoall(sendbuf unsafe.Pointer, scount C.int, stype C.MPI_Datatype, recvbuf unsafe.Pointer, rcount C.int, rtype C.MPI_Datatype, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	if request == nil {
		return fail(nil, mpi.ErrArg, "MPI_Ineighbor_alltoall: NULL request")
	}
	return neighborAlltoall(sendbuf, scount, stype, recvbuf, rcount, rtype, comm, request, "MPI_Ineighbor_alltoall")
}

// neighborAlltoall is MPI_Neighbor_alltoall, or MPI_Ineighbor_alltoall when request is not nil.
func neighborAlltoall(sendbuf unsafe.Pointer, scount C.int, stype C.MPI_Datatype, recvbuf unsafe.Pointer, rcount C.int, rtype C.MPI_Datatype, comm C.MPI_Comm, request *C.MPI_Request, fn string) C.int {
	c, in, out, rc := neighborArgs(comm, sendbuf, fn)
	if c == nil {
		return rc
	}
	st, rc := typeArg(c, stype, fn)
	if st == nil {
		return rc
	}
	rt, rc := typeArg(c, rtype, fn)
	if rt == nil {
		return rc
	}
	if scount < 0 || rcount < 0 {
		return fail(c, mpi.ErrCount, fn+": negative count")
	}
	if st.contig && rt.contig {
		sb, rb := bytesAt(sendbuf, out*int(scount)*st.size), bytesAt(recvbuf, in*int(rcount)*rt.size)
		if request != nil {
			return outReq{request}.set(mpi.IneighborAlltoall(c, sb, rb))
		}
		return code(mpi.NeighborAlltoall(c, sb, rb))
	}
	sdispls, rdispls := make([]int, out), make([]int, in)
	for i := range sdispls {
		sdispls[i] = i * int(scount) * st.d.Extent()
	}
	for j := range rdispls {
		rdispls[j] = j * int(rcount) * rt.d.Extent()
	}
	return neighborW(c, sendbuf, fill(out, int(scount)), sdispls, fill(out, st),
		recvbuf, fill(in, int(rcount)), rdispls, fill(in, rt), request, fn)
}

//export capi_Neighbor_alltoallv
func capi_Neighbor_alltoallv(sendbuf unsafe.Pointer, scounts, sdispls *C.int, stype C.MPI_Datatype, recvbuf unsafe.Pointer, rcounts, rdispls *C.int, rtype C.MPI_Datatype, comm C.MPI_Comm) C.int {
	return neighborAlltoallv(sendbuf, scounts, sdispls, stype, recvbuf, rcounts, rdispls, rtype, comm, nil, "MPI_Neighbor_alltoallv")
}

//export capi_Ineighbor_alltoallv
func capi_Ineighbor_alltoallv(sendbuf unsafe.Pointer, scounts, sdispls *C.int, stype C.MPI_Datatype, recvbuf unsafe.Pointer, rcounts, rdispls *C.int, rtype C.MPI_Datatype, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	if request == nil {
		return fail(nil, mpi.ErrArg, "MPI_Ineighbor_alltoallv: NULL request")
	}
	return neighborAlltoallv(sendbuf, scounts, sdispls, stype, recvbuf, rcounts, rdispls, rtype, comm, request, "MPI_Ineighbor_alltoallv")
}

// neighborAlltoallv is MPI_Neighbor_alltoallv, or MPI_Ineighbor_alltoallv when request is not nil.
func neighborAlltoallv(sendbuf unsafe.Pointer, scounts, sdispls *C.int, stype C.MPI_Datatype, recvbuf unsafe.Pointer, rcounts, rdispls *C.int, rtype C.MPI_Datatype, comm C.MPI_Comm, request *C.MPI_Request, fn string) C.int {
	c, in, out, rc := neighborArgs(comm, sendbuf, fn)
	if c == nil {
		return rc
	}
	st, rc := typeArg(c, stype, fn)
	if st == nil {
		return rc
	}
	rt, rc := typeArg(c, rtype, fn)
	if rt == nil {
		return rc
	}
	if out > 0 && (scounts == nil || sdispls == nil) || in > 0 && (rcounts == nil || rdispls == nil) {
		return fail(c, mpi.ErrArg, fn+": NULL counts or displacements")
	}
	if st.contig && rt.contig {
		end := func(counts, displs *C.int, n int) int {
			e := 0
			for i := range n {
				e = max(e, int(unsafe.Slice(displs, n)[i]+unsafe.Slice(counts, n)[i]))
			}
			return e
		}
		sb, sc, sd := bytesAt(sendbuf, end(scounts, sdispls, out)*st.size), scaled(scounts, out, st.size), scaled(sdispls, out, st.size)
		rb, rn, rd := bytesAt(recvbuf, end(rcounts, rdispls, in)*rt.size), scaled(rcounts, in, rt.size), scaled(rdispls, in, rt.size)
		if request != nil {
			return outReq{request}.set(mpi.IneighborAlltoallv(c, sb, sc, sd, rb, rn, rd))
		}
		return code(mpi.NeighborAlltoallv(c, sb, sc, sd, rb, rn, rd))
	}
	return neighborW(c, sendbuf, scaled(scounts, out, 1), scaled(sdispls, out, st.d.Extent()), fill(out, st),
		recvbuf, scaled(rcounts, in, 1), scaled(rdispls, in, rt.d.Extent()), fill(in, rt), request, fn)
}

// aints is the n MPI_Aints at p as Go ints.
func aints(p *C.MPI_Aint, n int) []int {
	out := make([]int, n)
	if p != nil {
		for i, v := range unsafe.Slice(p, n) {
			out[i] = int(v)
		}
	}
	return out
}

// typesArg reads n datatype handles.
func typesArg(c *mpi.Comm, p *C.MPI_Datatype, n int, fn string) ([]*dtype, C.int) {
	ts := make([]*dtype, n)
	if n == 0 {
		return ts, C.MPI_SUCCESS
	}
	for i, h := range unsafe.Slice(p, n) {
		t, rc := typeArg(c, h, fn)
		if t == nil {
			return nil, rc
		}
		ts[i] = t
	}
	return ts, C.MPI_SUCCESS
}

//export capi_Neighbor_alltoallw
func capi_Neighbor_alltoallw(sendbuf unsafe.Pointer, scounts *C.int, sdispls *C.MPI_Aint, stypes *C.MPI_Datatype, recvbuf unsafe.Pointer, rcounts *C.int, rdispls *C.MPI_Aint, rtypes *C.MPI_Datatype, comm C.MPI_Comm) C.int {
	return neighborAlltoallw(sendbuf, scounts, sdispls, stypes, recvbuf, rcounts, rdispls, rtypes, comm, nil, "MPI_Neighbor_alltoallw")
}

//export capi_Ineighbor_alltoallw
func capi_Ineighbor_alltoallw(sendbuf unsafe.Pointer, scounts *C.int, sdispls *C.MPI_Aint, stypes *C.MPI_Datatype, recvbuf unsafe.Pointer, rcounts *C.int, rdispls *C.MPI_Aint, rtypes *C.MPI_Datatype, comm C.MPI_Comm, request *C.MPI_Request) C.int {
	if request == nil {
		return fail(nil, mpi.ErrArg, "MPI_Ineighbor_alltoallw: NULL request")
	}
	return neighborAlltoallw(sendbuf, scounts, sdispls, stypes, recvbuf, rcounts, rdispls, rtypes, comm, request, "MPI_Ineighbor_alltoallw")
}

// neighborAlltoallw is MPI_Neighbor_alltoallw, or MPI_Ineighbor_alltoallw when request is not nil.
func neighborAlltoallw(sendbuf unsafe.Pointer, scounts *C.int, sdispls *C.MPI_Aint, stypes *C.MPI_Datatype, recvbuf unsafe.Pointer, rcounts *C.int, rdispls *C.MPI_Aint, rtypes *C.MPI_Datatype, comm C.MPI_Comm, request *C.MPI_Request, fn string) C.int {
	c, in, out, rc := neighborArgs(comm, sendbuf, fn)
	if c == nil {
		return rc
	}
	if out > 0 && (scounts == nil || sdispls == nil || stypes == nil) || in > 0 && (rcounts == nil || rdispls == nil || rtypes == nil) {
		return fail(c, mpi.ErrArg, fn+": NULL counts, displacements or types")
	}
	sts, rc := typesArg(c, stypes, out, fn)
	if sts == nil {
		return rc
	}
	rts, rc := typesArg(c, rtypes, in, fn)
	if rts == nil {
		return rc
	}
	return neighborW(c, sendbuf, scaled(scounts, out, 1), aints(sdispls, out), sts,
		recvbuf, scaled(rcounts, in, 1), aints(rdispls, in), rts, request, fn)
}
