package main

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"time"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// The icoll suite: every nonblocking collective across ranks against its
// blocking twin on a duplicate; two outstanding Iallreduces waited for in
// the opposite order; a nonblocking collective beside blocking ones on a
// duplicate. Prints "icoll ok". icollbench: an Iallreduce of 4 MiB beside
// a busy loop against Allreduce then the loop.
func init() {
	suites["icoll"] = icollSuite
	suites["icollbench"] = icollBench
}

func icollSuite(rank, size int) {
	w := mpi.World
	w.SetErrhandler(mpi.ErrorsReturn)
	dup, err := w.Dup()
	mustOK("Dup", err)
	const k = 300
	in := make([]int64, k)
	for i := range in {
		in[i] = int64(rank*1000 + i*7 + 1)
	}
	all := make([]int64, k*size)
	for i := range all {
		all[i] = int64(rank*100000 + i)
	}
	counts, displs := make([]int, size), make([]int, size)
	total := 0
	for i := range counts {
		counts[i], displs[i] = i%5+1, total
		total += counts[i]
	}
	rcounts, rdispls := make([]int, size), make([]int, size)
	for j := range rcounts {
		rcounts[j], rdispls[j] = counts[rank], j*counts[rank]
	}
	root := size - 1
	type pair struct {
		name string
		nb   func(out []int64) (*mpi.Request, error)
		b    func(out []int64) error
	}
	pairs := []pair{
		{"Ibcast", func(o []int64) (*mpi.Request, error) {
			if rank == root {
				copy(o, all)
			}
			return mpi.Ibcast(w, o, root)
		}, func(o []int64) error {
			if rank == root {
				copy(o, all)
			}
			return mpi.Bcast(dup, o, root)
		}},
		{"Ireduce", func(o []int64) (*mpi.Request, error) { return mpi.Ireduce(w, in, o[:k], mpi.Sum, 0) },
			func(o []int64) error { return mpi.Reduce(dup, in, o[:k], mpi.Sum, 0) }},
		{"Iallreduce", func(o []int64) (*mpi.Request, error) { return mpi.Iallreduce(w, in, o[:k], mpi.Max) },
			func(o []int64) error { return mpi.Allreduce(dup, in, o[:k], mpi.Max) }},
		{"Igather", func(o []int64) (*mpi.Request, error) { return mpi.Igather(w, in, o, root) },
			func(o []int64) error { return mpi.Gather(dup, in, o, root) }},
		{"Igatherv", func(o []int64) (*mpi.Request, error) {
			return mpi.Igatherv(w, in[:counts[rank]], o, counts, displs, 0)
		}, func(o []int64) error { return mpi.Gatherv(dup, in[:counts[rank]], o, counts, displs, 0) }},
		{"Iscatter", func(o []int64) (*mpi.Request, error) { return mpi.Iscatter(w, all, o[:k], root) },
			func(o []int64) error { return mpi.Scatter(dup, all, o[:k], root) }},
		{"Iscatterv", func(o []int64) (*mpi.Request, error) {
			return mpi.Iscatterv(w, all, counts, displs, o[:counts[rank]], 0)
		}, func(o []int64) error { return mpi.Scatterv(dup, all, counts, displs, o[:counts[rank]], 0) }},
		{"Iallgather", func(o []int64) (*mpi.Request, error) { return mpi.Iallgather(w, in, o) },
			func(o []int64) error { return mpi.Allgather(dup, in, o) }},
		{"Iallgatherv", func(o []int64) (*mpi.Request, error) {
			return mpi.Iallgatherv(w, in[:counts[rank]], o, counts, displs)
		}, func(o []int64) error { return mpi.Allgatherv(dup, in[:counts[rank]], o, counts, displs) }},
		{"Ialltoall", func(o []int64) (*mpi.Request, error) { return mpi.Ialltoall(w, all, o) },
			func(o []int64) error { return mpi.Alltoall(dup, all, o) }},
		{"Ialltoallv", func(o []int64) (*mpi.Request, error) {
			return mpi.Ialltoallv(w, all, counts, displs, o, rcounts, rdispls)
		}, func(o []int64) error { return mpi.Alltoallv(dup, all, counts, displs, o, rcounts, rdispls) }},
		{"IreduceScatter", func(o []int64) (*mpi.Request, error) {
			return mpi.IreduceScatter(w, all[:total], o[:counts[rank]], counts, mpi.Sum)
		}, func(o []int64) error { return mpi.ReduceScatter(dup, all[:total], o[:counts[rank]], counts, mpi.Sum) }},
		{"IreduceScatterBlock", func(o []int64) (*mpi.Request, error) {
			return mpi.IreduceScatterBlock(w, all, o[:k], mpi.Sum)
		}, func(o []int64) error { return mpi.ReduceScatterBlock(dup, all, o[:k], mpi.Sum) }},
		{"Iscan", func(o []int64) (*mpi.Request, error) { return mpi.Iscan(w, in, o[:k], mpi.Sum) },
			func(o []int64) error { return mpi.Scan(dup, in, o[:k], mpi.Sum) }},
		{"Iexscan", func(o []int64) (*mpi.Request, error) { return mpi.Iexscan(w, in, o[:k], mpi.Sum) },
			func(o []int64) error { return mpi.Exscan(dup, in, o[:k], mpi.Sum) }},
	}
	// All started at once, then waited for together, beside the blocking
	// twins on the duplicate.
	outs := make([][]int64, len(pairs))
	reqs := make([]*mpi.Request, len(pairs))
	for i, p := range pairs {
		outs[i] = make([]int64, k*size)
		reqs[i], err = p.nb(outs[i])
		mustOK(p.name, err)
	}
	wants := make([][]int64, len(pairs))
	for i, p := range pairs {
		want := make([]int64, k*size)
		mustOK(p.name+" (blocking)", p.b(want))
		if i == len(pairs)/2 {
			if _, err := reqs[len(reqs)-1].Wait(); err != nil {
				fail("%s: wait: %v", pairs[len(pairs)-1].name, err)
			}
		}
		wants[i] = want
	}
	if _, err := mpi.Waitall(reqs...); err != nil {
		fail("waitall: %v", err)
	}
	for i, p := range pairs {
		got, want := outs[i], wants[i]
		if !slices.Equal(got, want) {
			fail("%s: %v, want %v", p.name, got[:min(8, len(got))], want[:min(8, len(want))])
		}
	}
	// Two Iallreduces outstanding, waited for in the opposite order, rank
	// 0 late, a blocking Allreduce on World between.
	a, b := make([]int64, k), make([]int64, k)
	r1, err := mpi.Iallreduce(w, in, a, mpi.Sum)
	mustOK("Iallreduce 1", err)
	in2 := slices.Clone(in)
	for i := range in2 {
		in2[i] *= 3
	}
	r2, err := mpi.Iallreduce(w, in2, b, mpi.Sum)
	mustOK("Iallreduce 2", err)
	if rank == 0 {
		time.Sleep(50 * time.Millisecond)
	}
	c := make([]int64, k)
	mustOK("Allreduce", mpi.Allreduce(w, in, c, mpi.Sum))
	if _, err := r2.Wait(); err != nil {
		fail("wait 2: %v", err)
	}
	if _, err := r1.Wait(); err != nil {
		fail("wait 1: %v", err)
	}
	for i := range a {
		if a[i] != c[i] || b[i] != 3*c[i] {
			fail("outstanding Iallreduces: %d %d, want %d %d", a[i], b[i], c[i], 3*c[i])
		}
	}
	r, err := mpi.Ibarrier(w)
	mustOK("Ibarrier", err)
	if _, err := r.Wait(); err != nil {
		fail("Ibarrier: %v", err)
	}
	icollZero(w, rank, size)
	ialltoallw(w)
	icollTypes(w, dup, rank, size)
	mustOK("Free", dup.Free())
	if size >= 2 {
		icollInter(rank, in)
		icollCheck(rank, size)
	}
	if rank == 0 {
		fmt.Println("icoll ok")
	}
}

