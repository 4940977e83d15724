package colltest

import (
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/lamgo/lam/libmpi/coll"
)

// The suite below runs every collective on a communicator and checks each
// result against a serial computation. The modules' tests run it over many
// sizes, layouts and parameters.

// I64 views b as int64s.
func I64(b []byte) []int64 {
	return unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/8)
}

// F64 views b as float64s.
func F64(b []byte) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/8)
}

// Val is rank r's i-th test value.
func Val(r, i int) int64 { return int64(r*1000 + i*7 + 1) }

// Ints returns k values of rank r as an aligned buffer.
func Ints(r, k int) []byte {
	b := coll.Buffer(8 * k)
	v := I64(b)
	for i := range v {
		v[i] = Val(r, i)
	}
	return b
}

// Sum is int64 addition: commutative and exact.
var Sum = coll.Op{Size: 8, Commutative: true, Exact: true, Apply: func(in, inout []byte) {
	a, b := I64(in), I64(inout)
	for i := range b {
		b[i] += a[i]
	}
}}

// FSum is float64 addition: commutative, not exact.
var FSum = coll.Op{Size: 8, Commutative: true, Apply: func(in, inout []byte) {
	a, b := F64(in), F64(inout)
	for i := range b {
		b[i] += a[i]
	}
}}

// MatMul multiplies 2×2 matrices of uint64 (mod 2^64), four words an
// element: associative, not commutative, so it shows the order of ranks.
var MatMul = coll.Op{Size: 32, Commutative: false, Exact: true, Apply: func(in, inout []byte) {
	a, b := I64(in), I64(inout)
	for i := 0; i+3 < len(b); i += 4 {
		m := mat{uint64(a[i]), uint64(a[i+1]), uint64(a[i+2]), uint64(a[i+3])}.mul(mat{uint64(b[i]), uint64(b[i+1]), uint64(b[i+2]), uint64(b[i+3])})
		b[i], b[i+1], b[i+2], b[i+3] = int64(m[0]), int64(m[1]), int64(m[2]), int64(m[3])
	}
}}

type mat [4]uint64

func (x mat) mul(y mat) mat {
	return mat{x[0]*y[0] + x[1]*y[2], x[0]*y[1] + x[1]*y[3], x[2]*y[0] + x[3]*y[2], x[2]*y[1] + x[3]*y[3]}
}

// Mats returns k matrices of rank r.
func Mats(r, k int) []byte {
	b := coll.Buffer(32 * k)
	v := I64(b)
	for i := 0; i < k; i++ {
		v[4*i], v[4*i+1], v[4*i+2], v[4*i+3] = int64(r+2), int64(i+1), 1, int64(r*i+3)
	}
	return b
}

// refReduce reduces the contributions of ranks lo..hi-1 in rank order.
func refReduce(op *coll.Op, contrib func(r int) []byte, lo, hi int) []byte {
	acc := coll.Clone(contrib(hi - 1))
	for r := hi - 2; r >= lo; r-- {
		op.Apply(contrib(r), acc)
	}
	return acc
}

// Fail is a mismatch between a result and the reference.
func Fail(what string, r int, got, want []byte) error {
	g, w := I64(got), I64(want)
	first := ""
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			first = fmt.Sprintf(" (first difference at element %d of %d: %d, want %d)", i, len(w), g[i], w[i])
			break
		}
	}
	return fmt.Errorf("%s on rank %d: got %v, want %v%s", what, r, g[:min(len(g), 8)], w[:min(len(w), 8)], first)
}

func sig(k coll.Kind, root int, size int) coll.Sig {
	return coll.Sig{Kind: k, Root: root, Send: int64(size)}
}

