package main

import (
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// The collective suites:
//
//	coll        every collective and every op on World, a duplicate, a
//	            split and an intercommunicator, checked against serial
//	            computations; prints "coll ok <module>"
//	collerr     mismatched roots, counts, ops and collectives are errors on
//	            every process, and the communicator works after
//	collsum     rank 0 prints a digest of float64 reductions (Allreduce,
//	            Reduce, Scan, Reduce_scatter), to compare between runs
func init() {
	suites["coll"] = collSuite
	suites["collerr"] = collErrSuite
	suites["collsum"] = collSumSuite
}

func mustOK(what string, err error) {
	if err != nil {
		fail("%s: %v", what, err)
	}
}

func want[T comparable](what string, got, exp []T) {
	if !slices.Equal(got, exp) {
		n := min(len(got), 6)
		m := min(len(exp), 6)
		fail("%s: got %v…, want %v… (%d and %d elements)", what, got[:n], exp[:m], len(got), len(exp))
	}
}

// iv is rank r's i-th test value.
func iv(r, i int) int64 { return int64(r*1000 + i*7 + 1) }

func ivs(r, k int) []int64 {
	out := make([]int64, k)
	for i := range out {
		out[i] = iv(r, i)
	}
	return out
}

func collSuite(rank, size int) {
	mpi.World.SetErrhandler(mpi.ErrorsReturn)
	module := mpi.World.CollModule()
	intra("world", mpi.World)
	dup, err := mpi.World.Dup()
	mustOK("dup", err)
	intra("dup", dup)
	half, err := mpi.World.Split(rank%2, -rank)
	mustOK("split", err)
	intra("split", half)
	ops(mpi.World)
	if size >= 2 {
		// An intercommunicator between the even and odd ranks, through
		// World; the leaders are ranks 0 and 1 of World.
		side, err := mpi.World.Split(rank%2, rank)
		mustOK("split by parity", err)
		ic, err := mpi.IntercommCreate(side, 0, mpi.World, 1-rank%2, 77)
		mustOK("intercomm create", err)
		if !ic.TestInter() || side.TestInter() {
			fail("test inter")
		}
		if rs, err := ic.RemoteSize(); err != nil || rs != size/2+(size%2)*(rank%2) {
			fail("remote size %d: %v", rs, err)
		}
		if rg, err := ic.RemoteGroup(); err != nil || rg.Size() != size/2+(size%2)*(rank%2) {
			fail("remote group: %v", err)
		}
		if _, err := mpi.World.RemoteSize(); mpi.Class(err) != mpi.ErrComm {
			fail("remote size of an intracommunicator: %v", err)
		}
		inter("intercomm", ic, rank%2 == 0)
		idup, err := ic.Dup()
		mustOK("intercomm dup", err)
		inter("intercomm dup", idup, rank%2 == 0)
		// Point-to-point across it: each even rank e talks to odd e+1.
		if side.Rank() < mustInt(ic.RemoteSize()) {
			got := []int64{0}
			_, err := mpi.Sendrecv(ic, []int64{int64(rank)}, side.Rank(), 5, got, side.Rank(), 5)
			mustOK("sendrecv on an intercommunicator", err)
			if got[0] != int64(rank^1) {
				fail("intercomm sendrecv got %d", got[0])
			}
		}
		// Merge: odd ranks high, so evens come first; then all low, so
		// the group with World rank 0 does.
		for _, high := range []bool{rank%2 == 1, false} {
			m, err := ic.Merge(high)
			mustOK("merge", err)
			wr := rank/2 + (rank%2)*((size+1)/2)
			if m.Size() != size || m.Rank() != wr {
				fail("merged: rank %d of %d, want %d of %d", m.Rank(), m.Size(), wr, size)
			}
			intra("merged", m)
			mustOK("free merged", m.Free())
		}
		mustOK("free intercomm dup", idup.Free())
		mustOK("free intercomm", ic.Free())
		mustOK("free split by parity", side.Free())
	}
	mustOK("free split", half.Free())
	mustOK("free dup", dup.Free())
	mustOK("final barrier", mpi.Barrier(mpi.World))
	if rank == 0 {
		fmt.Println("coll ok", module)
	}
}

func mustInt(n int, err error) int {
	mustOK("int", err)
	return n
}

// intra runs every intracommunicator collective on c.
func intra(name string, c *mpi.Comm) {
	n, r := c.Size(), c.Rank()
	mustOK(name+" barrier", mpi.Barrier(c))
	for _, k := range []int{1, 5, 3000} {
		for _, root := range []int{0, n - 1, n / 2} {
			w := func(s string) string { return fmt.Sprintf("%s %s (k=%d root=%d)", name, s, k, root) }
			// Bcast.
			buf := make([]int64, k)
			if r == root {
				copy(buf, ivs(root, k))
			}
			mustOK(w("bcast"), mpi.Bcast(c, buf, root))
			want(w("bcast"), buf, ivs(root, k))
			// Gather, in place too.
			all := make([]int64, 0, n*k)
			for i := 0; i < n; i++ {
				all = append(all, ivs(i, k)...)
			}
			for _, inPlace := range []bool{false, true} {
				var recv []int64
				send := ivs(r, k)
				if r == root {
					recv = make([]int64, n*k)
					if inPlace {
						copy(recv[r*k:], send)
						send = nil
					}
				}
				mustOK(w("gather"), mpi.Gather(c, send, recv, root))
				if r == root {
					want(w("gather"), recv, all)
				}
				// Scatter, in place too.
				var sb []int64
				rb := make([]int64, k)
				if r == root {
					sb = slices.Clone(all)
					if inPlace {
						rb = nil
					}
				}
				mustOK(w("scatter"), mpi.Scatter(c, sb, rb, root))
				if rb != nil {
					want(w("scatter"), rb, ivs(r, k))
				}
			}
			// Gatherv and Scatterv: rank i has i%3+k elements, placed in
			// reverse order with gaps that keep their -1s.
			counts, displs := make([]int, n), make([]int, n)
			pos := 0
			for i := n - 1; i >= 0; i-- {
				counts[i], displs[i] = i%3+k, pos
				pos += counts[i] + 2
			}
			vbuf := func() []int64 {
				b := make([]int64, pos)
				for i := range b {
					b[i] = -1
				}
				return b
			}
			vall := vbuf()
			for i := 0; i < n; i++ {
				copy(vall[displs[i]:], ivs(i, counts[i]))
			}
			var recv []int64
			if r == root {
				recv = vbuf()
			}
			mustOK(w("gatherv"), mpi.Gatherv(c, ivs(r, counts[r]), recv, counts, displs, root))
			if r == root {
				want(w("gatherv"), recv, vall)
			}
			rb := make([]int64, counts[r])
			mustOK(w("scatterv"), mpi.Scatterv(c, vall, counts, displs, rb, root))
			want(w("scatterv"), rb, ivs(r, counts[r]))
			if root != 0 {
				continue
			}
			// Allgather (in place too) and Allgatherv.
			for _, inPlace := range []bool{false, true} {
				recv := make([]int64, n*k)
				send := ivs(r, k)
				if inPlace {
					copy(recv[r*k:], send)
					send = nil
				}
				mustOK(w("allgather"), mpi.Allgather(c, send, recv))
				want(w("allgather"), recv, all)
			}
			recv = vbuf()
			mustOK(w("allgatherv"), mpi.Allgatherv(c, ivs(r, counts[r]), recv, counts, displs))
			want(w("allgatherv"), recv, vall)
			// Alltoall (in place too): block j of rank r is ivs(r*100+j).
			for _, inPlace := range []bool{false, true} {
				send, exp := make([]int64, 0, n*k), make([]int64, 0, n*k)
				for j := 0; j < n; j++ {
					send = append(send, ivs(r*100+j, k)...)
					exp = append(exp, ivs(j*100+r, k)...)
				}
				recv := make([]int64, n*k)
				if inPlace {
					copy(recv, send)
					send = nil
				}
				mustOK(w("alltoall"), mpi.Alltoall(c, send, recv))
				want(w("alltoall"), recv, exp)
			}
			// Alltoallv: (r+j)%3 elements from r to j.
			sc, sd, rc, rd := make([]int, n), make([]int, n), make([]int, n), make([]int, n)
			var send, exp []int64
			for j := 0; j < n; j++ {
				sc[j], sd[j] = (r+j)%3, len(send)
				send = append(send, ivs(r*100+j, sc[j])...)
				rc[j], rd[j] = (r+j)%3, len(exp)
				exp = append(exp, ivs(j*100+r, rc[j])...)
			}
			recv = make([]int64, len(exp))
			mustOK(w("alltoallv"), mpi.Alltoallv(c, send, sc, sd, recv, rc, rd))
			want(w("alltoallv"), recv, exp)
			// Alltoallw: to process j, j+1 int32s taken with a stride of 2
			// (a vector type), received contiguously.
			alltoallw(w("alltoallw"), c)
			// Reductions: int64 sums, and a user's non-commutative op.
			reductions(w("reduction"), c, k)
		}
		reductionsRoot(name, c, k)
	}
}

func alltoallw(what string, c *mpi.Comm) {
	n, r := c.Size(), c.Rank()
	sc, sd, rc, rd := make([]int, n), make([]int, n), make([]int, n), make([]int, n)
	st, rt := make([]*mpi.Datatype, n), make([]*mpi.Datatype, n)
	var send []int32
	for j := 0; j < n; j++ {
		vt, err := mpi.TypeVector(j+1, 1, 2, mpi.Int32)
		mustOK(what+" type", err)
		sc[j], sd[j], st[j] = 1, 4*len(send), vt
		for i := 0; i < 2*(j+1); i++ {
			send = append(send, int32(r*100+j*10+i))
		}
	}
	recvLen := 0
	for j := 0; j < n; j++ {
		rc[j], rd[j], rt[j] = r+1, 4*recvLen, mpi.Int32
		recvLen += r + 1
	}
	recv := make([]int32, recvLen)
	sbytes := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(send))), 4*len(send))
	rbytes := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(recv))), 4*len(recv))
	mustOK(what, mpi.Alltoallw(c, sbytes, sc, sd, st, rbytes, rc, rd, rt))
	var exp []int32
	for j := 0; j < n; j++ {
		for i := 0; i < r+1; i++ {
			exp = append(exp, int32(j*100+r*10+2*i))
		}
	}
	want(what, recv, exp)
}