// icollBench times, over rounds (the argument, 20 by default), an
// Allreduce of 4 MiB of float64 then a busy loop as long as one Allreduce,
// against Iallreduce, the loop, then Wait; it prints the medians in µs:
// "icollbench allreduce" (before the rounds, to size the loop), "busy",
// "blocking" (Allreduce + loop), "nonblocking" (Iallreduce + loop +
// Wait), "iallreduce" (Iallreduce then Wait, no loop), and "hidden", the
// median over the rounds of blocking minus nonblocking. Each round runs
// every form once, so that a loaded machine's slow spells fall on all of
// them alike.
func icollBench(rank, size int) {
	w := mpi.World
	rounds := 20
	if len(os.Args) > 2 {
		fmt.Sscan(os.Args[2], &rounds)
	}
	const n = 4 << 20 / 8
	send, recv := make([]float64, n), make([]float64, n)
	for i := range send {
		send[i] = float64(rank + i)
	}
	timed := func(f func()) float64 {
		mustOK("Barrier", mpi.Barrier(w))
		t := time.Now()
		f()
		return float64(time.Since(t).Microseconds())
	}
	median := func(ts []float64) float64 {
		ts = slices.Clone(ts)
		sort.Float64s(ts)
		return ts[len(ts)/2]
	}
	allreduceOnce := func() { mustOK("Allreduce", mpi.Allreduce(w, send, recv, mpi.Sum)) }
	var sizing []float64
	for range rounds {
		sizing = append(sizing, timed(allreduceOnce))
	}
	// Every rank busies itself as long as rank 0's Allreduce took.
	d := []float64{median(sizing)}
	mustOK("Bcast", mpi.Bcast(w, d, 0))
	spin := time.Duration(d[0]) * time.Microsecond
	x := 1.0
	busy := func() {
		end := time.Now().Add(spin)
		for time.Now().Before(end) {
			for range 1000 {
				x = x*1.0000001 + 1e-9
			}
		}
	}
	iallreduce := func(between func()) {
		r, err := mpi.Iallreduce(w, send, recv, mpi.Sum)
		mustOK("Iallreduce", err)
		between()
		if _, err := r.Wait(); err != nil {
			fail("wait: %v", err)
		}
	}
	var busyT, blocking, nonblocking, alone, hidden []float64
	for range rounds {
		busyT = append(busyT, timed(busy))
		b := timed(func() { allreduceOnce(); busy() })
		nb := timed(func() { iallreduce(busy) })
		blocking, nonblocking, hidden = append(blocking, b), append(nonblocking, nb), append(hidden, b-nb)
		alone = append(alone, timed(func() { iallreduce(func() {}) }))
	}
	if rank == 0 {
		fmt.Printf("icollbench allreduce %.0f\nicollbench iallreduce %.0f\nicollbench busy %.0f\nicollbench blocking %.0f\nicollbench nonblocking %.0f\nicollbench hidden %.0f\n",
			d[0], median(alone), median(busyT), median(blocking), median(nonblocking), median(hidden))
	}
	if x == 0 {
		fmt.Println(x) // keeps the loop
	}
}