// Suite runs every intracommunicator collective on c with k elements per
// block and the given root, and checks each result.
func Suite(c *coll.Comm, k, root int) error {
	n, r := c.Size(), c.Rank()
	run := func(s coll.Sig, f func(a *coll.Actions) error) error { return c.Run(s, f) }
	check := func(what string, got, want []byte) error {
		if !slices.Equal(got, want) {
			return Fail(what, r, got, want)
		}
		return nil
	}
	if err := run(coll.Sig{Kind: coll.Barrier}, func(a *coll.Actions) error { return a.Barrier(c) }); err != nil {
		return err
	}
	// Bcast.
	buf := coll.Buffer(8 * k)
	if r == root {
		copy(buf, Ints(root, k))
	}
	if err := run(sig(coll.Bcast, root, len(buf)), func(a *coll.Actions) error { return a.Bcast(c, buf, root) }); err != nil {
		return err
	}
	if err := check("bcast", buf, Ints(root, k)); err != nil {
		return err
	}
	// Gather, and in place at the root.
	all := func(k int) []byte {
		out := coll.Buffer(n * 8 * k)
		for i := 0; i < n; i++ {
			copy(out[i*8*k:], Ints(i, k))
		}
		return out
	}
	for _, inPlace := range []bool{false, true} {
		var recv []byte
		send := Ints(r, k)
		if r == root {
			recv = coll.Buffer(n * 8 * k)
			if inPlace {
				copy(recv[r*8*k:], send)
				send = nil
			}
		}
		if err := run(sig(coll.Gather, root, 8*k), func(a *coll.Actions) error { return a.Gather(c, send, recv, root) }); err != nil {
			return err
		}
		if r == root {
			if err := check(fmt.Sprintf("gather (in place %v)", inPlace), recv, all(k)); err != nil {
				return err
			}
		}
	}
	// Gatherv: rank i sends i%3+1 blocks of k... as elements, placed in
	// reverse order with a gap; gaps keep their contents.
	counts := make([]int, n)
	displ := make([]int, n)
	pos := 0
	for i := n - 1; i >= 0; i-- {
		counts[i] = 8 * (i%3 + 1)
		displ[i] = pos
		pos += counts[i] + 8
	}
	gv := func() ([]byte, [][]byte) {
		buf := coll.Buffer(pos)
		for i := range I64(buf) {
			I64(buf)[i] = -1
		}
		blocks := make([][]byte, n)
		for i := range blocks {
			blocks[i] = buf[displ[i] : displ[i]+counts[i]]
		}
		return buf, blocks
	}
	want, wantBlocks := gv()
	for i := range wantBlocks {
		copy(wantBlocks[i], Ints(i, counts[i]/8))
	}
	{
		var buf []byte
		var blocks [][]byte
		if r == root {
			buf, blocks = gv()
		}
		if err := run(coll.Sig{Kind: coll.Gatherv, Root: root, Send: -1}, func(a *coll.Actions) error {
			return a.Gatherv(c, Ints(r, counts[r]/8), blocks, root)
		}); err != nil {
			return err
		}
		if r == root {
			if err := check("gatherv", buf, want); err != nil {
				return err
			}
		}
	}
	// Scatter, and in place at the root.
	for _, inPlace := range []bool{false, true} {
		var send []byte
		recv := coll.Buffer(8 * k)
		if r == root {
			send = all(k)
			if inPlace {
				recv = nil
			}
		}
		if err := run(sig(coll.Scatter, root, 8*k), func(a *coll.Actions) error { return a.Scatter(c, send, recv, root) }); err != nil {
			return err
		}
		if recv != nil {
			if err := check("scatter", recv, Ints(r, k)); err != nil {
				return err
			}
		}
	}
	// Scatterv.
	{
		var blocks [][]byte
		if r == root {
			_, blocks = gv()
			for i := range blocks {
				copy(blocks[i], Ints(i, counts[i]/8))
			}
		}
		recv := coll.Buffer(counts[r])
		if err := run(coll.Sig{Kind: coll.Scatterv, Root: root, Send: -1}, func(a *coll.Actions) error {
			return a.Scatterv(c, blocks, recv, root)
		}); err != nil {
			return err
		}
		if err := check("scatterv", recv, Ints(r, counts[r]/8)); err != nil {
			return err
		}
	}
	// Allgather, and in place.
	for _, inPlace := range []bool{false, true} {
		recv := coll.Buffer(n * 8 * k)
		send := Ints(r, k)
		if inPlace {
			copy(recv[r*8*k:], send)
			send = nil
		}
		if err := run(sig(coll.Allgather, 0, 8*k), func(a *coll.Actions) error { return a.Allgather(c, send, recv) }); err != nil {
			return err
		}
		if err := check("allgather", recv, all(k)); err != nil {
			return err
		}
	}
	// Allgatherv, gapped and contiguous.
	{
		buf, blocks := gv()
		if err := run(coll.Sig{Kind: coll.Allgatherv, Send: -1}, func(a *coll.Actions) error {
			return a.Allgatherv(c, Ints(r, counts[r]/8), blocks)
		}); err != nil {
			return err
		}
		if err := check("allgatherv", buf, want); err != nil {
			return err
		}
		tight := coll.Buffer(n * 8 * k)
		tb := make([][]byte, n)
		for i := range tb {
			tb[i] = tight[i*8*k : (i+1)*8*k]
		}
		if err := run(coll.Sig{Kind: coll.Allgatherv, Send: -1}, func(a *coll.Actions) error {
			return a.Allgatherv(c, Ints(r, k), tb)
		}); err != nil {
			return err
		}
		if err := check("allgatherv (contiguous)", tight, all(k)); err != nil {
			return err
		}
	}
	// Alltoall, and in place: block j of rank r holds Ints(r*100+j).
	for _, inPlace := range []bool{false, true} {
		send := coll.Buffer(n * 8 * k)
		recv := coll.Buffer(n * 8 * k)
		wantA := coll.Buffer(n * 8 * k)
		for j := 0; j < n; j++ {
			copy(send[j*8*k:], Ints(r*100+j, k))
			copy(wantA[j*8*k:], Ints(j*100+r, k))
		}
		if inPlace {
			copy(recv, send)
			send = nil
		}
		if err := run(sig(coll.Alltoall, 0, 8*k), func(a *coll.Actions) error { return a.Alltoall(c, send, recv) }); err != nil {
			return err
		}
		if err := check("alltoall", recv, wantA); err != nil {
			return err
		}
	}
	// Alltoallv: (r+j)%3 elements from r to j (some empty).
	{
		sb, rb, wb := make([][]byte, n), make([][]byte, n), make([][]byte, n)
		for j := 0; j < n; j++ {
			m := (r + j) % 3
			sb[j], rb[j], wb[j] = Ints(r*100+j, m), coll.Buffer(8*m), Ints(j*100+r, m)
		}
		if err := run(coll.Sig{Kind: coll.Alltoallv, Send: -1}, func(a *coll.Actions) error { return a.Alltoallv(c, sb, rb) }); err != nil {
			return err
		}
		for j := range rb {
			if err := check(fmt.Sprintf("alltoallv from %d", j), rb[j], wb[j]); err != nil {
				return err
			}
		}
	}
	// Reductions with a commutative and a non-commutative op.
	for _, o := range []struct {
		op      *coll.Op
		contrib func(r int) []byte
	}{{&Sum, func(r int) []byte { return Ints(r, k) }}, {&MatMul, func(r int) []byte { return Mats(r, k) }}} {
		op, contrib := o.op, o.contrib
		size := len(contrib(0))
		total := refReduce(op, contrib, 0, n)
		name := func(s string) string {
			return fmt.Sprintf("%s (op of %d bytes, commutative %v)", s, op.Size, op.Commutative)
		}
		rs := coll.Sig{Kind: coll.Reduce, Root: root, Send: int64(size), Op: 1}
		// inputs returns this process's send and receive buffers; in
		// place, its contribution is in recv and send is nil.
		inputs := func(inPlace bool) (send, recv []byte) {
			send, recv = contrib(r), coll.Buffer(size)
			if inPlace {
				copy(recv, send)
				send = nil
			}
			return send, recv
		}
		for _, inPlace := range []bool{false, true} {
			send := contrib(r)
			var recv []byte
			if r == root {
				recv = coll.Buffer(size)
				if inPlace {
					copy(recv, send)
					send = nil
				}
			}
			if err := run(rs, func(a *coll.Actions) error { return a.Reduce(c, send, recv, op, root) }); err != nil {
				return err
			}
			if r == root {
				if err := check(name("reduce"), recv, total); err != nil {
					return err
				}
			}
			send, recv = inputs(inPlace)
			rs.Kind = coll.Allreduce
			if err := run(rs, func(a *coll.Actions) error { return a.Allreduce(c, send, recv, op) }); err != nil {
				return err
			}
			rs.Kind = coll.Reduce
			if err := check(name("allreduce"), recv, total); err != nil {
				return err
			}
		}
		// Scan and Exscan.
		for _, inPlace := range []bool{false, true} {
			send, recv := inputs(inPlace)
			if err := run(coll.Sig{Kind: coll.Scan, Send: int64(size), Op: 1}, func(a *coll.Actions) error { return a.Scan(c, send, recv, op) }); err != nil {
				return err
			}
			if err := check(name("scan"), recv, refReduce(op, contrib, 0, r+1)); err != nil {
				return err
			}
			send, recv = inputs(inPlace)
			if err := run(coll.Sig{Kind: coll.Exscan, Send: int64(size), Op: 1}, func(a *coll.Actions) error { return a.Exscan(c, send, recv, op) }); err != nil {
				return err
			}
			if r > 0 {
				if err := check(name("exscan"), recv, refReduce(op, contrib, 0, r)); err != nil {
					return err
				}
			}
		}
		// Reduce_scatter: rank i gets i%2+1 elements of the n-block vector
		// (each block holds k elements; counts cover a prefix).
		es := op.Size
		rcounts := make([]int, n)
		sum := 0
		for i := range rcounts {
			rcounts[i] = es * (i%2 + 1)
			sum += rcounts[i]
		}
		vec := func(r int) []byte {
			out := coll.Buffer(sum)
			for pos := 0; pos < sum; pos += size {
				copy(out[pos:], contrib(r+pos))
			}
			return out
		}
		full := refReduce(op, vec, 0, n)
		off := 0
		for i := 0; i < r; i++ {
			off += rcounts[i]
		}
		recv := coll.Buffer(rcounts[r])
		if err := run(coll.Sig{Kind: coll.ReduceScatter, Send: int64(sum), Op: 1}, func(a *coll.Actions) error {
			return a.ReduceScatter(c, vec(r), recv, rcounts, op)
		}); err != nil {
			return err
		}
		if err := check(name("reduce_scatter"), recv, full[off:off+rcounts[r]]); err != nil {
			return err
		}
		// Reduce_scatter_block, and in place.
		bvec := func(r int) []byte {
			out := coll.Buffer(n * size)
			for i := 0; i < n; i++ {
				copy(out[i*size:], contrib(r+37*i))
			}
			return out
		}
		bfull := refReduce(op, bvec, 0, n)
		for _, inPlace := range []bool{false, true} {
			send := bvec(r)
			recv := coll.Buffer(size)
			if inPlace {
				recv = coll.Clone(send)
				send = nil
			}
			if err := run(coll.Sig{Kind: coll.ReduceScatterBlock, Send: int64(size), Op: 1}, func(a *coll.Actions) error {
				return a.ReduceScatterBlock(c, send, recv, op)
			}); err != nil {
				return err
			}
			if err := check(name("reduce_scatter_block"), recv[:size], bfull[r*size:(r+1)*size]); err != nil {
				return err
			}
		}
	}
	return nil
}