// affine is a user's non-commutative op: x ↦ a·x + b as the complex
// a+bi, composed f∘g (in ∘ inout).
func affine(in, inout []complex128) {
	for i := range inout {
		a1, b1, a2, b2 := real(in[i]), imag(in[i]), real(inout[i]), imag(inout[i])
		inout[i] = complex(a1*a2, a1*b2+b1)
	}
}

func affineOf(r, i int) complex128 { return complex(float64((r+i)%3+1), float64(r*2+i%5)) }

func affineRef(lo, hi, i int) complex128 {
	acc := affineOf(hi-1, i)
	for r := hi - 2; r >= lo; r-- {
		x := []complex128{acc}
		affine([]complex128{affineOf(r, i)}, x)
		acc = x[0]
	}
	return acc
}

func sumRef(lo, hi, k int) []int64 {
	out := make([]int64, k)
	for r := lo; r < hi; r++ {
		for i := range out {
			out[i] += iv(r, i)
		}
	}
	return out
}

func affines(r, k int) []complex128 {
	out := make([]complex128, k)
	for i := range out {
		out[i] = affineOf(r, i)
	}
	return out
}

func affineRefs(lo, hi, k int) []complex128 {
	out := make([]complex128, k)
	for i := range out {
		out[i] = affineRef(lo, hi, i)
	}
	return out
}

