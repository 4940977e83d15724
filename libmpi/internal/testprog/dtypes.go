package main

import (
	"fmt"
	"os"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
	"github.com/lamgo/lam/shared/ssi"
)

// The datatype suite:
//
//	dtypes   derived datatypes between ranks: slices of Go structs (TypeOf)
//	         around a ring, matrix columns gathered, a distributed array
//	         (darray) put together at rank 0, the collectives and
//	         reductions over derived types, external32 between ranks, and an
//	         argument error on one rank reported on all; prints "dtypes ok"
func init() { suites["dtypes"] = dtypeSuite }

type dtRec struct {
	Tag  int8
	Val  float64
	Cnt  int32
	Pos  [2]float32
	Flag bool
}

func dtRecOf(src, i int) dtRec {
	return dtRec{int8(src), float64(src) + float64(i)/4, int32(-src * i), [2]float32{float32(i), float32(src)}, (src+i)%2 == 0}
}

// mustV returns v, or fails on err (which names the MPI call).
func mustV[T any](v T, err error) T {
	mustOK("", err)
	return v
}

func dtypeSuite(rank, size int) {
	w := mpi.World
	w.SetErrhandler(mpi.ErrorsReturn)
	next, prev := (rank+1)%size, (rank+size-1)%size

	// Struct slices around the ring, with count > 1.
	rt := mustV(mpi.TypeOf[dtRec]())
	if rt.Extent() != int(unsafe.Sizeof(dtRec{})) {
		fail("extent %d, Sizeof %d", rt.Extent(), unsafe.Sizeof(dtRec{}))
	}
	out := make([]dtRec, 7)
	for i := range out {
		out[i] = dtRecOf(rank, i)
	}
	in := make([]dtRec, len(out))
	ob := mustV(mpi.AsBytes(out))
	ib := mustV(mpi.AsBytes(in))
	req := mustV(mpi.Isend(w, ob[:0:0], next, 90)) // a zero-length message first
	mustV(req.Wait())
	if st, err := mpi.RecvType(w, ib, 0, rt, prev, 90); err != nil || st.Bytes != 0 {
		fail("zero count: %+v %v", st, err)
	}
	go func() { mustOK("SendType", mpi.SendType(w, ob, len(out), rt, next, 91)) }()
	st := mustV(mpi.RecvType(w, ib, len(in), rt, prev, 91))
	if mpi.GetCountType(st, rt) != len(in) || mpi.GetElements(st, rt) != 6*len(in) {
		fail("count %d elements %d", mpi.GetCountType(st, rt), mpi.GetElements(st, rt))
	}
	for i := range in {
		if in[i] != dtRecOf(prev, i) {
			fail("ring element %d: %+v", i, in[i])
		}
	}
	mustOK("barrier", mpi.Barrier(w))

	// Column r of a 3×size matrix from every rank into rank 0's matrix.
	col := mustV(mpi.TypeVector(3, 1, size, mpi.Float64))
	m := make([]float64, 3*size)
	for i := range 3 {
		m[i*size+rank] = float64(100*i + rank)
	}
	mb := unsafe.Slice((*byte)(unsafe.Pointer(&m[0])), 8*len(m))
	if rank != 0 {
		mustOK("send column", mpi.SendType(w, mb[8*rank:], 1, col, 0, 92))
	} else {
		for r := 1; r < size; r++ {
			mustV(mpi.RecvType(w, mb[8*r:], 1, col, r, 92))
		}
		for i := range 3 {
			for r := range size {
				if m[i*size+r] != float64(100*i+r) {
					fail("matrix[%d][%d] = %v", i, r, m[i*size+r])
				}
			}
		}
	}

	// A 5×7 array of int32 in blocks of rows and cyclic(2) columns over a
	// size×1 grid, put together at rank 0.
	gs := []int{5, 7}
	dists := []mpi.Distribution{mpi.DistributeBlock, mpi.DistributeCyclic}
	dargs := []int{mpi.DistributeDfltDarg, 2}
	part := func(r int) *mpi.Datatype {
		return mustV(mpi.TypeCreateDarray(size, r, gs, dists, dargs, []int{size, 1}, mpi.OrderC, mpi.Int32))
	}
	g := make([]int32, 35)
	for i := range g {
		g[i] = int32(1000 + i)
	}
	gb := unsafe.Slice((*byte)(unsafe.Pointer(&g[0])), 4*len(g))
	if rank != 0 {
		mustOK("send darray", mpi.SendType(w, gb, 1, part(rank), 0, 93))
	} else {
		all := make([]int32, 35)
		ab := unsafe.Slice((*byte)(unsafe.Pointer(&all[0])), 4*len(all))
		pos := 0
		local := make([]byte, part(0).Size())
		mustOK("pack own", mpi.Pack(gb, 1, part(0), local, &pos))
		pos = 0
		mustOK("unpack own", mpi.Unpack(local, &pos, ab, 1, part(0)))
		for r := 1; r < size; r++ {
			mustV(mpi.RecvType(w, ab, 1, part(r), r, 93))
		}
		for i := range all {
			if all[i] != int32(1000+i) {
				fail("darray element %d = %d", i, all[i])
			}
		}
	}

	// Collectives: every rank's structs to every rank.
	two := out[:2]
	tb := mustV(mpi.AsBytes(two))
	every := make([]dtRec, 2*size)
	eb := mustV(mpi.AsBytes(every))
	mustOK("AllgatherType", mpi.AllgatherType(w, tb, 2, rt, eb, 2, rt))
	for r := range size {
		for i := range 2 {
			if every[2*r+i] != dtRecOf(r, i) {
				fail("allgather from %d: %+v", r, every[2*r+i])
			}
		}
	}
	// The root's subarray (rows 1..2 of a 4×4 byte array) broadcast.
	sub := mustV(mpi.TypeCreateSubarray([]int{4, 4}, []int{2, 4}, []int{1, 0}, mpi.OrderC, mpi.Byte))
	arr := make([]byte, 16)
	if rank == 0 {
		for i := range arr {
			arr[i] = byte(i)
		}
	}
	mustOK("BcastType", mpi.BcastType(w, arr, 1, sub, 0))
	for i := range arr {
		want := byte(i)
		if rank != 0 && (i < 4 || i >= 12) {
			want = 0 // outside the subarray: untouched
		}
		if arr[i] != want {
			fail("bcast subarray: %v", arr)
		}
	}
	// Alltoall: to rank j goes column j of a 2×size int32 matrix, as 2 ints.
	a := make([]int32, 2*size)
	for j := range size {
		a[j], a[size+j] = int32(10*rank+j), int32(-10*rank-j)
	}
	ab := unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), 4*len(a))
	c2 := mustV(mpi.TypeVector(2, 1, size, mpi.Int32))
	c2 = mustV(mpi.TypeCreateResized(c2, 0, 4))
	got := make([]int32, 2*size)
	gotb := unsafe.Slice((*byte)(unsafe.Pointer(&got[0])), 4*len(got))
	mustOK("AlltoallType", mpi.AlltoallType(w, ab, 1, c2, gotb, 2, mpi.Int32))
	for i := range size {
		if got[2*i] != int32(10*i+rank) || got[2*i+1] != int32(-10*i-rank) {
			fail("alltoall from %d: %v", i, got[2*i:2*i+2])
		}
	}

	// Reductions over a column: rank r's column holds r+i; the sums are
	// size*(size-1)/2 + size*i.
	m3 := make([]int64, 3*3)
	for i := range 3 {
		m3[3*i+1] = int64(rank + i)
	}
	m3b := unsafe.Slice((*byte)(unsafe.Pointer(&m3[0])), 8*len(m3))
	c3 := mustV(mpi.TypeVector(3, 1, 3, mpi.Int64))
	sums := make([]int64, 3*3)
	sb := unsafe.Slice((*byte)(unsafe.Pointer(&sums[0])), 8*len(sums))
	mustOK("AllreduceType", mpi.AllreduceType(w, m3b[8:], sb[16:], 1, c3, mpi.Sum))
	for i := range 3 {
		if want := int64(size*(size-1)/2 + size*i); sums[3*i+2] != want || sums[3*i] != 0 || sums[3*i+1] != 0 {
			fail("allreduce of a column: %v", sums)
		}
	}
	maxOp := mustV(mpi.NewOp(func(in, inout []int64) {
		for i := range in {
			inout[i] = max(in[i], inout[i])
		}
	}, false))
	clear(sums)
	mustOK("ReduceType", mpi.ReduceType(w, m3b[8:], sb, 1, c3, maxOp, size-1))
	if rank == size-1 && (sums[0] != int64(size-1) || sums[3] != int64(size) || sums[6] != int64(size+1)) {
		fail("reduce of a column with a user op: %v", sums)
	}

	// external32 between ranks.
	n := mustV(mpi.PackExternalSize(mpi.External32, len(out), rt))
	buf := make([]byte, n)
	pos := 0
	mustOK("PackExternal", mpi.PackExternal(mpi.External32, ob, len(out), rt, buf, &pos))
	go func() { mustOK("send external", mpi.Send(w, buf, next, 94)) }()
	rbuf := make([]byte, n)
	mustV(mpi.Recv(w, rbuf, prev, 94))
	clear(in)
	pos = 0
	mustOK("UnpackExternal", mpi.UnpackExternal(mpi.External32, rbuf, &pos, ib, len(in), rt))
	for i := range in {
		if in[i] != dtRecOf(prev, i) {
			fail("external32 element %d: %+v", i, in[i])
		}
	}

	dtypeVColl(rank, size)
	dtypeTypeOps(rank, size)

	// An argument error on the last rank (a null datatype) is that rank's
	// MPI_ERR_TYPE, at once. At coll_base_check=2 every rank returns an
	// error; at 1 (the default) a small Bcast sends the call with the data,
	// so the root and the ranks whose call is the root's do not learn
	// (docs/coll.md).
	var bad *mpi.Datatype = mpi.Int32
	if rank == size-1 {
		bad = nil
	}
	checkAll := os.Getenv(ssi.EnvPrefix+"coll_base_check") == "2"
	err := mpi.BcastType(w, make([]byte, 4), 1, bad, 0)
	switch {
	case rank == size-1 && mpi.Class(err) != mpi.ErrType:
		fail("an argument error on rank %d: %v", size-1, err)
	case rank != size-1 && err == nil && checkAll:
		fail("an argument error on rank %d: no error on rank %d at coll_base_check=2", size-1, rank)
	}
	mustOK("barrier", mpi.Barrier(w))
	if rank == 0 {
		fmt.Println("dtypes ok")
	}
}