// Floats returns k float64 values of rank r that add up differently in
// different orders.
func Floats(r, k int) []byte {
	b := coll.Buffer(8 * k)
	for i := range F64(b) {
		F64(b)[i] = math.Ldexp(1+float64((r*7919+i*104729)%1000)/997, (r*31+i)%60-30)
	}
	return b
}

// InterSuite runs every intercommunicator collective on c (isA says which
// group this process is in) with k elements per block, and checks each
// result.
func InterSuite(c *coll.Comm, isA bool, k int) error {
	l, nl, nr := c.Rank(), c.Size(), c.T.RemoteSize()
	gid := func(a bool, r int) int {
		if a {
			return r
		}
		return 100 + r
	}
	me := gid(isA, l)
	them := func(j int) int { return gid(!isA, j) }
	check := func(what string, got, want []byte) error {
		if !slices.Equal(got, want) {
			return Fail(what, me, got, want)
		}
		return nil
	}
	if err := c.Run(coll.Sig{Kind: coll.Barrier}, func(a *coll.Actions) error { return a.Barrier(c) }); err != nil {
		return err
	}
	// The roots: A's last process, then B's first.
	for _, fromA := range []bool{true, false} {
		rootLocal := 0
		if fromA {
			rootLocal = map[bool]int{true: nl, false: nr}[isA] - 1
		}
		inRootGroup := isA == fromA
		root := rootLocal
		switch {
		case inRootGroup && l == rootLocal:
			root = coll.Root
		case inRootGroup:
			root = coll.ProcNull
		}
		rootGid := gid(fromA, rootLocal)
		size := int64(8 * k)
		// Bcast.
		s := coll.Sig{Kind: coll.Bcast, Root: root, Send: -1, Recv: -1}
		buf := coll.Buffer(8 * k)
		switch {
		case root == coll.Root:
			copy(buf, Ints(me, k))
			s.Send = size
		case !inRootGroup:
			s.Recv = size
		}
		if err := c.Run(s, func(a *coll.Actions) error { return a.Bcast(c, buf, root) }); err != nil {
			return err
		}
		if !inRootGroup {
			if err := check("inter bcast", buf, Ints(rootGid, k)); err != nil {
				return err
			}
		}
		// Gather and Scatter.
		var send, recv []byte
		s = coll.Sig{Kind: coll.Gather, Root: root, Send: -1, Recv: -1}
		switch {
		case root == coll.Root:
			recv = coll.Buffer(nr * 8 * k)
			s.Recv = size
		case !inRootGroup:
			send = Ints(me, k)
			s.Send = size
		}
		if err := c.Run(s, func(a *coll.Actions) error { return a.Gather(c, send, recv, root) }); err != nil {
			return err
		}
		if root == coll.Root {
			for j := 0; j < nr; j++ {
				if err := check("inter gather", recv[j*8*k:(j+1)*8*k], Ints(them(j), k)); err != nil {
					return err
				}
			}
		}
		s = coll.Sig{Kind: coll.Scatter, Root: root, Send: -1, Recv: -1}
		send, recv = nil, nil
		switch {
		case root == coll.Root:
			send = coll.Buffer(nr * 8 * k)
			for j := 0; j < nr; j++ {
				copy(send[j*8*k:], Ints(them(j)+7, k))
			}
			s.Send = size
		case !inRootGroup:
			recv = coll.Buffer(8 * k)
			s.Recv = size
		}
		if err := c.Run(s, func(a *coll.Actions) error { return a.Scatter(c, send, recv, root) }); err != nil {
			return err
		}
		if !inRootGroup {
			if err := check("inter scatter", recv, Ints(me+7, k)); err != nil {
				return err
			}
		}
		// Gatherv and Scatterv: remote j's block has j%3+1 elements.
		var blocks [][]byte
		s = coll.Sig{Kind: coll.Gatherv, Root: root, Send: -1, Recv: -1}
		if root == coll.Root {
			for j := 0; j < nr; j++ {
				blocks = append(blocks, coll.Buffer(8*(j%3+1)))
			}
		}
		send = nil
		if !inRootGroup {
			send = Ints(me, l%3+1)
		}
		if err := c.Run(s, func(a *coll.Actions) error { return a.Gatherv(c, send, blocks, root) }); err != nil {
			return err
		}
		for j, b := range blocks {
			if err := check("inter gatherv", b, Ints(them(j), j%3+1)); err != nil {
				return err
			}
		}
		s.Kind = coll.Scatterv
		recv = nil
		if !inRootGroup {
			recv = coll.Buffer(8 * (l%3 + 1))
		}
		for j := range blocks {
			copy(blocks[j], Ints(them(j)+3, j%3+1))
		}
		if err := c.Run(s, func(a *coll.Actions) error { return a.Scatterv(c, blocks, recv, root) }); err != nil {
			return err
		}
		if !inRootGroup {
			if err := check("inter scatterv", recv, Ints(me+3, l%3+1)); err != nil {
				return err
			}
		}
		// Reduce, with a commutative and a non-commutative op.
		for _, o := range []struct {
			op      *coll.Op
			contrib func(g int) []byte
		}{{&Sum, func(g int) []byte { return Ints(g, k) }}, {&MatMul, func(g int) []byte { return Mats(g, k) }}} {
			op := o.op
			esize := int64(len(o.contrib(0)))
			s = coll.Sig{Kind: coll.Reduce, Root: root, Send: -1, Recv: -1, Op: 1}
			send, recv = nil, nil
			switch {
			case root == coll.Root:
				recv = coll.Buffer(int(esize))
				s.Recv = esize
			case !inRootGroup:
				send = o.contrib(me)
				s.Send = esize
			}
			if err := c.Run(s, func(a *coll.Actions) error { return a.Reduce(c, send, recv, op, root) }); err != nil {
				return err
			}
			if root == coll.Root {
				want := refReduce(op, func(j int) []byte { return o.contrib(them(j)) }, 0, nr)
				if err := check("inter reduce", recv, want); err != nil {
					return err
				}
			}
		}
	}
	// Allgather: the remote group's blocks.
	recv := coll.Buffer(nr * 8 * k)
	s := coll.Sig{Kind: coll.Allgather, Send: int64(8 * k), Recv: int64(8 * k)}
	if err := c.Run(s, func(a *coll.Actions) error { return a.Allgather(c, Ints(me, k), recv) }); err != nil {
		return err
	}
	for j := 0; j < nr; j++ {
		if err := check("inter allgather", recv[j*8*k:(j+1)*8*k], Ints(them(j), k)); err != nil {
			return err
		}
	}
	// Allgatherv.
	blocks := make([][]byte, nr)
	for j := range blocks {
		blocks[j] = coll.Buffer(8 * (j%3 + 1))
	}
	s = coll.Sig{Kind: coll.Allgatherv, Send: -1, Recv: -1}
	if err := c.Run(s, func(a *coll.Actions) error { return a.Allgatherv(c, Ints(me, l%3+1), blocks) }); err != nil {
		return err
	}
	for j, b := range blocks {
		if err := check("inter allgatherv", b, Ints(them(j), j%3+1)); err != nil {
			return err
		}
	}
	// Alltoall and Alltoallv.
	send := coll.Buffer(nr * 8 * k)
	for j := 0; j < nr; j++ {
		copy(send[j*8*k:], Ints(me*50+j, k))
	}
	recv = coll.Buffer(nr * 8 * k)
	s = coll.Sig{Kind: coll.Alltoall, Send: int64(8 * k), Recv: int64(8 * k)}
	if err := c.Run(s, func(a *coll.Actions) error { return a.Alltoall(c, send, recv) }); err != nil {
		return err
	}
	for j := 0; j < nr; j++ {
		if err := check("inter alltoall", recv[j*8*k:(j+1)*8*k], Ints(them(j)*50+l, k)); err != nil {
			return err
		}
	}
	sb, rb := make([][]byte, nr), make([][]byte, nr)
	for j := 0; j < nr; j++ {
		sb[j], rb[j] = Ints(me*50+j, (l+j)%3), coll.Buffer(8*((l+j)%3))
	}
	s = coll.Sig{Kind: coll.Alltoallv, Send: -1, Recv: -1}
	if err := c.Run(s, func(a *coll.Actions) error { return a.Alltoallv(c, sb, rb) }); err != nil {
		return err
	}
	for j := 0; j < nr; j++ {
		if err := check("inter alltoallv", rb[j], Ints(them(j)*50+l, (l+j)%3)); err != nil {
			return err
		}
	}
	// Allreduce, Reduce_scatter and Reduce_scatter_block.
	for _, o := range []struct {
		op      *coll.Op
		contrib func(g, k int) []byte
	}{{&Sum, Ints}, {&MatMul, Mats}} {
		op, es := o.op, o.op.Size
		recv := coll.Buffer(es * k)
		s := coll.Sig{Kind: coll.Allreduce, Send: int64(es * k), Recv: int64(es * k), Op: 1}
		if err := c.Run(s, func(a *coll.Actions) error { return a.Allreduce(c, o.contrib(me, k), recv, op) }); err != nil {
			return err
		}
		if err := check("inter allreduce", recv, refReduce(op, func(j int) []byte { return o.contrib(them(j), k) }, 0, nr)); err != nil {
			return err
		}
		// 12 elements split as evenly as possible in each group.
		const total = 12
		counts := make([]int, nl)
		off := 0
		for i := range counts {
			counts[i] = es * (total / nl)
			if i < total%nl {
				counts[i] += es
			}
			if i < l {
				off += counts[i]
			}
		}
		recv = coll.Buffer(counts[l])
		s = coll.Sig{Kind: coll.ReduceScatter, Send: int64(es * total), Recv: int64(es * total), Op: 1}
		if err := c.Run(s, func(a *coll.Actions) error {
			return a.ReduceScatter(c, o.contrib(me, total), recv, counts, op)
		}); err != nil {
			return err
		}
		full := refReduce(op, func(j int) []byte { return o.contrib(them(j), total) }, 0, nr)
		if err := check("inter reduce_scatter", recv, full[off:off+counts[l]]); err != nil {
			return err
		}
		// Blocks: lcm(nl, nr) elements per vector.
		lcm := nl * nr / gcd(nl, nr)
		rc := es * lcm / nl
		recv = coll.Buffer(rc)
		s = coll.Sig{Kind: coll.ReduceScatterBlock, Send: int64(es * lcm), Recv: int64(nl * rc), Op: 1}
		if err := c.Run(s, func(a *coll.Actions) error {
			return a.ReduceScatterBlock(c, o.contrib(me, lcm), recv, op)
		}); err != nil {
			return err
		}
		full = refReduce(op, func(j int) []byte { return o.contrib(them(j), lcm) }, 0, nr)
		if err := check("inter reduce_scatter_block", recv, full[l*rc:(l+1)*rc]); err != nil {
			return err
		}
	}
	return nil
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