var affineOp *mpi.Op

func userOp() *mpi.Op {
	if affineOp == nil {
		op, err := mpi.NewOp(affine, false)
		mustOK("new op", err)
		affineOp = op
	}
	return affineOp
}

func reductionsRoot(name string, c *mpi.Comm, k int) {
	n, r := c.Size(), c.Rank()
	for _, root := range []int{0, n - 1, n / 2} {
		w := fmt.Sprintf("%s reduce (k=%d root=%d)", name, k, root)
		for _, inPlace := range []bool{false, true} {
			send, recv := rootInputs(ivs(r, k), r == root, inPlace)
			mustOK(w, mpi.Reduce(c, send, recv, mpi.Sum, root))
			if r == root {
				want(w, recv, sumRef(0, n, k))
			}
			cs, cr := rootInputs(affines(r, k), r == root, inPlace)
			mustOK(w+" user op", mpi.Reduce(c, cs, cr, userOp(), root))
			if r == root {
				want(w+" user op", cr, affineRefs(0, n, k))
			}
		}
	}
}

// rootInputs returns the send and receive buffers of a reduction to a
// root for a process contributing send: only the root has a receive
// buffer; in place, its contribution is there and send is nil.
func rootInputs[T any](send []T, atRoot, inPlace bool) ([]T, []T) {
	if !atRoot {
		return send, nil
	}
	recv := make([]T, len(send))
	if inPlace {
		copy(recv, send)
		return nil, recv
	}
	return send, recv
}