// icollInter: Iallreduce, Ibcast and Ibarrier on an intercommunicator
// between the even and odd ranks, outstanding together, against the
// blocking forms.
func icollInter(rank int, in []int64) {
	side, err := mpi.World.Split(rank%2, rank)
	mustOK("split by parity", err)
	ic, err := mpi.IntercommCreate(side, 0, mpi.World, 1-rank%2, 78)
	mustOK("intercomm create", err)
	ic.SetErrhandler(mpi.ErrorsReturn)
	root := mpi.ProcNull // the even group's rank 0 broadcasts
	switch {
	case rank == 0:
		root = mpi.Root
	case rank%2 == 1:
		root = 0
	}
	a, b := make([]int64, len(in)), make([]int64, len(in))
	if root == mpi.Root {
		copy(b, in)
	}
	r1, err := mpi.Iallreduce(ic, in, a, mpi.Sum)
	mustOK("inter Iallreduce", err)
	r2, err := mpi.Ibcast(ic, b, root)
	mustOK("inter Ibcast", err)
	r3, err := mpi.Ibarrier(ic)
	mustOK("inter Ibarrier", err)
	if _, err := mpi.Waitall(r3, r2, r1); err != nil {
		fail("inter waitall: %v", err)
	}
	wa, wb := make([]int64, len(in)), make([]int64, len(in))
	if root == mpi.Root {
		copy(wb, in)
	}
	mustOK("inter Allreduce", mpi.Allreduce(ic, in, wa, mpi.Sum))
	mustOK("inter Bcast", mpi.Bcast(ic, wb, root))
	if !slices.Equal(a, wa) || !slices.Equal(b, wb) {
		fail("inter: Iallreduce %v Ibcast %v, want %v %v", a[:4], b[:4], wa[:4], wb[:4])
	}
	mustOK("free", ic.Free())
	mustOK("free", side.Free())
}

