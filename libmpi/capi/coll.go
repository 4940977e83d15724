package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include "mpi.h"
void lamgo_call_user_fn(MPI_User_function *fn, void *in, void *inout, int len, MPI_Datatype datatype);
*/
import "C"

import (
	"sync"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// The collectives. Each maps onto the Go API's collective of the same
// name: over bytes for a contiguous datatype (the Go API's element type
// is then byte and counts are scaled to bytes), over the element's Go
// type for a reduction of a predefined type (reducer), and through the
// datatype collectives (mpi.GatherType, …) for a derived datatype.
// MPI_IN_PLACE becomes the Go API's nil send (or receive) buffer; a
// buffer of no elements that is not in place is an empty, non-nil one.

// inPlace reports whether a buffer argument is MPI_IN_PLACE.
func inPlace(p unsafe.Pointer) bool { return uintptr(p) == 1 }

// A cbuf is a significant buffer argument as the Go API takes it.
type cbuf struct {
	b    []byte        // never nil
	walk *mpi.Datatype // a derived datatype to walk over b; nil for bytes
	n    int           // elements of walk
	t    *dtype
}

// arg checks the buffer (buf, count, datatype) of a call on c; fn names
// the call in errors.
func arg(c *mpi.Comm, buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, fn string) (cbuf, C.int) {
	t, rc := typeArg(c, datatype, fn)
	if t == nil {
		return cbuf{}, rc
	}
	if inPlace(buf) {
		return cbuf{}, fail(c, mpi.ErrBuffer, fn+": MPI_IN_PLACE is not allowed here")
	}
	b, walk, n, err := t.buffer(buf, int(count))
	if err != nil {
		return cbuf{}, fail(c, mpi.Class(err), fn+": "+err.Error())
	}
	if b == nil {
		b = []byte{}
	}
	return cbuf{b: b, walk: walk, n: n, t: t}, C.MPI_SUCCESS
}

// goType is the Go datatype to walk over a buffer's bytes (nil for
// none): the view dtype.buffer gave of a derived one, else the type.
func (b cbuf) goType() *mpi.Datatype {
	switch {
	case b.walk != nil:
		return b.walk
	case b.t != nil:
		return b.t.d
	}
	return nil
}

// A placement is where this process stands in a rooted collective.
type placement struct {
	inter bool
	root  bool // the root: its rank (intracommunicator) or MPI_ROOT
	sends bool // contributes a block (false for the root in place, and the root's group on an intercommunicator)
	n     int  // the processes that blocks come from or go to
}

func placeAt(c *mpi.Comm, root C.int, sendbuf unsafe.Pointer) placement {
	if c.TestInter() {
		n, _ := c.RemoteSize()
		return placement{inter: true, root: root == C.MPI_ROOT, sends: root >= 0, n: n}
	}
	isRoot := int(root) == c.Rank()
	return placement{root: isRoot, sends: !(isRoot && inPlace(sendbuf)), n: c.Size()}
}

// groupSize is the processes a non-rooted collective's blocks come from
// or go to (the remote group's on an intercommunicator).
func groupSize(c *mpi.Comm) int {
	if c.TestInter() {
		n, _ := c.RemoteSize()
		return n
	}
	return c.Size()
}

// scratch holds the Go counts and displacements of a blocking v
// collective, reused across calls.
type scratch struct{ a []int }

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// collScratch is a scratch for a call: from the pool for a blocking one,
// a new one for a nonblocking one (its collective keeps the counts).
func collScratch(req *C.MPI_Request) *scratch {
	if req != nil {
		return new(scratch)
	}
	return scratchPool.Get().(*scratch)
}

func collScratchDone(req *C.MPI_Request, s *scratch) {
	if req == nil {
		scratchPool.Put(s)
	}
}

// ints converts the C arrays a and b (b may be nil) of n ints each into
// Go ints scaled by size, in the scratch's slice (the caller puts it
// back in the pool after the call).
func (s *scratch) ints(n, size int, a, b *C.int) (x, y []int) {
	if cap(s.a) < 2*n {
		s.a = make([]int, 2*n)
	}
	conv := func(p *C.int, dst []int) []int {
		for i, v := range unsafe.Slice(p, n) {
			dst[i] = int(v) * size
		}
		return dst
	}
	x = conv(a, s.a[:n:n])
	if b != nil {
		y = conv(b, s.a[n:2*n:2*n])
	}
	return x, y
}

// extentOf is the elements a v collective's buffer must hold: the end of
// its furthest block.
func extentOf(counts, displs *C.int, n int) C.int {
	if counts == nil || displs == nil {
		return 0
	}
	end := C.int(0)
	cs, ds := unsafe.Slice(counts, n), unsafe.Slice(displs, n)
	for i := range n {
		if cs[i] >= 0 && ds[i]+cs[i] > end {
			end = ds[i] + cs[i] // a block of none too: the Go API checks where it would be
		}
	}
	return end
}

// contig reports whether datatype h moves as bytes (an invalid handle
// too: its error comes when its buffer is checked).
func contig(h C.MPI_Datatype) bool {
	t := types.get(int(h))
	return t == nil || t.contig
}

func barrierCall(comm C.MPI_Comm, req *C.MPI_Request) C.int {
	c, rc := commArg(comm, "MPI_Barrier")
	if c == nil {
		return rc
	}
	if req != nil {
		return outReq{req}.set(mpi.Ibarrier(c))
	}
	return code(mpi.Barrier(c))
}

func bcastCall(buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, root C.int, comm C.MPI_Comm, req *C.MPI_Request) C.int {
	const fn = "MPI_Bcast"
	c, rc := commArg(comm, fn)
	if c == nil {
		return rc
	}
	if c.TestInter() && root == C.MPI_PROC_NULL {
		if req != nil {
			return outReq{req}.set(mpi.Ibcast[byte](c, nil, int(root)))
		}
		return code(mpi.Bcast[byte](c, nil, int(root)))
	}
	b, rc := arg(c, buf, count, datatype, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if b.walk != nil {
		if req != nil {
			return outReq{req}.set(mpi.IbcastType(c, b.b, b.n, b.walk, int(root)))
		}
		return code(mpi.BcastType(c, b.b, b.n, b.walk, int(root)))
	}
	if req != nil {
		return outReq{req}.set(mpi.Ibcast(c, b.b, int(root)))
	}
	return code(mpi.Bcast(c, b.b, int(root)))
}

// mineArg checks the block a process of a rooted collective sends (a
// Gather's) or receives (a Scatter's): nil for the root in place.
func mineArg(c *mpi.Comm, p placement, buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, fn string) (cbuf, C.int) {
	switch {
	case p.sends:
		return arg(c, buf, count, datatype, fn)
	case !p.root && !p.inter && inPlace(buf):
		return cbuf{}, fail(c, mpi.ErrBuffer, fn+": MPI_IN_PLACE is for the root only")
	}
	return cbuf{}, C.MPI_SUCCESS
}

// rootedArgs checks a Gather's or Scatter's buffers: the one every
// sending process gives (mine), and the root's (all: n blocks of count).
func rootedArgs(c *mpi.Comm, p placement, mineBuf unsafe.Pointer, mineCount C.int, mineType C.MPI_Datatype, allBuf unsafe.Pointer, allCount C.int, allType C.MPI_Datatype, fn string) (mine, all cbuf, rc C.int) {
	if mine, rc = mineArg(c, p, mineBuf, mineCount, mineType, fn); rc != C.MPI_SUCCESS {
		return
	}
	if p.root {
		all, rc = arg(c, allBuf, allCount*C.int(p.n), allType, fn)
	}
	return
}

func gatherCall(sendbuf unsafe.Pointer, sendcount C.int, sendtype C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.int, recvtype C.MPI_Datatype, root C.int, comm C.MPI_Comm, req *C.MPI_Request) C.int {
	const fn = "MPI_Gather"
	c, rc := commArg(comm, fn)
	if c == nil {
		return rc
	}
	p := placeAt(c, root, sendbuf)
	s, r, rc := rootedArgs(c, p, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if s.walk != nil || r.walk != nil {
		if req != nil {
			return outReq{req}.set(mpi.IgatherType(c, s.b, int(sendcount), s.goType(), r.b, int(recvcount), r.goType(), int(root)))
		}
		return code(mpi.GatherType(c, s.b, int(sendcount), s.goType(), r.b, int(recvcount), r.goType(), int(root)))
	}
	if req != nil {
		return outReq{req}.set(mpi.Igather(c, s.b, r.b, int(root)))
	}
	return code(mpi.Gather(c, s.b, r.b, int(root)))
}

func scatterCall(sendbuf unsafe.Pointer, sendcount C.int, sendtype C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.int, recvtype C.MPI_Datatype, root C.int, comm C.MPI_Comm, req *C.MPI_Request) C.int {
	const fn = "MPI_Scatter"
	c, rc := commArg(comm, fn)
	if c == nil {
		return rc
	}
	p := placeAt(c, root, recvbuf) // "sends" is "receives" here
	r, s, rc := rootedArgs(c, p, recvbuf, recvcount, recvtype, sendbuf, sendcount, sendtype, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if s.walk != nil || r.walk != nil {
		if req != nil {
			return outReq{req}.set(mpi.IscatterType(c, s.b, int(sendcount), s.goType(), r.b, int(recvcount), r.goType(), int(root)))
		}
		return code(mpi.ScatterType(c, s.b, int(sendcount), s.goType(), r.b, int(recvcount), r.goType(), int(root)))
	}
	if req != nil {
		return outReq{req}.set(mpi.Iscatter(c, s.b, r.b, int(root)))
	}
	return code(mpi.Scatter(c, s.b, r.b, int(root)))
}

// vRootArgs checks the root's buffer of a Gatherv or Scatterv (counts
// and displs of its blocks) and returns them scaled to bytes, or in
// elements for a collective over derived datatypes (the datatype forms).
func vRootArgs(c *mpi.Comm, p placement, buf unsafe.Pointer, counts, displs *C.int, datatype C.MPI_Datatype, derived bool, sc *scratch, fn string) (all cbuf, cs, ds []int, rc C.int) {
	if !p.root {
		return
	}
	if counts == nil || displs == nil {
		return all, nil, nil, fail(c, mpi.ErrArg, fn+": NULL counts or displacements")
	}
	if all, rc = arg(c, buf, extentOf(counts, displs, p.n), datatype, fn); rc != C.MPI_SUCCESS {
		return
	}
	scale := all.t.size
	if derived {
		scale = 1
	}
	if sc == nil {
		sc = &scratch{}
	}
	cs, ds = sc.ints(p.n, scale, counts, displs)
	return all, cs, ds, C.MPI_SUCCESS
}

func gathervCall(sendbuf unsafe.Pointer, sendcount C.int, sendtype C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts, displs *C.int, recvtype C.MPI_Datatype, root C.int, comm C.MPI_Comm, req *C.MPI_Request) C.int {
	const fn = "MPI_Gatherv"
	c, rc := commArg(comm, fn)
	if c == nil {
		return rc
	}
	p := placeAt(c, root, sendbuf)
	s, rc := mineArg(c, p, sendbuf, sendcount, sendtype, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	derived := s.walk != nil || p.root && !contig(recvtype)
	sc := collScratch(req)
	defer collScratchDone(req, sc)
	r, cs, ds, rc := vRootArgs(c, p, recvbuf, recvcounts, displs, recvtype, derived, sc, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if derived {
		if req != nil {
			return outReq{req}.set(mpi.IgathervType(c, s.b, int(sendcount), s.goType(), r.b, cs, ds, r.goType(), int(root)))
		}
		return code(mpi.GathervType(c, s.b, int(sendcount), s.goType(), r.b, cs, ds, r.goType(), int(root)))
	}
	if req != nil {
		return outReq{req}.set(mpi.Igatherv(c, s.b, r.b, cs, ds, int(root)))
	}
	return code(mpi.Gatherv(c, s.b, r.b, cs, ds, int(root)))
}

func scattervCall(sendbuf unsafe.Pointer, sendcounts, displs *C.int, sendtype C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.int, recvtype C.MPI_Datatype, root C.int, comm C.MPI_Comm, req *C.MPI_Request) C.int {
	const fn = "MPI_Scatterv"
	c, rc := commArg(comm, fn)
	if c == nil {
		return rc
	}
	p := placeAt(c, root, recvbuf)
	r, rc := mineArg(c, p, recvbuf, recvcount, recvtype, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	derived := r.walk != nil || p.root && !contig(sendtype)
	sc := collScratch(req)
	defer collScratchDone(req, sc)
	s, cs, ds, rc := vRootArgs(c, p, sendbuf, sendcounts, displs, sendtype, derived, sc, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if derived {
		if req != nil {
			return outReq{req}.set(mpi.IscattervType(c, s.b, cs, ds, s.goType(), r.b, int(recvcount), r.goType(), int(root)))
		}
		return code(mpi.ScattervType(c, s.b, cs, ds, s.goType(), r.b, int(recvcount), r.goType(), int(root)))
	}
	if req != nil {
		return outReq{req}.set(mpi.Iscatterv(c, s.b, cs, ds, r.b, int(root)))
	}
	return code(mpi.Scatterv(c, s.b, cs, ds, r.b, int(root)))
}

// allArgs checks the buffers of an Allgather or Alltoall: send (nil in
// place) and recv, n blocks of recvcount.
func allArgs(c *mpi.Comm, sendbuf unsafe.Pointer, sendcount C.int, sendtype C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.int, recvtype C.MPI_Datatype, sendBlocks bool, fn string) (s, r cbuf, rc C.int) {
	n := C.int(groupSize(c))
	if !inPlace(sendbuf) {
		count := sendcount
		if sendBlocks {
			count *= n
		}
		if s, rc = arg(c, sendbuf, count, sendtype, fn); rc != C.MPI_SUCCESS {
			return
		}
	}
	r, rc = arg(c, recvbuf, recvcount*n, recvtype, fn)
	return
}

func allgatherCall(sendbuf unsafe.Pointer, sendcount C.int, sendtype C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.int, recvtype C.MPI_Datatype, comm C.MPI_Comm, req *C.MPI_Request) C.int {
	const fn = "MPI_Allgather"
	c, rc := commArg(comm, fn)
	if c == nil {
		return rc
	}
	s, r, rc := allArgs(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, false, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if s.walk != nil || r.walk != nil {
		if req != nil {
			return outReq{req}.set(mpi.IallgatherType(c, s.b, int(sendcount), s.goType(), r.b, int(recvcount), r.goType()))
		}
		return code(mpi.AllgatherType(c, s.b, int(sendcount), s.goType(), r.b, int(recvcount), r.goType()))
	}
	if req != nil {
		return outReq{req}.set(mpi.Iallgather(c, s.b, r.b))
	}
	return code(mpi.Allgather(c, s.b, r.b))
}

func alltoallCall(sendbuf unsafe.Pointer, sendcount C.int, sendtype C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.int, recvtype C.MPI_Datatype, comm C.MPI_Comm, req *C.MPI_Request) C.int {
	const fn = "MPI_Alltoall"
	c, rc := commArg(comm, fn)
	if c == nil {
		return rc
	}
	s, r, rc := allArgs(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, true, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if s.walk != nil || r.walk != nil {
		if s.b == nil { // in place: the datatype form packs what it sends before it receives
			s, sendcount = r, recvcount
		}
		if req != nil {
			return outReq{req}.set(mpi.IalltoallType(c, s.b, int(sendcount), s.goType(), r.b, int(recvcount), r.goType()))
		}
		return code(mpi.AlltoallType(c, s.b, int(sendcount), s.goType(), r.b, int(recvcount), r.goType()))
	}
	if req != nil {
		return outReq{req}.set(mpi.Ialltoall(c, s.b, r.b))
	}
	return code(mpi.Alltoall(c, s.b, r.b))
}

func allgathervCall(sendbuf unsafe.Pointer, sendcount C.int, sendtype C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts, displs *C.int, recvtype C.MPI_Datatype, comm C.MPI_Comm, req *C.MPI_Request) C.int {
	const fn = "MPI_Allgatherv"
	c, rc := commArg(comm, fn)
	if c == nil {
		return rc
	}
	var s cbuf
	if !inPlace(sendbuf) {
		if s, rc = arg(c, sendbuf, sendcount, sendtype, fn); rc != C.MPI_SUCCESS {
			return rc
		}
	}
	sc := collScratch(req)
	defer collScratchDone(req, sc)
	derived := s.walk != nil || !contig(recvtype)
	r, cs, ds, rc := vRootArgs(c, placement{root: true, n: groupSize(c)}, recvbuf, recvcounts, displs, recvtype, derived, sc, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if derived {
		if req != nil {
			return outReq{req}.set(mpi.IallgathervType(c, s.b, int(sendcount), s.goType(), r.b, cs, ds, r.goType()))
		}
		return code(mpi.AllgathervType(c, s.b, int(sendcount), s.goType(), r.b, cs, ds, r.goType()))
	}
	if req != nil {
		return outReq{req}.set(mpi.Iallgatherv(c, s.b, r.b, cs, ds))
	}
	return code(mpi.Allgatherv(c, s.b, r.b, cs, ds))
}

func alltoallvCall(sendbuf unsafe.Pointer, sendcounts, sdispls *C.int, sendtype C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts, rdispls *C.int, recvtype C.MPI_Datatype, comm C.MPI_Comm, req *C.MPI_Request) C.int {
	const fn = "MPI_Alltoallv"
	c, rc := commArg(comm, fn)
	if c == nil {
		return rc
	}
	sc := collScratch(req)
	defer collScratchDone(req, sc)
	all := placement{root: true, n: groupSize(c)}
	derived := !contig(recvtype) || !inPlace(sendbuf) && !contig(sendtype)
	r, rcs, rds, rc := vRootArgs(c, all, recvbuf, recvcounts, rdispls, recvtype, derived, sc, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if derived && inPlace(sendbuf) {
		if req != nil {
			return outReq{req}.set(mpi.IalltoallvType(c, nil, nil, nil, nil, r.b, rcs, rds, r.goType()))
		}
		return code(mpi.AlltoallvType(c, nil, nil, nil, nil, r.b, rcs, rds, r.goType()))
	}
	if inPlace(sendbuf) {
		if req != nil {
			return outReq{req}.set(mpi.Ialltoallv(c, nil, nil, nil, r.b, rcs, rds))
		}
		return code(mpi.Alltoallv(c, nil, nil, nil, r.b, rcs, rds))
	}
	// The send counts after the receive ones in a scratch of their own.
	sc2 := collScratch(req)
	defer collScratchDone(req, sc2)
	s, scs, sds, rc := vRootArgs(c, all, sendbuf, sendcounts, sdispls, sendtype, derived, sc2, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if derived {
		if req != nil {
			return outReq{req}.set(mpi.IalltoallvType(c, s.b, scs, sds, s.goType(), r.b, rcs, rds, r.goType()))
		}
		return code(mpi.AlltoallvType(c, s.b, scs, sds, s.goType(), r.b, rcs, rds, r.goType()))
	}
	if req != nil {
		return outReq{req}.set(mpi.Ialltoallv(c, s.b, scs, sds, r.b, rcs, rds))
	}
	return code(mpi.Alltoallv(c, s.b, scs, sds, r.b, rcs, rds))
}

// wArgs is one side of an Alltoallw: its buffer, counts, displacements
// (bytes) and datatypes, for n processes.
func wArgs(c *mpi.Comm, buf unsafe.Pointer, counts, displs *C.int, dts *C.MPI_Datatype, n int, fn string) (b []byte, cs, ds []int, ts []*mpi.Datatype, rc C.int) {
	if n > 0 && (counts == nil || displs == nil || dts == nil) {
		return nil, nil, nil, nil, fail(c, mpi.ErrArg, fn+": NULL counts, displacements or datatypes")
	}
	cs, ds = (&scratch{}).ints(n, 1, counts, displs)
	ts = make([]*mpi.Datatype, n)
	end := 0
	for i, h := range unsafe.Slice(dts, n) {
		t, rc := typeArg(c, h, fn)
		if t == nil {
			return nil, nil, nil, nil, rc
		}
		if t.derived && !t.committed.Load() {
			return nil, nil, nil, nil, fail(c, mpi.ErrType, fn+": datatype not committed (MPI_Type_commit)")
		}
		ts[i] = t.d
		if cs[i] < 0 {
			return nil, nil, nil, nil, fail(c, mpi.ErrCount, fn+": negative count")
		}
		if cs[i] > 0 {
			lb, ext, _ := mpi.TypeGetTrueExtent(t.d)
			end = max(end, ds[i]+(cs[i]-1)*t.d.Extent()+lb+ext)
		}
	}
	if end > 0 && buf == nil {
		return nil, nil, nil, nil, fail(c, mpi.ErrBuffer, fn+": NULL buffer")
	}
	if b = bytesAt(buf, end); b == nil {
		b = []byte{}
	}
	return b, cs, ds, ts, C.MPI_SUCCESS
}

func alltoallwCall(sendbuf unsafe.Pointer, sendcounts, sdispls *C.int, sendtypes *C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts, rdispls *C.int, recvtypes *C.MPI_Datatype, comm C.MPI_Comm, req *C.MPI_Request) C.int {
	const fn = "MPI_Alltoallw"
	c, rc := commArg(comm, fn)
	if c == nil {
		return rc
	}
	n := groupSize(c)
	r, rcs, rds, rts, rc := wArgs(c, recvbuf, recvcounts, rdispls, recvtypes, n, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if inPlace(sendbuf) { // the Go form packs every block it sends before it receives
		if req != nil {
			return outReq{req}.set(mpi.Ialltoallw(c, r, rcs, rds, rts, r, rcs, rds, rts))
		}
		return code(mpi.Alltoallw(c, r, rcs, rds, rts, r, rcs, rds, rts))
	}
	s, scs, sds, sts, rc := wArgs(c, sendbuf, sendcounts, sdispls, sendtypes, n, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if req != nil {
		return outReq{req}.set(mpi.Ialltoallw(c, s, scs, sds, sts, r, rcs, rds, rts))
	}
	return code(mpi.Alltoallw(c, s, scs, sds, sts, r, rcs, rds, rts))
}

// Reductions.

// buf is count elements of a reduction's type at p: nil for
// MPI_IN_PLACE when inPlaceOK, an empty slice for none.
//
// For a derived datatype it records in red the view to walk over the
// bytes (dtype.buffer's).
func (red *reduction) buf(c *mpi.Comm, p unsafe.Pointer, count C.int, inPlaceOK bool, fn string) ([]byte, C.int) {
	switch {
	case inPlace(p) && inPlaceOK:
		return nil, C.MPI_SUCCESS
	case inPlace(p):
		return nil, fail(c, mpi.ErrBuffer, fn+": MPI_IN_PLACE is not allowed here")
	case count < 0:
		return nil, fail(c, mpi.ErrCount, fn+": negative count")
	}
	if red.rt == nil { // a derived datatype
		b, walk, _, err := red.t.buffer(p, int(count))
		if err != nil {
			return nil, fail(c, mpi.Class(err), fn+": "+err.Error())
		}
		if walk != nil {
			red.walk = walk
		}
		if b == nil {
			b = []byte{}
		}
		return b, C.MPI_SUCCESS
	}
	n := int(count) * red.rt.stride
	if n == 0 {
		return []byte{}, C.MPI_SUCCESS
	}
	if p == nil {
		return nil, fail(c, mpi.ErrBuffer, fn+": NULL buffer")
	}
	return unsafe.Slice((*byte)(p), n), C.MPI_SUCCESS
}

// reduceArgs checks the arguments common to the reductions.
func reduceArgs(comm C.MPI_Comm, datatype C.MPI_Datatype, op C.MPI_Op, fn string) (*mpi.Comm, reduction, C.int) {
	c, rc := commArg(comm, fn)
	if c == nil {
		return nil, reduction{}, rc
	}
	red, rc := reductionArgs(c, datatype, op, fn)
	return c, red, rc
}

func reduceCall(sendbuf, recvbuf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, op C.MPI_Op, root C.int, comm C.MPI_Comm, req *C.MPI_Request) C.int {
	const fn = "MPI_Reduce"
	c, red, rc := reduceArgs(comm, datatype, op, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	p := placeAt(c, root, sendbuf)
	var s, r []byte
	if p.sends {
		if s, rc = red.buf(c, sendbuf, count, false, fn); rc != C.MPI_SUCCESS {
			return rc
		}
	} else if !p.root && inPlace(sendbuf) {
		return fail(c, mpi.ErrBuffer, fn+": MPI_IN_PLACE is for the root only")
	}
	if p.root {
		if r, rc = red.buf(c, recvbuf, count, false, fn); rc != C.MPI_SUCCESS {
			return rc
		}
	}
	if red.rt == nil {
		if req != nil {
			return outReq{req}.set(mpi.IreduceType(c, s, r, int(count), red.walk, red.op, int(root)))
		}
		return code(mpi.ReduceType(c, s, r, int(count), red.walk, red.op, int(root)))
	}
	if req != nil {
		return outReq{req}.set(red.rt.r.ireduce(c, s, r, red.op, int(root)))
	}
	return code(red.rt.r.reduce(c, s, r, red.op, int(root)))
}

func allreduceCall(sendbuf, recvbuf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, op C.MPI_Op, comm C.MPI_Comm, req *C.MPI_Request) C.int {
	const fn = "MPI_Allreduce"
	c, red, rc := reduceArgs(comm, datatype, op, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	s, rc := red.buf(c, sendbuf, count, true, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	r, rc := red.buf(c, recvbuf, count, false, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if red.rt == nil {
		if req != nil {
			return outReq{req}.set(mpi.IallreduceType(c, s, r, int(count), red.walk, red.op))
		}
		return code(mpi.AllreduceType(c, s, r, int(count), red.walk, red.op))
	}
	if req != nil {
		return outReq{req}.set(red.rt.r.iallreduce(c, s, r, red.op))
	}
	return code(red.rt.r.allreduce(c, s, r, red.op))
}

func reduceScatterCall(sendbuf, recvbuf unsafe.Pointer, recvcounts *C.int, datatype C.MPI_Datatype, op C.MPI_Op, comm C.MPI_Comm, req *C.MPI_Request) C.int {
	const fn = "MPI_Reduce_scatter"
	c, red, rc := reduceArgs(comm, datatype, op, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if recvcounts == nil {
		return fail(c, mpi.ErrArg, fn+": NULL recvcounts")
	}
	sc := collScratch(req)
	defer collScratchDone(req, sc)
	counts, _ := sc.ints(c.Size(), 1, recvcounts, nil)
	total := 0
	for _, x := range counts {
		total += max(x, 0)
	}
	s, rc := red.buf(c, sendbuf, C.int(total), true, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	mine := C.int(counts[c.Rank()])
	if s == nil {
		mine = C.int(total) // in place: the input is in recvbuf
	}
	r, rc := red.buf(c, recvbuf, mine, false, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if red.rt == nil {
		if req != nil {
			return outReq{req}.set(mpi.IreduceScatterType(c, s, r, counts, red.walk, red.op))
		}
		return code(mpi.ReduceScatterType(c, s, r, counts, red.walk, red.op))
	}
	if req != nil {
		return outReq{req}.set(red.rt.r.ireduceScatter(c, s, r, counts, red.op))
	}
	return code(red.rt.r.reduceScatter(c, s, r, counts, red.op))
}

func reduceScatterBlockCall(sendbuf, recvbuf unsafe.Pointer, recvcount C.int, datatype C.MPI_Datatype, op C.MPI_Op, comm C.MPI_Comm, req *C.MPI_Request) C.int {
	const fn = "MPI_Reduce_scatter_block"
	c, red, rc := reduceArgs(comm, datatype, op, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	all := recvcount * C.int(c.Size())
	s, rc := red.buf(c, sendbuf, all, true, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	mine := recvcount
	if s == nil {
		mine = all
	}
	r, rc := red.buf(c, recvbuf, mine, false, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if red.rt == nil {
		if req != nil {
			return outReq{req}.set(mpi.IreduceScatterBlockType(c, s, r, int(recvcount), red.walk, red.op))
		}
		return code(mpi.ReduceScatterBlockType(c, s, r, int(recvcount), red.walk, red.op))
	}
	if req != nil {
		return outReq{req}.set(red.rt.r.ireduceScatterBlock(c, s, r, red.op))
	}
	return code(red.rt.r.reduceScatterBlock(c, s, r, red.op))
}

func scanCall(sendbuf, recvbuf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, op C.MPI_Op, comm C.MPI_Comm, ex bool, fn string, req *C.MPI_Request) C.int {
	c, red, rc := reduceArgs(comm, datatype, op, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	s, rc := red.buf(c, sendbuf, count, true, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	r, rc := red.buf(c, recvbuf, count, false, fn)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if red.rt == nil {
		switch {
		case req != nil && ex:
			return outReq{req}.set(mpi.IexscanType(c, s, r, int(count), red.walk, red.op))
		case req != nil:
			return outReq{req}.set(mpi.IscanType(c, s, r, int(count), red.walk, red.op))
		case ex:
			return code(mpi.ExscanType(c, s, r, int(count), red.walk, red.op))
		}
		return code(mpi.ScanType(c, s, r, int(count), red.walk, red.op))
	}
	if req != nil {
		return outReq{req}.set(red.rt.r.iscan(c, s, r, red.op, ex))
	}
	return code(red.rt.r.scan(c, s, r, red.op, ex))
}

//export capi_Scan
func capi_Scan(sendbuf, recvbuf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, op C.MPI_Op, comm C.MPI_Comm) C.int {
	return scanCall(sendbuf, recvbuf, count, datatype, op, comm, false, "MPI_Scan", nil)
}

//export capi_Exscan
func capi_Exscan(sendbuf, recvbuf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, op C.MPI_Op, comm C.MPI_Comm) C.int {
	return scanCall(sendbuf, recvbuf, count, datatype, op, comm, true, "MPI_Exscan", nil)
}

// A reducer runs the Go API's reductions over C memory viewed as
// elements of one Go type (typed).
type reducer interface {
	reduce(c *mpi.Comm, s, r []byte, op *mpi.Op, root int) error
	allreduce(c *mpi.Comm, s, r []byte, op *mpi.Op) error
	reduceScatter(c *mpi.Comm, s, r []byte, counts []int, op *mpi.Op) error
	reduceScatterBlock(c *mpi.Comm, s, r []byte, op *mpi.Op) error
	scan(c *mpi.Comm, s, r []byte, op *mpi.Op, ex bool) error
	local(in, inout []byte, op *mpi.Op) error
	newOp(fn *C.MPI_User_function, commute bool, h C.MPI_Datatype) (*mpi.Op, error)
	nonblocking
}

type typed[T mpi.CollElem] struct{}

// view is b as elements of T: nil stays nil (in place), no elements
// become an empty slice.
func view[T any](b []byte) []T {
	if b == nil {
		return nil
	}
	n := len(b) / int(unsafe.Sizeof(*new(T)))
	if n == 0 {
		return []T{}
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

func (typed[T]) reduce(c *mpi.Comm, s, r []byte, op *mpi.Op, root int) error {
	return mpi.Reduce(c, view[T](s), view[T](r), op, root)
}

func (typed[T]) allreduce(c *mpi.Comm, s, r []byte, op *mpi.Op) error {
	return mpi.Allreduce(c, view[T](s), view[T](r), op)
}

func (typed[T]) reduceScatter(c *mpi.Comm, s, r []byte, counts []int, op *mpi.Op) error {
	return mpi.ReduceScatter(c, view[T](s), view[T](r), counts, op)
}

func (typed[T]) reduceScatterBlock(c *mpi.Comm, s, r []byte, op *mpi.Op) error {
	return mpi.ReduceScatterBlock(c, view[T](s), view[T](r), op)
}

func (typed[T]) scan(c *mpi.Comm, s, r []byte, op *mpi.Op, ex bool) error {
	if ex {
		return mpi.Exscan(c, view[T](s), view[T](r), op)
	}
	return mpi.Scan(c, view[T](s), view[T](r), op)
}

func (typed[T]) local(in, inout []byte, op *mpi.Op) error {
	return mpi.ReduceLocal(view[T](in), view[T](inout), op)
}

// newOp is a user's C function as a Go op over T: the Go API hands it
// the lower ranks' contribution first, as MPI_User_function's invec.
func (typed[T]) newOp(fn *C.MPI_User_function, commute bool, h C.MPI_Datatype) (*mpi.Op, error) {
	return mpi.NewOp(func(in, inout []T) {
		if n := min(len(in), len(inout)); n > 0 {
			C.lamgo_call_user_fn(fn, unsafe.Pointer(&in[0]), unsafe.Pointer(&inout[0]), C.int(n), h)
		}
	}, commute)
}

// sizedOp is a user's C function as a Go op over whole elements of a
// derived datatype h of the given extent (made per call: a derived
// handle may be freed and given to another type).
func sizedOp(fn *C.MPI_User_function, commute bool, h C.MPI_Datatype, extent int) (*mpi.Op, error) {
	return mpi.NewSizedOp(extent, func(in, inout []byte) {
		if n := min(len(in), len(inout)) / extent; n > 0 {
			C.lamgo_call_user_fn(fn, unsafe.Pointer(&in[0]), unsafe.Pointer(&inout[0]), C.int(n), h)
		}
	}, commute)
}

// reducerOf is the reducer of a basic Go datatype.
func reducerOf(d *mpi.Datatype) reducer {
	switch d {
	case mpi.Int8:
		return typed[int8]{}
	case mpi.Int16:
		return typed[int16]{}
	case mpi.Uint16:
		return typed[uint16]{}
	case mpi.Int32:
		return typed[int32]{}
	case mpi.Uint32:
		return typed[uint32]{}
	case mpi.Int64:
		return typed[int64]{}
	case mpi.Uint64:
		return typed[uint64]{}
	case mpi.Float32:
		return typed[float32]{}
	case mpi.Float64:
		return typed[float64]{}
	case mpi.Complex64:
		return typed[complex64]{}
	case mpi.Complex128:
		return typed[complex128]{}
	}
	return typed[uint8]{} // Uint8, Byte, Char, Bool
}

// The blocking collectives; their nonblocking forms are in icoll.go.

// capiGo_Barrier is MPI_Barrier's Go path (fastcoll.c's capi_Barrier tries the C fast
// path first), which teaches the fast path how it ran.
//
//export capiGo_Barrier
func capiGo_Barrier(comm C.MPI_Comm) C.int {
	return fcLearn(comm, fcKey{kind: fcBarrier}, func() C.int { return barrierCall(comm, nil) })
}

// capiGo_Bcast is MPI_Bcast's Go path (fastcoll.c's capi_Bcast tries the C fast
// path first), which teaches the fast path how it ran.
//
//export capiGo_Bcast
func capiGo_Bcast(buf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, root C.int, comm C.MPI_Comm) C.int {
	return fcLearn(comm, fcKey{kind: fcBcast, sbuf: buf, scount: count, stype: datatype, root: root}, func() C.int { return bcastCall(buf, count, datatype, root, comm, nil) })
}

// capiGo_Gather is MPI_Gather's Go path (fastcoll.c's capi_Gather tries the C fast
// path first), which teaches the fast path how it ran.
//
//export capiGo_Gather
func capiGo_Gather(sendbuf unsafe.Pointer, sendcount C.int, sendtype C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.int, recvtype C.MPI_Datatype, root C.int, comm C.MPI_Comm) C.int {
	return fcLearn(comm, fcKey{kind: fcGather, sbuf: sendbuf, scount: sendcount, stype: sendtype, rbuf: recvbuf, rcount: recvcount, rtype: recvtype, root: root}, func() C.int {
		return gatherCall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, nil)
	})
}

// capiGo_Scatter is MPI_Scatter's Go path (fastcoll.c's capi_Scatter tries the C fast
// path first), which teaches the fast path how it ran.
//
//export capiGo_Scatter
func capiGo_Scatter(sendbuf unsafe.Pointer, sendcount C.int, sendtype C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.int, recvtype C.MPI_Datatype, root C.int, comm C.MPI_Comm) C.int {
	return fcLearn(comm, fcKey{kind: fcScatter, sbuf: sendbuf, scount: sendcount, stype: sendtype, rbuf: recvbuf, rcount: recvcount, rtype: recvtype, root: root}, func() C.int {
		return scatterCall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, nil)
	})
}

//export capi_Gatherv
func capi_Gatherv(sendbuf unsafe.Pointer, sendcount C.int, sendtype C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts, displs *C.int, recvtype C.MPI_Datatype, root C.int, comm C.MPI_Comm) C.int {
	return gathervCall(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, nil)
}

//export capi_Scatterv
func capi_Scatterv(sendbuf unsafe.Pointer, sendcounts, displs *C.int, sendtype C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.int, recvtype C.MPI_Datatype, root C.int, comm C.MPI_Comm) C.int {
	return scattervCall(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, nil)
}

// capiGo_Allgather is MPI_Allgather's Go path (fastcoll.c's capi_Allgather tries the C fast
// path first), which teaches the fast path how it ran.
//
//export capiGo_Allgather
func capiGo_Allgather(sendbuf unsafe.Pointer, sendcount C.int, sendtype C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.int, recvtype C.MPI_Datatype, comm C.MPI_Comm) C.int {
	return fcLearn(comm, fcKey{kind: fcAllgather, sbuf: sendbuf, scount: sendcount, stype: sendtype, rbuf: recvbuf, rcount: recvcount, rtype: recvtype}, func() C.int {
		return allgatherCall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, nil)
	})
}

// capiGo_Alltoall is MPI_Alltoall's Go path (fastcoll.c's capi_Alltoall tries the C fast
// path first), which teaches the fast path how it ran.
//
//export capiGo_Alltoall
func capiGo_Alltoall(sendbuf unsafe.Pointer, sendcount C.int, sendtype C.MPI_Datatype, recvbuf unsafe.Pointer, recvcount C.int, recvtype C.MPI_Datatype, comm C.MPI_Comm) C.int {
	return fcLearn(comm, fcKey{kind: fcAlltoall, sbuf: sendbuf, scount: sendcount, stype: sendtype, rbuf: recvbuf, rcount: recvcount, rtype: recvtype}, func() C.int {
		return alltoallCall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, nil)
	})
}

//export capi_Allgatherv
func capi_Allgatherv(sendbuf unsafe.Pointer, sendcount C.int, sendtype C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts, displs *C.int, recvtype C.MPI_Datatype, comm C.MPI_Comm) C.int {
	return allgathervCall(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, nil)
}

//export capi_Alltoallv
func capi_Alltoallv(sendbuf unsafe.Pointer, sendcounts, sdispls *C.int, sendtype C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts, rdispls *C.int, recvtype C.MPI_Datatype, comm C.MPI_Comm) C.int {
	return alltoallvCall(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, nil)
}

//export capi_Alltoallw
func capi_Alltoallw(sendbuf unsafe.Pointer, sendcounts, sdispls *C.int, sendtypes *C.MPI_Datatype, recvbuf unsafe.Pointer, recvcounts, rdispls *C.int, recvtypes *C.MPI_Datatype, comm C.MPI_Comm) C.int {
	return alltoallwCall(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, nil)
}

// capiGo_Reduce is MPI_Reduce's Go path (fastcoll.c's capi_Reduce tries the C fast
// path first), which teaches the fast path how it ran.
//
//export capiGo_Reduce
func capiGo_Reduce(sendbuf, recvbuf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, op C.MPI_Op, root C.int, comm C.MPI_Comm) C.int {
	return fcLearn(comm, fcKey{kind: fcReduce, sbuf: sendbuf, scount: count, stype: datatype, rbuf: recvbuf, rcount: count, rtype: datatype, op: op, root: root}, func() C.int { return reduceCall(sendbuf, recvbuf, count, datatype, op, root, comm, nil) })
}

// capiGo_Allreduce is MPI_Allreduce's Go path (fastcoll.c's capi_Allreduce tries the C fast
// path first), which teaches the fast path how it ran.
//
//export capiGo_Allreduce
func capiGo_Allreduce(sendbuf, recvbuf unsafe.Pointer, count C.int, datatype C.MPI_Datatype, op C.MPI_Op, comm C.MPI_Comm) C.int {
	return fcLearn(comm, fcKey{kind: fcAllreduce, sbuf: sendbuf, scount: count, stype: datatype, rbuf: recvbuf, rcount: count, rtype: datatype, op: op}, func() C.int { return allreduceCall(sendbuf, recvbuf, count, datatype, op, comm, nil) })
}

//export capi_Reduce_scatter
func capi_Reduce_scatter(sendbuf, recvbuf unsafe.Pointer, recvcounts *C.int, datatype C.MPI_Datatype, op C.MPI_Op, comm C.MPI_Comm) C.int {
	return reduceScatterCall(sendbuf, recvbuf, recvcounts, datatype, op, comm, nil)
}

//export capi_Reduce_scatter_block
func capi_Reduce_scatter_block(sendbuf, recvbuf unsafe.Pointer, recvcount C.int, datatype C.MPI_Datatype, op C.MPI_Op, comm C.MPI_Comm) C.int {
	return reduceScatterBlockCall(sendbuf, recvbuf, recvcount, datatype, op, comm, nil)
}