func reductions(what string, c *mpi.Comm, k int) {
	n, r := c.Size(), c.Rank()
	for _, inPlace := range []bool{false, true} {
		in := func(s []int64) ([]int64, []int64) {
			recv := make([]int64, len(s))
			if inPlace {
				copy(recv, s)
				return nil, recv
			}
			return s, recv
		}
		s, recv := in(ivs(r, k))
		mustOK(what+" allreduce", mpi.Allreduce(c, s, recv, mpi.Sum))
		want(what+" allreduce", recv, sumRef(0, n, k))
		s, recv = in(ivs(r, k))
		mustOK(what+" scan", mpi.Scan(c, s, recv, mpi.Sum))
		want(what+" scan", recv, sumRef(0, r+1, k))
		s, recv = in(ivs(r, k))
		mustOK(what+" exscan", mpi.Exscan(c, s, recv, mpi.Sum))
		if r > 0 {
			want(what+" exscan", recv, sumRef(0, r, k))
		}
		// User op: allreduce and scan.
		cs, cr := affines(r, k), make([]complex128, k)
		if inPlace {
			copy(cr, cs)
			cs = nil
		}
		mustOK(what+" allreduce user op", mpi.Allreduce(c, cs, cr, userOp()))
		want(what+" allreduce user op", cr, affineRefs(0, n, k))
		cs, cr = affines(r, k), make([]complex128, k)
		mustOK(what+" scan user op", mpi.Scan(c, cs, cr, userOp()))
		want(what+" scan user op", cr, affineRefs(0, r+1, k))
		cs, cr = affines(r, k), make([]complex128, k)
		mustOK(what+" exscan user op", mpi.Exscan(c, cs, cr, userOp()))
		if r > 0 {
			want(what+" exscan user op", cr, affineRefs(0, r, k))
		}
	}
	// Reduce_scatter: rank i gets i%2+1 elements; Reduce_scatter_block: k
	// each (in place too).
	counts := make([]int, n)
	total := 0
	for i := range counts {
		counts[i] = i%2 + 1
		total += counts[i]
	}
	off := 0
	for i := 0; i < r; i++ {
		off += counts[i]
	}
	recv := make([]int64, counts[r])
	mustOK(what+" reduce_scatter", mpi.ReduceScatter(c, ivs(r, total), recv, counts, mpi.Sum))
	want(what+" reduce_scatter", recv, sumRef(0, n, total)[off:off+counts[r]])
	cr := make([]complex128, counts[r])
	mustOK(what+" reduce_scatter user op", mpi.ReduceScatter(c, affines(r, total), cr, counts, userOp()))
	want(what+" reduce_scatter user op", cr, affineRefs(0, n, total)[off:off+counts[r]])
	recv = make([]int64, k)
	mustOK(what+" reduce_scatter_block", mpi.ReduceScatterBlock(c, ivs(r, n*k), recv, mpi.Sum))
	want(what+" reduce_scatter_block", recv, sumRef(0, n, n*k)[r*k:(r+1)*k])
	recv = ivs(r, n*k)
	mustOK(what+" reduce_scatter_block in place", mpi.ReduceScatterBlock(c, nil, recv, mpi.Sum))
	want(what+" reduce_scatter_block in place", recv[:k], sumRef(0, n, n*k)[r*k:(r+1)*k])
}