// ialltoallw: Ialltoallw of vector types received contiguously (as the
// coll suite's alltoallw), with a blocking Alltoall on a duplicate while
// it is under way.
func ialltoallw(c *mpi.Comm) {
	const what = "Ialltoallw"
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
	req, err := mpi.Ialltoallw(c, sbytes, sc, sd, st, rbytes, rc, rd, rt)
	mustOK(what, err)
	dup, err := c.Dup()
	mustOK("Dup", err)
	x, y := make([]int64, n), make([]int64, n)
	mustOK("Alltoall", mpi.Alltoall(dup, x, y))
	mustOK("Free", dup.Free())
	if _, err := req.Wait(); err != nil {
		fail("%s: wait: %v", what, err)
	}
	var exp []int32
	for j := 0; j < n; j++ {
		for i := 0; i < r+1; i++ {
			exp = append(exp, int32(j*100+r*10+2*i))
		}
	}
	if !slices.Equal(recv, exp) {
		fail("%s: %v, want %v", what, recv, exp)
	}
}

// icollCheck: with coll_base_check on (the default), the processes of a
// nonblocking collective compare their arguments: other counts and ops
// are errors of every Wait; a bad root on the last rank is its error at
// once and the others' from Wait; the communicator works after.
func icollCheck(rank, size int) {
	w := mpi.World
	wait := func(what string, r *mpi.Request, err error, want mpi.ErrorClass) {
		if err == nil {
			_, err = r.Wait()
		}
		if mpi.Class(err) != want {
			fail("%s: %v, want %v", what, err, want)
		}
	}
	n := 3
	if rank == 0 {
		n = 2
	}
	r, err := mpi.Iallreduce(w, make([]int64, n), make([]int64, n), mpi.Sum)
	wait("Iallreduce of other counts", r, err, mpi.ErrCount)
	op := mpi.Sum
	if rank == size-1 {
		op = mpi.Max
	}
	r, err = mpi.Iallreduce(w, []int32{1}, make([]int32, 1), op)
	wait("Iallreduce with other ops", r, err, mpi.ErrOp)
	root := 0
	if rank == size-1 {
		root = size
	}
	// Larger than coll_base_small and coll_base_sent_size (16 KiB): at
	// coll_base_check=1 a smaller Ibcast sends the call with its data,
	// and processes whose call matches the data they receive do not learn
	// of the last rank's (docs/coll.md); this one takes the check of its
	// own, which every process learns.
	r, err = mpi.Ibcast(w, make([]float64, 4096), root)
	if rank == size-1 && (r != nil || mpi.Class(err) != mpi.ErrRoot) {
		fail("Ibcast with root %d: %v %v, want ErrRoot at once", root, r, err)
	}
	if rank != size-1 {
		wait("Ibcast where the last rank gave a bad root", r, err, mpi.ErrRoot)
	}
	sum := make([]int64, 1)
	r, err = mpi.Iallreduce(w, []int64{1}, sum, mpi.Sum)
	wait("Iallreduce after the errors", r, err, 0)
	if sum[0] != int64(size) {
		fail("Iallreduce after the errors: %d", sum[0])
	}
}