// dtypeVColl checks the v collectives and scans over datatypes: rank r
// sends r+1 Int32s as a vector of stride 2 (its values r*100+i), the
// others receive them as contiguous runs at displacements in Int32s.
func dtypeVColl(rank, size int) {
	w := mpi.World
	i32 := func(s []int32) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), 4*len(s)) }
	vec := func(n int) *mpi.Datatype { return mustV(mpi.TypeVector(n, 1, 2, mpi.Int32)) }
	spread := make([]int32, 2*size)
	for i := range spread {
		spread[i] = -1
	}
	for i := range rank + 1 {
		spread[2*i] = int32(rank*100 + i)
	}
	counts, displs := make([]int, size), make([]int, size)
	total := 0
	for i := range size {
		counts[i], displs[i] = i+1, total+1 // a gap of one before each block
		total += i + 2
	}
	runs := func(got []int32) {
		for i := range size {
			for j := range i + 1 {
				if got[displs[i]+j] != int32(i*100+j) {
					fail("block %d of %v", i, got)
				}
			}
			if got[displs[i]-1] != -7 {
				fail("the gap before block %d of %v", i, got)
			}
		}
	}
	fresh := func() []int32 {
		g := make([]int32, total)
		for i := range g {
			g[i] = -7
		}
		return g
	}
	root := size - 1
	got := fresh()
	mustOK("GathervType", mpi.GathervType(w, i32(spread), 1, vec(rank+1), i32(got), counts, displs, mpi.Int32, root))
	if rank == root {
		runs(got)
	}
	got = fresh()
	mustOK("AllgathervType", mpi.AllgathervType(w, i32(spread), 1, vec(rank+1), i32(got), counts, displs, mpi.Int32))
	runs(got)
	// Scatterv back from the root's runs into each rank's vector.
	back := make([]int32, 2*size)
	mustOK("ScattervType", mpi.ScattervType(w, i32(got), counts, displs, mpi.Int32, i32(back), 1, vec(rank+1), root))
	for i := range rank + 1 {
		if back[2*i] != int32(rank*100+i) || back[2*i+1] != 0 {
			fail("ScattervType: %v", back)
		}
	}
	// Alltoallv: rank r sends j+1 elements of its vector to j (from
	// element 0), receives r+1 from each i as a contiguous run.
	sc, sd := make([]int, size), make([]int, size)
	rc, rd := make([]int, size), make([]int, size)
	long := make([]int32, 2*size)
	for i := range long {
		long[i] = int32(rank*1000 + i)
	}
	for j := range size {
		sc[j], sd[j] = j+1, 0
		rc[j], rd[j] = rank+1, j*(rank+1)
	}
	one := mustV(mpi.TypeCreateResized(mustV(mpi.TypeVector(1, 1, 1, mpi.Int32)), 0, 8)) // every other Int32
	all := make([]int32, size*(rank+1))
	mustOK("AlltoallvType", mpi.AlltoallvType(w, i32(long), sc, sd, one, i32(all), rc, rd, mpi.Int32))
	for i := range size {
		for j := range rank + 1 {
			if all[rd[i]+j] != int32(i*1000+2*j) {
				fail("AlltoallvType from %d: %v", i, all)
			}
		}
	}
	// Scans of a column: rank r contributes r+1 at both places.
	col := vec(2)
	mine := []int32{int32(rank + 1), -1, int32(rank + 1)}
	res := []int32{-5, -5, -5}
	mustOK("ScanType", mpi.ScanType(w, i32(mine), i32(res), 1, col, mpi.Sum))
	if want := int32((rank + 1) * (rank + 2) / 2); res[0] != want || res[2] != want || res[1] != -5 {
		fail("ScanType: %v", res)
	}
	res = []int32{-5, -5, -5}
	mustOK("ExscanType", mpi.ExscanType(w, i32(mine), i32(res), 1, col, mpi.Sum))
	if want := int32(rank * (rank + 1) / 2); rank > 0 && (res[0] != want || res[2] != want) || rank == 0 && res[0] != -5 || res[1] != -5 {
		fail("ExscanType: %v", res)
	}
	// ReduceScatter: rank r gets r+1 columns of the sums.
	in := make([]int32, 3*(size*(size+1)/2))
	for i := range in {
		in[i] = int32(i + rank)
	}
	rcounts := make([]int, size)
	for i := range rcounts {
		rcounts[i] = i + 1
	}
	colx := mustV(mpi.TypeCreateResized(col, 0, 12))
	out := make([]int32, 3*(rank+1))
	mustOK("ReduceScatterType", mpi.ReduceScatterType(w, i32(in), i32(out), rcounts, colx, mpi.Sum))
	first := 3 * (rank * (rank + 1) / 2)
	for e := range rank + 1 {
		for _, k := range []int{0, 2} {
			i := first + 3*e + k
			if want := int32(size*i + size*(size-1)/2); out[3*e+k] != want || out[3*e+1] != 0 {
				fail("ReduceScatterType: %v", out)
			}
		}
	}
}