// inter runs every intercommunicator collective on c; isA says whether
// this process is in the even group (whose leader is World rank 0).
func inter(name string, c *mpi.Comm, isA bool) {
	l, nl := c.Rank(), c.Size()
	nr := mustInt(c.RemoteSize())
	gid := func(a bool, r int) int {
		if a {
			return r
		}
		return 100 + r
	}
	me := gid(isA, l)
	them := func(j int) int { return gid(!isA, j) }
	mustOK(name+" barrier", mpi.Barrier(c))
	const k = 3
	// What the other group sends: k elements each (exp), remote j's block
	// of j%3+1 elements at displs[j] (vexp).
	var exp []int64
	for j := 0; j < nr; j++ {
		exp = append(exp, ivs(them(j), k)...)
	}
	counts, displs := make([]int, nr), make([]int, nr)
	var vexp []int64
	for j := 0; j < nr; j++ {
		counts[j], displs[j] = j%3+1, len(vexp)
		vexp = append(vexp, ivs(them(j), counts[j])...)
	}
	for _, fromA := range []bool{true, false} {
		rootLocal := 0
		if fromA == isA {
			rootLocal = nl - 1
		} else {
			rootLocal = nr - 1
		}
		inRoot := isA == fromA
		root := rootLocal
		switch {
		case inRoot && l == rootLocal:
			root = mpi.Root
		case inRoot:
			root = mpi.ProcNull
		}
		rgid := gid(fromA, rootLocal)
		w := func(s string) string { return fmt.Sprintf("%s %s (from A %v)", name, s, fromA) }
		buf := make([]int64, k)
		if root == mpi.Root {
			copy(buf, ivs(me, k))
		}
		mustOK(w("bcast"), mpi.Bcast(c, buf, root))
		if !inRoot {
			want(w("bcast"), buf, ivs(rgid, k))
		}
		var send, recv []int64
		if root == mpi.Root {
			recv = make([]int64, nr*k)
		} else if !inRoot {
			send = ivs(me, k)
		}
		mustOK(w("gather"), mpi.Gather(c, send, recv, root))
		if root == mpi.Root {
			want(w("gather"), recv, exp)
		}
		send, recv = nil, nil
		if root == mpi.Root {
			send = exp
		} else if !inRoot {
			recv = make([]int64, k)
		}
		mustOK(w("scatter"), mpi.Scatter(c, send, recv, root))
		if recv != nil {
			want(w("scatter"), recv, ivs(me, k))
		}
		// Gatherv/Scatterv.
		send, recv = nil, nil
		if root == mpi.Root {
			recv = make([]int64, len(vexp))
		} else if !inRoot {
			send = ivs(me, l%3+1)
		}
		mustOK(w("gatherv"), mpi.Gatherv(c, send, recv, counts, displs, root))
		if root == mpi.Root {
			want(w("gatherv"), recv, vexp)
		}
		send, recv = nil, nil
		if root == mpi.Root {
			send = vexp
		} else if !inRoot {
			recv = make([]int64, l%3+1)
		}
		mustOK(w("scatterv"), mpi.Scatterv(c, send, counts, displs, recv, root))
		if recv != nil {
			want(w("scatterv"), recv, ivs(me, l%3+1))
		}
		// Reduce, with the user's non-commutative op too.
		send, recv = nil, nil
		var cs, cr []complex128
		if root == mpi.Root {
			recv, cr = make([]int64, k), make([]complex128, k)
		} else if !inRoot {
			send, cs = ivs(me, k), affines(me, k)
		}
		mustOK(w("reduce"), mpi.Reduce(c, send, recv, mpi.Sum, root))
		mustOK(w("reduce user op"), mpi.Reduce(c, cs, cr, userOp(), root))
		if root == mpi.Root {
			sum := make([]int64, k)
			ref := make([]complex128, k)
			for i := range ref {
				ref[i] = affineOf(them(nr-1), i)
				for j := nr - 2; j >= 0; j-- {
					x := []complex128{ref[i]}
					affine([]complex128{affineOf(them(j), i)}, x)
					ref[i] = x[0]
				}
			}
			for j := 0; j < nr; j++ {
				for i := range sum {
					sum[i] += iv(them(j), i)
				}
			}
			want(w("reduce"), recv, sum)
			want(w("reduce user op"), cr, ref)
		}
	}
	// Allgather, Allgatherv, Alltoall, Alltoallv, Allreduce,
	// Reduce_scatter(_block).
	recv := make([]int64, nr*k)
	mustOK(name+" allgather", mpi.Allgather(c, ivs(me, k), recv))
	want(name+" allgather", recv, exp)
	recv = make([]int64, len(vexp))
	mustOK(name+" allgatherv", mpi.Allgatherv(c, ivs(me, l%3+1), recv, counts, displs))
	want(name+" allgatherv", recv, vexp)
	send := make([]int64, 0, nr*k)
	exp = exp[:0]
	for j := 0; j < nr; j++ {
		send = append(send, ivs(me*50+j, k)...)
		exp = append(exp, ivs(them(j)*50+l, k)...)
	}
	recv = make([]int64, nr*k)
	mustOK(name+" alltoall", mpi.Alltoall(c, send, recv))
	want(name+" alltoall", recv, exp)
	sc, sd, rc, rd := make([]int, nr), make([]int, nr), make([]int, nr), make([]int, nr)
	send, exp = nil, nil
	for j := 0; j < nr; j++ {
		sc[j], sd[j] = (l+j)%3, len(send)
		send = append(send, ivs(me*50+j, sc[j])...)
		rc[j], rd[j] = (l+j)%3, len(exp)
		exp = append(exp, ivs(them(j)*50+l, rc[j])...)
	}
	recv = make([]int64, len(exp))
	mustOK(name+" alltoallv", mpi.Alltoallv(c, send, sc, sd, recv, rc, rd))
	want(name+" alltoallv", recv, exp)
	remoteSum := func(k int) []int64 {
		out := make([]int64, k)
		for j := 0; j < nr; j++ {
			for i := range out {
				out[i] += iv(them(j), i)
			}
		}
		return out
	}
	recv = make([]int64, k)
	mustOK(name+" allreduce", mpi.Allreduce(c, ivs(me, k), recv, mpi.Sum))
	want(name+" allreduce", recv, remoteSum(k))
	const total = 12
	rcounts := make([]int, nl)
	off := 0
	for i := range rcounts {
		rcounts[i] = total / nl
		if i < total%nl {
			rcounts[i]++
		}
		if i < l {
			off += rcounts[i]
		}
	}
	recv = make([]int64, rcounts[l])
	mustOK(name+" reduce_scatter", mpi.ReduceScatter(c, ivs(me, total), recv, rcounts, mpi.Sum))
	want(name+" reduce_scatter", recv, remoteSum(total)[off:off+rcounts[l]])
	lcm := nl * nr / gcd(nl, nr)
	rcb := lcm / nl
	recv = make([]int64, rcb)
	mustOK(name+" reduce_scatter_block", mpi.ReduceScatterBlock(c, ivs(me, lcm), recv, mpi.Sum))
	want(name+" reduce_scatter_block", recv, remoteSum(lcm)[l*rcb:(l+1)*rcb])
	if err := mpi.Scan(c, ivs(me, 1), make([]int64, 1), mpi.Sum); mpi.Class(err) != mpi.ErrComm {
		fail("%s scan: %v, want MPI_ERR_COMM", name, err)
	}
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// ops checks every predefined op on every element type it applies to
// (Allreduce and Reduce), and that the others are refused with ErrOp on
// every process.
func ops(c *mpi.Comm) {
	opsReal[int8](c, true, false)
	opsReal[uint8](c, true, false)
	opsReal[int16](c, true, false)
	opsReal[uint16](c, true, false)
	opsReal[int32](c, true, false)
	opsReal[uint32](c, true, false)
	opsReal[int64](c, true, false)
	opsReal[uint64](c, true, false)
	opsReal[int](c, true, false)
	opsReal[uint](c, true, false)
	opsReal[float32](c, false, true)
	opsReal[float64](c, false, true)
	opsComplex[complex64](c)
	opsComplex[complex128](c)
	opsLoc[int16](c)
	opsLoc[int32](c)
	opsLoc[int64](c)
	opsLoc[int](c)
	opsLoc[float32](c)
	opsLoc[float64](c)
	// User ops: freed, wrong type, predefined not freeable.
	op, err := mpi.NewOp(func(in, inout []float32) {
		for i := range inout {
			inout[i] = max(in[i], inout[i])
		}
	}, true)
	mustOK("new op", err)
	v := []float32{float32(c.Rank())}
	mustOK("user max", mpi.Allreduce(c, slices.Clone(v), v, op))
	if v[0] != float32(c.Size()-1) {
		fail("user max: %v", v)
	}
	if err := mpi.Allreduce(c, []int32{1}, make([]int32, 1), op); mpi.Class(err) != mpi.ErrOp {
		fail("user op on another type: %v", err)
	}
	mustOK("op free", op.Free())
	if err := op.Free(); mpi.Class(err) != mpi.ErrOp {
		fail("op freed twice: %v", err)
	}
	if err := mpi.Allreduce(c, v, make([]float32, 1), op); mpi.Class(err) != mpi.ErrOp {
		fail("freed op: %v", err)
	}
	if err := mpi.Sum.Free(); mpi.Class(err) != mpi.ErrOp {
		fail("free of MPI_SUM: %v", err)
	}
}

type realNum interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~int | ~uint | ~float32 | ~float64
}