// icollTypes: nonblocking collectives over derived datatypes across
// ranks, outstanding together, against their blocking twins on dup:
// IallgathervType of columns, IalltoallType of columns into contiguous
// runs, IallreduceType and IscanType of Go structs with a NewTypeOp.
func icollTypes(w, dup *mpi.Comm, rank, size int) {
	i32 := func(s []int32) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), 4*len(s)) }
	col := mustV(mpi.TypeVector(2, 1, 3, mpi.Int32))
	grid := make([]int32, 3*2*size) // size columns side by side, each of 2 rows
	for i := range grid {
		grid[i] = int32(rank*1000 + i)
	}
	colx := mustV(mpi.TypeCreateResized(col, 0, 4)) // the next column starts one Int32 on
	counts, displs := make([]int, size), make([]int, size)
	for i := range size {
		counts[i], displs[i] = 2, 3*i
	}
	ag, agw := make([]int32, 3*size), make([]int32, 3*size)
	r1 := mustV(mpi.IallgathervType(w, i32(grid), 1, col, i32(ag), counts, displs, mpi.Int32))
	a2a, a2aw := make([]int32, 2*size), make([]int32, 2*size)
	r2 := mustV(mpi.IalltoallType(w, i32(grid), 1, colx, i32(a2a), 2, mpi.Int32))
	type acc struct {
		N   int8
		Sum float64
		Max int32
	}
	op := mustV(mpi.NewTypeOp(func(in, inout []acc) {
		for i := range in {
			inout[i].N += in[i].N
			inout[i].Sum += in[i].Sum
			inout[i].Max = max(in[i].Max, inout[i].Max)
		}
	}, true))
	at := mustV(mpi.TypeOf[acc]())
	mine := []acc{{1, float64(rank) / 2, int32(rank)}, {1, 1, int32(-rank)}}
	red, scan := make([]acc, 2), make([]acc, 2)
	r3 := mustV(mpi.IallreduceType(w, mustV(mpi.AsBytes(mine)), mustV(mpi.AsBytes(red)), 2, at, op))
	r4 := mustV(mpi.IscanType(w, mustV(mpi.AsBytes(mine)), mustV(mpi.AsBytes(scan)), 2, at, op))
	mustOK("AllgathervType", mpi.AllgathervType(dup, i32(grid), 1, col, i32(agw), counts, displs, mpi.Int32))
	mustOK("AlltoallType", mpi.AlltoallType(dup, i32(grid), 1, colx, i32(a2aw), 2, mpi.Int32))
	mustV(mpi.Waitall(r4, r3, r2, r1))
	if !slices.Equal(ag, agw) || !slices.Equal(a2a, a2aw) {
		fail("IallgathervType %v / %v, IalltoallType %v / %v", ag, agw, a2a, a2aw)
	}
	for i := range size {
		if ag[3*i] != int32(i*1000) || ag[3*i+1] != int32(i*1000+3) || ag[3*i+2] != 0 {
			fail("IallgathervType block %d: %v", i, ag)
		}
		if a2a[2*i] != int32(i*1000+rank) || a2a[2*i+1] != int32(i*1000+rank+3) {
			fail("IalltoallType block %d: %v", i, a2a)
		}
	}
	want := func(upto int) []acc {
		out := []acc{{0, 0, -1 << 30}, {0, 0, -1 << 30}}
		for r := range upto {
			out[0].N, out[0].Sum, out[0].Max = out[0].N+1, out[0].Sum+float64(r)/2, max(out[0].Max, int32(r))
			out[1].N, out[1].Sum, out[1].Max = out[1].N+1, out[1].Sum+1, max(out[1].Max, int32(-r))
		}
		return out
	}
	if !slices.Equal(red, want(size)) || !slices.Equal(scan, want(rank+1)) {
		fail("IallreduceType %v, want %v; IscanType %v, want %v", red, want(size), scan, want(rank+1))
	}
}

// icollZero: nonblocking collectives of no elements complete at once (as
// the blocking ones return), leave the buffers alone, and the next
// collective still meets every process's.
func icollZero(w *mpi.Comm, rank, size int) {
	buf := []int64{-7}
	starts := []struct {
		name  string
		start func() (*mpi.Request, error)
	}{
		{"Iallreduce", func() (*mpi.Request, error) { return mpi.Iallreduce(w, buf[:0], buf[:0], mpi.Sum) }},
		{"Ibcast", func() (*mpi.Request, error) { return mpi.Ibcast(w, buf[:0], 0) }},
		{"Ireduce", func() (*mpi.Request, error) { return mpi.Ireduce(w, buf[:0], buf[:0], mpi.Sum, 0) }},
		{"Iallgather", func() (*mpi.Request, error) { return mpi.Iallgather(w, buf[:0], buf[:0]) }},
	}
	for _, s := range starts {
		name := s.name
		r, err := s.start()
		mustOK(name+" of no elements", err)
		_, done, err := r.Test()
		if err != nil || !done {
			fail("%s of no elements: done %v, %v; want complete at once", name, done, err)
		}
	}
	if buf[0] != -7 {
		fail("a collective of no elements wrote %d", buf[0])
	}
	sum := []int64{0}
	r, err := mpi.Iallreduce(w, []int64{int64(rank)}, sum, mpi.Sum)
	mustOK("Iallreduce after those of no elements", err)
	if _, err := r.Wait(); err != nil || sum[0] != int64(size*(size-1)/2) {
		fail("Iallreduce after those of no elements: %d, %v; want %d", sum[0], err, size*(size-1)/2)
	}
}