// dtypeTypeOps reduces dtRec values (mixed basic types) with a
// NewTypeOp: commutative in Allreduce, and in rank order in Scan.
func dtypeTypeOps(rank, size int) {
	w := mpi.World
	rt := mustV(mpi.TypeOf[dtRec]())
	op := mustV(mpi.NewTypeOp(func(in, inout []dtRec) {
		for i := range in {
			inout[i].Tag = max(in[i].Tag, inout[i].Tag)
			inout[i].Val += in[i].Val
			inout[i].Cnt = min(in[i].Cnt, inout[i].Cnt)
			inout[i].Flag = in[i].Flag || inout[i].Flag
		}
	}, true))
	mine := make([]dtRec, 3)
	for i := range mine {
		mine[i] = dtRecOf(rank, i)
	}
	got := make([]dtRec, 3)
	mustOK("AllreduceType with a NewTypeOp", mpi.AllreduceType(w, mustV(mpi.AsBytes(mine)), mustV(mpi.AsBytes(got)), 3, rt, op))
	for i := range got {
		var want dtRec
		want.Cnt = 1 << 30
		for r := range size {
			x := dtRecOf(r, i)
			want.Tag = max(want.Tag, x.Tag)
			want.Val += x.Val
			want.Cnt = min(want.Cnt, x.Cnt)
			want.Flag = want.Flag || x.Flag
		}
		if got[i].Tag != want.Tag || got[i].Val != want.Val || got[i].Cnt != want.Cnt || got[i].Flag != want.Flag {
			fail("AllreduceType with a NewTypeOp, element %d: %+v, want %+v", i, got[i], want)
		}
	}
	// Non-commutative: the ranks' Tags joined in rank order as digits.
	order := mustV(mpi.NewTypeOp(func(in, inout []dtRec) {
		for i := range in {
			inout[i].Cnt = in[i].Cnt*10 + inout[i].Cnt
		}
	}, false))
	one := []dtRec{{Cnt: int32(rank%9 + 1)}}
	res := make([]dtRec, 1)
	mustOK("ScanType with a NewTypeOp", mpi.ScanType(w, mustV(mpi.AsBytes(one)), mustV(mpi.AsBytes(res)), 1, rt, order))
	want := int32(0)
	for r := range rank + 1 {
		want = want*10 + int32(r%9+1)
	}
	if res[0].Cnt != want {
		fail("ScanType with a NewTypeOp: %d, want %d", res[0].Cnt, want)
	}
}