var allOps = []*mpi.Op{mpi.Max, mpi.Min, mpi.Sum, mpi.Prod, mpi.Land, mpi.Band, mpi.Lor, mpi.Bor, mpi.Lxor, mpi.Bxor, mpi.MaxLoc, mpi.MinLoc}

// opValue is rank r's i-th value for op, small enough that every op is
// exact in every type.
func opValue(op *mpi.Op, signed bool, r, i, n int) int64 {
	switch op {
	case mpi.Sum:
		return int64((r + i) % 4)
	case mpi.Prod:
		switch {
		case r == i%n:
			return 2
		case signed && (r*3+i)%7 == 0:
			return -1
		}
		return 1
	case mpi.Max, mpi.Min:
		v := int64((r*7 + i*3) % 11)
		if signed {
			v -= 5
		}
		return v
	case mpi.Land, mpi.Lor, mpi.Lxor:
		return int64((r + i) % 3)
	}
	return int64((r*37 + i*11) & 0x7f)
}

func opRef(op *mpi.Op, a, b int64) int64 {
	t := func(x bool) int64 {
		if x {
			return 1
		}
		return 0
	}
	switch op {
	case mpi.Sum:
		return a + b
	case mpi.Prod:
		return a * b
	case mpi.Max:
		return max(a, b)
	case mpi.Min:
		return min(a, b)
	case mpi.Land:
		return t(a != 0 && b != 0)
	case mpi.Lor:
		return t(a != 0 || b != 0)
	case mpi.Lxor:
		return t((a != 0) != (b != 0))
	case mpi.Band:
		return a & b
	case mpi.Bor:
		return a | b
	}
	return a ^ b
}

func applies(op *mpi.Op, integer, float bool) bool {
	switch op {
	case mpi.Max, mpi.Min, mpi.Sum, mpi.Prod:
		return true
	case mpi.MaxLoc, mpi.MinLoc:
		return false
	}
	return integer
}

func opsReal[T realNum](c *mpi.Comm, integer, float bool) {
	n, r := c.Size(), c.Rank()
	signed := reflect.TypeFor[T]().Kind() != reflect.Uint8 && !slices.Contains([]reflect.Kind{reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint}, reflect.TypeFor[T]().Kind())
	const k = 7
	for _, op := range allOps {
		what := fmt.Sprintf("%s on %v", op.Name(), reflect.TypeFor[T]())
		send := make([]T, k)
		for i := range send {
			send[i] = T(opValue(op, signed, r, i, n))
		}
		recv := make([]T, k)
		if !opResult(what, mpi.Allreduce(c, send, recv, op), applies(op, integer, float)) {
			continue
		}
		exp := make([]T, k)
		for i := range exp {
			acc := opValue(op, signed, n-1, i, n)
			for j := n - 2; j >= 0; j-- {
				acc = opRef(op, opValue(op, signed, j, i, n), acc)
			}
			exp[i] = T(acc)
		}
		want(what, recv, exp)
		root := n - 1
		var rr []T
		if r == root {
			rr = make([]T, k)
		}
		mustOK(what+" reduce", mpi.Reduce(c, send, rr, op, root))
		if r == root {
			want(what+" reduce", rr, exp)
		}
	}
}

// opResult checks the error of a reduction with an op that applies to
// the type or not (then it must be MPI_ERR_OP), and reports whether there
// is a result to check.
func opResult(what string, err error, applies bool) bool {
	if !applies {
		if mpi.Class(err) != mpi.ErrOp {
			fail("%s: %v, want MPI_ERR_OP", what, err)
		}
		return false
	}
	mustOK(what, err)
	return true
}

// complexValue is element i of rank r's contribution to a complex
// reduction with op (of n processes).
func complexValue(op *mpi.Op, r, i, n int) complex128 {
	re, im := float64(opValue(mpi.Sum, true, r, i, n)), float64(opValue(mpi.Prod, true, r, i, n))
	if op == mpi.Prod {
		re, im = im, float64((r+i)%2)
	}
	return complex(re, im)
}

func opsComplex[T ~complex64 | ~complex128](c *mpi.Comm) {
	n, r := c.Size(), c.Rank()
	const k = 5
	for _, op := range allOps {
		what := fmt.Sprintf("%s on %v", op.Name(), reflect.TypeFor[T]())
		send := make([]T, k)
		for i := range send {
			send[i] = T(complexValue(op, r, i, n))
		}
		recv := make([]T, k)
		if !opResult(what, mpi.Allreduce(c, send, recv, op), op == mpi.Sum || op == mpi.Prod) {
			continue
		}
		exp := make([]T, k)
		for i := range exp {
			var acc complex128
			for j := n - 1; j >= 0; j-- {
				x := complexValue(op, j, i, n)
				switch {
				case j == n-1:
					acc = x
				case op == mpi.Sum:
					acc = x + acc
				default:
					acc = x * acc
				}
			}
			exp[i] = T(acc)
		}
		want(what, recv, exp)
	}
}

func opsLoc[V mpi.LocValue](c *mpi.Comm) {
	n, r := c.Size(), c.Rank()
	const k = 6
	val := func(r, i int) V { return V((r*7 + i*3) % 5) }
	for _, op := range allOps {
		what := fmt.Sprintf("%s on Loc[%v]", op.Name(), reflect.TypeFor[V]())
		send := make([]mpi.Loc[V], k)
		for i := range send {
			send[i] = mpi.Loc[V]{Value: val(r, i), Index: int32(r)}
		}
		recv := make([]mpi.Loc[V], k)
		if !opResult(what, allreduceLoc(c, send, recv, op), op == mpi.MaxLoc || op == mpi.MinLoc) {
			continue
		}
		for i := range recv {
			best := mpi.Loc[V]{Value: val(0, i), Index: 0}
			for j := 1; j < n; j++ {
				v := val(j, i)
				if op == mpi.MaxLoc && v > best.Value || op == mpi.MinLoc && v < best.Value {
					best = mpi.Loc[V]{Value: v, Index: int32(j)}
				}
			}
			if recv[i] != best {
				fail("%s: element %d is %+v, want %+v", what, i, recv[i], best)
			}
		}
	}
}

// allreduceLoc instantiates Allreduce for the Loc types the constraint
// lists.
func allreduceLoc[V mpi.LocValue](c *mpi.Comm, send, recv []mpi.Loc[V], op *mpi.Op) error {
	switch s := any(send).(type) {
	case []mpi.Loc[int16]:
		return mpi.Allreduce(c, s, any(recv).([]mpi.Loc[int16]), op)
	case []mpi.Loc[int32]:
		return mpi.Allreduce(c, s, any(recv).([]mpi.Loc[int32]), op)
	case []mpi.Loc[int64]:
		return mpi.Allreduce(c, s, any(recv).([]mpi.Loc[int64]), op)
	case []mpi.Loc[int]:
		return mpi.Allreduce(c, s, any(recv).([]mpi.Loc[int]), op)
	case []mpi.Loc[float32]:
		return mpi.Allreduce(c, s, any(recv).([]mpi.Loc[float32]), op)
	case []mpi.Loc[float64]:
		return mpi.Allreduce(c, s, any(recv).([]mpi.Loc[float64]), op)
	}
	return fmt.Errorf("no Loc type %T", send)
}

// collErrSuite: every process gets the error, and World works after: at
// coll_base_check=2, or at 1 where shmem serves World (one node); at 1
// lam_basic's small Bcast, Gather and Scatter (and smp's Gather and
// Scatter) report a mismatch only where data arrive (docs/coll.md).
func collErrSuite(rank, size int) {
	mpi.World.SetErrhandler(mpi.ErrorsReturn)
	if size < 2 {
		fail("collerr needs 2 processes or more")
	}
	last := rank == size-1
	expect := func(what string, cl mpi.ErrorClass, err error) {
		if mpi.Class(err) != cl {
			fail("%s: %v, want %v", what, err, cl)
		}
		mustOK(what+": barrier after", mpi.Barrier(mpi.World))
	}
	root := 0
	if last {
		root = 1
	}
	expect("mismatched roots", mpi.ErrRoot, mpi.Bcast(mpi.World, make([]float64, 3), root))
	k := 4
	if last {
		k = 5
	}
	expect("mismatched counts", mpi.ErrCount, mpi.Allreduce(mpi.World, make([]int32, k), make([]int32, k), mpi.Sum))
	op := mpi.Sum
	if last {
		op = mpi.Max
	}
	expect("mismatched ops", mpi.ErrOp, mpi.Reduce(mpi.World, []int64{1}, []int64{0}, op, 0))
	if last {
		expect("mismatched collectives", mpi.ErrOther, mpi.Barrier(mpi.World))
	} else {
		expect("mismatched collectives", mpi.ErrOther, mpi.Bcast(mpi.World, []int32{1}, 0))
	}
	// A bad root on one process, a bad op on one process.
	root = 0
	if last {
		root = size
	}
	expect("a bad root on one process", mpi.ErrRoot, mpi.Gather(mpi.World, []int32{1}, make([]int32, size), root))
	op = mpi.Sum
	if last {
		op = mpi.Band
	}
	expect("a bad op on one process", mpi.ErrOp, mpi.Allreduce(mpi.World, []float64{1}, []float64{0}, op))
	// Mismatched per-pair counts in Gatherv are reported by the root.
	counts, displs := make([]int, size), make([]int, size)
	for i := range counts {
		counts[i], displs[i] = 2, 2*i
	}
	n := 2
	if last {
		n = 3
	}
	err := mpi.Gatherv(mpi.World, make([]int32, n), make([]int32, 2*size), counts, displs, 0)
	if rank == 0 {
		expect("gatherv count", mpi.ErrCount, err)
	} else {
		expect("gatherv count", mpi.Success, err)
	}
	if rank == 0 {
		fmt.Println("collerr ok")
	}
}

// collSumSuite prints digests of float64 reductions, which must be the
// same in every run with the same number of processes.
func collSumSuite(rank, size int) {
	k := 1000
	if len(os.Args) > 2 {
		k, _ = strconv.Atoi(os.Args[2])
	}
	vals := func(r int) []float64 {
		out := make([]float64, k)
		for i := range out {
			out[i] = math.Ldexp(1+float64((r*7919+i*104729)%1000)/997, (r*31+i)%60-30)
		}
		return out
	}
	h := fnv.New64a()
	add := func(v []float64) {
		for _, x := range v {
			var b [8]byte
			u := math.Float64bits(x)
			for i := range b {
				b[i] = byte(u >> (8 * i))
			}
			h.Write(b[:])
		}
	}
	recv := make([]float64, k)
	mustOK("allreduce", mpi.Allreduce(mpi.World, vals(rank), recv, mpi.Sum))
	add(recv)
	var rr []float64
	if rank == 0 {
		rr = make([]float64, k)
	}
	mustOK("reduce", mpi.Reduce(mpi.World, vals(rank), rr, mpi.Sum, 0))
	add(rr)
	mustOK("scan", mpi.Scan(mpi.World, vals(rank), recv, mpi.Prod))
	all := make([]float64, size)
	mustOK("gather scans", mpi.Allgather(mpi.World, recv[:1], all))
	add(all)
	if rank == 0 {
		fmt.Printf("collsum %016x\n", h.Sum64())
	}
}
