package basic

import (
	"unsafe"

	"github.com/lamgo/lam/libmpi/coll"
)

// barrier is the dissemination barrier: in the round at distance d (1,
// 2, 4, …) each process signals rank r+d and waits for r-d, ⌈log2 n⌉
// rounds of one message each way, with no process waited on by all. (With
// coll_base_check, a Barrier is the check, which takes the same rounds.)
func barrier(c *coll.Comm) error {
	n, r := c.Size(), c.Rank()
	for d := 1; d < n; d *= 2 {
		if err := c.Sendrecv(nil, (r+d)%n, nil, (r-d+n)%n); err != nil {
			return err
		}
	}
	return nil
}

func bcastLinear(c *coll.Comm, buf []byte, root int) error {
	n, r := c.Size(), c.Rank()
	if n == 1 {
		return nil
	}
	if r != root {
		return c.Recv(buf, root)
	}
	b := newBatch(c, n-1)
	for i := 1; i < n; i++ {
		b.send(buf, (root+i)%n)
	}
	return b.wait()
}

func bcastLog(c *coll.Comm, buf []byte, root int) error {
	n, r := c.Size(), c.Rank()
	v := (r - root + n) % n
	if v != 0 {
		if err := c.Recv(buf, (parent(v)+root)%n); err != nil {
			return err
		}
	}
	ch := children(v, n)
	b := newBatch(c, len(ch))
	for i := len(ch) - 1; i >= 0; i-- { // the largest subtree first
		b.send(buf, (ch[i]+root)%n)
	}
	return b.wait()
}

func bcast(c *coll.Comm, buf []byte, root int) error {
	if c.SendsCall() {
		return bcastSent(c, buf, root)
	}
	if _, ok := c.Carry(); ok {
		return bcastCarried(c, buf, root)
	}
	if bcastScatters(c, len(buf)) {
		return bcastScatter(c, buf, root)
	}
	if linearBcast(c, len(buf)) {
		return bcastLinear(c, buf, root)
	}
	return bcastLog(c, buf, root)
}

// gatherLinear: the root receives every block at once.
func gatherLinear(c *coll.Comm, send, recv []byte, root int) error {
	n, r := c.Size(), c.Rank()
	if r != root {
		return c.Send(send, root)
	}
	bs := len(recv) / n
	b := newBatch(c, n-1)
	for i := 0; i < n; i++ {
		if i == r {
			if send != nil {
				copy(recv[i*bs:(i+1)*bs], send)
			}
			continue
		}
		b.recv(recv[i*bs:(i+1)*bs], i)
	}
	return b.wait()
}

// gatherLog: each process gathers its subtree's blocks (in virtual rank
// order) and passes them to its parent.
func gatherLog(c *coll.Comm, send, recv []byte, root int) error {
	n, r := c.Size(), c.Rank()
	v := (r - root + n) % n
	ch := children(v, n)
	if v != 0 && len(ch) == 0 {
		return c.Send(send, (parent(v)+root)%n)
	}
	tmp, own, bs := gatherTreeBuffer(c, send, recv, root)
	if own != nil {
		copy(tmp[:bs], own)
	}
	b := newBatch(c, len(ch))
	for _, k := range ch {
		off := (k - v) * bs
		b.recv(tmp[off:off+subtree(k, n)*bs], (k+root)%n)
	}
	if err := b.wait(); err != nil {
		return err
	}
	if v != 0 {
		return c.Send(tmp, (parent(v)+root)%n)
	}
	if root != 0 {
		for k := 0; k < n; k++ {
			w := (k + root) % n
			copy(recv[w*bs:(w+1)*bs], tmp[k*bs:(k+1)*bs])
		}
	}
	return nil
}

// gatherTreeBuffer is where a process of the binomial gather collects
// its subtree's blocks of bs bytes, its own first (own; nil when it is
// there already): the root's recv when the root is rank 0 (the virtual
// ranks are the real ones), otherwise a buffer the size of the subtree.
// gatherLog and nbGatherLog share it.
func gatherTreeBuffer(c *coll.Comm, send, recv []byte, root int) (tmp, own []byte, bs int) {
	n, r := c.Size(), c.Rank()
	switch {
	case r == root && root == 0:
		return recv, send, len(recv) / n
	case r == root:
		bs = len(recv) / n
		own = send
		if own == nil {
			own = recv[r*bs : (r+1)*bs]
		}
		return coll.Buffer(n * bs), own, bs
	}
	return coll.Buffer(subtree((r-root+n)%n, n) * len(send)), send, len(send)
}

func gather(c *coll.Comm, send, recv []byte, root int) error {
	if c.SendsCall() {
		return gatherSent(c, send, recv, root)
	}
	if _, ok := c.Carry(); ok {
		return gatherToRootCarried(c, send, recv, root)
	}
	if linearRooted(c, blockSize(c, send, recv)) {
		return gatherLinear(c, send, recv, root)
	}
	return gatherLog(c, send, recv, root)
}

// gatherv is linear: only the root knows the counts.
func gatherv(c *coll.Comm, send []byte, recv [][]byte, root int) error {
	n, r := c.Size(), c.Rank()
	if r != root {
		return c.Send(send, root)
	}
	b := newBatch(c, n-1)
	for i := 0; i < n; i++ {
		if i == r {
			if send != nil {
				copyBlock(c, recv[i], send, r)
			}
			continue
		}
		b.recv(recv[i], i)
	}
	return b.wait()
}

// copyBlock copies a process's own block, which must fit exactly.
func copyBlock(c *coll.Comm, dst, src []byte, r int) {
	checkOwnBlock(c, dst, src, r)
	copy(dst, src)
}

// checkOwnBlock reports a process's own block that does not fill its
// slot exactly as the collective's fault.
func checkOwnBlock(c *coll.Comm, dst, src []byte, r int) {
	if len(dst) != len(src) {
		c.Fault(coll.Errorf(coll.ErrCount, "%s: rank %d's own block is %d bytes, its slot %d", c.T.Name(), r, len(src), len(dst)))
	}
}

func scatterLinear(c *coll.Comm, send, recv []byte, root int) error {
	n, r := c.Size(), c.Rank()
	if r != root {
		return c.Recv(recv, root)
	}
	bs := len(send) / n
	b := newBatch(c, n-1)
	for i := 0; i < n; i++ {
		if i == r {
			if recv != nil {
				copy(recv, send[i*bs:(i+1)*bs])
			}
			continue
		}
		b.send(send[i*bs:(i+1)*bs], i)
	}
	return b.wait()
}

// scatterLog: the reverse of gatherLog.
func scatterLog(c *coll.Comm, send, recv []byte, root int) error {
	n, r := c.Size(), c.Rank()
	v := (r - root + n) % n
	ch := children(v, n)
	if v != 0 && len(ch) == 0 {
		return c.Recv(recv, (parent(v)+root)%n)
	}
	tmp, bs, rotated := scatterTreeBuffer(c, send, recv, root)
	switch {
	case rotated:
		for k := 0; k < n; k++ {
			w := (k + root) % n
			copy(tmp[k*bs:(k+1)*bs], send[w*bs:(w+1)*bs])
		}
	case v != 0:
		if err := c.Recv(tmp, (parent(v)+root)%n); err != nil {
			return err
		}
	}
	b := newBatch(c, len(ch))
	for i := len(ch) - 1; i >= 0; i-- {
		k := ch[i]
		off := (k - v) * bs
		b.send(tmp[off:off+subtree(k, n)*bs], (k+root)%n)
	}
	if err := b.wait(); err != nil {
		return err
	}
	if recv != nil {
		copy(recv, tmp[:bs])
	}
	return nil
}

// scatterTreeBuffer is what a process of the binomial scatter sends its
// subtree's blocks of bs bytes from: the root's send when the root is
// rank 0; at another root a buffer of n blocks, into which the caller
// copies send rotated to virtual-rank order (rotated); elsewhere a buffer
// the size of the subtree, which the caller receives from its parent.
// scatterLog and nbScatterLog share it.
func scatterTreeBuffer(c *coll.Comm, send, recv []byte, root int) (tmp []byte, bs int, rotated bool) {
	n, r := c.Size(), c.Rank()
	switch {
	case r == root && root == 0:
		return send, len(send) / n, false
	case r == root:
		bs = len(send) / n
		return coll.Buffer(n * bs), bs, true
	}
	return coll.Buffer(subtree((r-root+n)%n, n) * len(recv)), len(recv), false
}

func scatter(c *coll.Comm, send, recv []byte, root int) error {
	if c.SendsCall() {
		return scatterSent(c, send, recv, root)
	}
	if _, ok := c.Carry(); ok {
		return scatterCarried(c, send, recv, root)
	}
	if linearRooted(c, blockSize(c, recv, send)) {
		return scatterLinear(c, send, recv, root)
	}
	return scatterLog(c, send, recv, root)
}

func scatterv(c *coll.Comm, send [][]byte, recv []byte, root int) error {
	n, r := c.Size(), c.Rank()
	if r != root {
		return c.Recv(recv, root)
	}
	b := newBatch(c, n-1)
	for i := 0; i < n; i++ {
		if i == r {
			if recv != nil {
				copyBlock(c, recv, send[i], r)
			}
			continue
		}
		b.send(send[i], i)
	}
	return b.wait()
}

// allgather: Bruck's algorithm (gatherAll) for blocks up to
// coll_base_allgather_ring bytes, a ring above (n-1 steps, each block
// received straight into place).
func allgather(c *coll.Comm, send, recv []byte) error {
	n, r := c.Size(), c.Rank()
	bs := len(recv) / n
	if send == nil {
		send = recv[r*bs : (r+1)*bs]
	}
	if n == 1 {
		copy(recv, send)
		return nil
	}
	if _, ok := c.Carry(); ok {
		return allgatherCarried(c, send, recv)
	}
	if bs <= c.Params.AllgatherRing {
		x, _, err := gatherAll(c, send[:bs], bs, false, 0)
		if err != nil {
			return err
		}
		for j := range n {
			i := (r - j + n) % n
			copy(recv[i*bs:(i+1)*bs], x[j*bs:(j+1)*bs])
		}
		return nil
	}
	copy(recv[r*bs:(r+1)*bs], send) // nothing to do in place
	if c.OneNode() {
		// As Alltoall on one node (pairwiseAlltoall): each process copies
		// every other's block once, straight from its buffer, instead of
		// n-1 steps that each wait for a neighbour.
		own := recv[r*bs : (r+1)*bs]
		return allAtOnce(c, func(src int) []byte { return recv[src*bs : (src+1)*bs] }, func(int) []byte { return own })
	}
	right, left := (r+1)%n, (r-1+n)%n
	for k := range n - 1 {
		out, in := (r-k+n)%n, (r-k-1+n)%n
		if err := c.Sendrecv(recv[out*bs:(out+1)*bs], right, recv[in*bs:(in+1)*bs], left); err != nil {
			return err
		}
	}
	return nil
}

// allgatherv: a gather to rank 0, then a broadcast of the blocks, packed
// unless they lie one after another.
func allgatherv(c *coll.Comm, send []byte, recv [][]byte) error {
	n, r := c.Size(), c.Rank()
	if send == nil && r != 0 {
		send = recv[r]
	}
	if n == 1 {
		if send != nil {
			copyBlock(c, recv[0], send, 0)
		}
		return nil
	}
	if err := gatherv(c, send, recv, 0); err != nil {
		return err
	}
	if all := span(recv); all != nil {
		return bcast(c, all, 0)
	}
	total := 0
	for _, b := range recv {
		total += len(b)
	}
	packed := coll.Buffer(total)
	if r == 0 {
		pos := 0
		for _, b := range recv {
			pos += copy(packed[pos:], b)
		}
	}
	if err := bcast(c, packed, 0); err != nil {
		return err
	}
	if r != 0 {
		pos := 0
		for _, b := range recv {
			pos += copy(b, packed[pos:])
		}
	}
	return nil
}

// span returns the blocks as one slice if each starts where the one
// before ends, or nil.
func span(blocks [][]byte) []byte {
	var first []byte
	total := 0
	var end uintptr
	for _, b := range blocks {
		if len(b) == 0 {
			continue
		}
		p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		if first == nil {
			first, end = b, p
		} else if p != end {
			return nil
		}
		end += uintptr(len(b))
		total += len(b)
	}
	if first == nil || cap(first) < total {
		return nil
	}
	return first[:total]
}

// alltoall: every receive and send at once, each process starting with
// its right-hand neighbour so that not all send to the same one first; for
// blocks above coll_base_alltoall_pairwise bytes, one exchange at a time
// (with r+k and r-k at step k), so that no process has n-1 large messages
// coming at once.
func alltoall(c *coll.Comm, send, recv []byte) error {
	if _, ok := c.Carry(); ok {
		return alltoallCarried(c, send, recv)
	}
	n, r := c.Size(), c.Rank()
	bs := len(recv) / n
	if send == nil {
		send = coll.Clone(recv)
	}
	blk := func(b []byte, i int) []byte { return b[i*bs : (i+1)*bs] }
	copy(blk(recv, r), blk(send, r))
	if pairwiseAlltoall(c, bs) {
		for k := 1; k < n; k++ {
			dst, src := (r+k)%n, (r-k+n)%n
			if err := c.Sendrecv(blk(send, dst), dst, blk(recv, src), src); err != nil {
				return err
			}
		}
		return nil
	}
	return allAtOnce(c, func(src int) []byte { return blk(recv, src) }, func(dst int) []byte { return blk(send, dst) })
}

// allAtOnce starts every receive from and send to the other processes at
// once (in, out: the buffer for each) and waits for them all.
func allAtOnce(c *coll.Comm, in, out func(peer int) []byte) error {
	n, r := c.Size(), c.Rank()
	b := newBatch(c, 2*(n-1))
	for i := 1; i < n; i++ {
		src := (r - i + n) % n
		b.recv(in(src), src)
	}
	for i := 1; i < n; i++ {
		dst := (r + i) % n
		b.send(out(dst), dst)
	}
	return b.wait()
}

func alltoallv(c *coll.Comm, send, recv [][]byte) error {
	n, r := c.Size(), c.Rank()
	b := newBatch(c, 2*(n-1))
	for i := 1; i < n; i++ {
		src := (r - i + n) % n
		b.recv(recv[src], src)
	}
	for i := 1; i < n; i++ {
		dst := (r + i) % n
		b.send(send[dst], dst)
	}
	copyBlock(c, recv[r], send[r], r)
	return b.wait()
}

// reduce chooses among the linear, binomial and reduce-scatter algorithms.
func reduce(c *coll.Comm, send, recv []byte, op *coll.Op, root int) error {
	if _, ok := c.Carry(); ok {
		return reduceCarried(c, send, recv, op, root)
	}
	n := c.Size()
	size := len(send)
	if send == nil {
		size = len(recv)
	}
	switch {
	case n == 1:
		if send != nil {
			copy(recv, send)
		}
		return nil
	case useRSAG(c, op, size):
		return reduceRSG(c, send, recv, op, root)
	case isLinear(c):
		return reduceLinear(c, send, recv, op, root)
	}
	return reduceLog(c, send, recv, op, root)
}

// useRSAG reports whether a reduction of size bytes per process uses
// reduce-scatter: a commutative op, more than coll_base_reduce_crossover
// bytes, at least one element per process.
func useRSAG(c *coll.Comm, op *coll.Op, size int) bool {
	return op.Commutative && size > c.Params.ReduceCrossover && size/op.Size >= c.Size()
}

// reduceLinear is LAM's: the root combines x[n-1], then x[i] ∘ result for
// i from n-2 down to 0, receiving up to four contributions at once.
func reduceLinear(c *coll.Comm, send, recv []byte, op *coll.Op, root int) error {
	n, r := c.Size(), c.Rank()
	if r != root {
		return c.Send(send, root)
	}
	mine := send
	if mine == nil {
		mine = c.Scratch(coll.ScratchMine, len(recv))
		copy(mine, recv)
	}
	size := len(mine)
	acc := recv[:size]
	// Contribution i arrives in window slot i%window, free again once
	// contribution i+window is started.
	const window = 4
	var bufs [window][]byte
	var pend [window]coll.Pending
	start := func(i int) error {
		if i < 0 || i == r {
			return nil
		}
		bufs[i%window] = c.Scratch(coll.ScratchWindow+i%window, size)
		p, err := c.Irecv(bufs[i%window], i)
		pend[i%window] = p
		return err
	}
	for i := n - 1; i >= max(n-window, 0); i-- {
		if err := start(i); err != nil {
			return err
		}
	}
	for i := n - 1; i >= 0; i-- {
		in := mine
		if i != r {
			if err := c.Wait(pend[i%window]); err != nil {
				return err
			}
			in = bufs[i%window]
		}
		if i == n-1 {
			copy(acc, in)
		} else {
			op.Apply(in, acc)
		}
		if err := start(i - window); err != nil {
			return err
		}
	}
	return nil
}

// reduceTree is the binomial reduction's tree as one process sees it:
// its virtual rank v, rotated to the root when the op commutes (a
// non-commutative op reduces to rank 0, which sends to the root).
// reduceLog and nbReduceLog share it.
type reduceTree struct {
	n, root, v int
	rotated    bool
}

// newReduceTree returns the tree and this process's contribution (recv
// in place).
func newReduceTree(c *coll.Comm, send, recv []byte, op *coll.Op, root int) (reduceTree, []byte) {
	t := reduceTree{n: c.Size(), root: root, v: c.Rank(), rotated: op.Commutative}
	if t.rotated {
		t.v = (t.v - root + t.n) % t.n
	}
	if send == nil {
		return t, recv
	}
	return t, send
}

// real is the rank of virtual rank x.
func (t reduceTree) real(x int) int {
	if t.rotated {
		return (x + t.root) % t.n
	}
	return x
}

// reduceLog is LAM's binomial reduction: a process receives its subtree
// partners' results in turn and combines them as mine ∘ theirs, then
// passes the result up. A commutative op rotates the tree to the root; a
// non-commutative one reduces to rank 0, which sends to the root.
func reduceLog(c *coll.Comm, send, recv []byte, op *coll.Op, root int) error {
	t, mine := newReduceTree(c, send, recv, op, root)
	n, r, v, size := t.n, c.Rank(), t.v, len(mine)
	result := mine
	var bufs [2][]byte
	k := 0
	for m := 1; m < n; m <<= 1 {
		if v&m != 0 {
			if err := c.Send(result, t.real(v&^m)); err != nil {
				return err
			}
			break
		}
		if v|m >= n {
			continue
		}
		if bufs[k] == nil {
			bufs[k] = coll.Buffer(size)
		}
		in := bufs[k]
		if err := c.Recv(in, t.real(v|m)); err != nil {
			return err
		}
		op.Apply(result, in)
		result, k = in, k^1
	}
	switch {
	case v == 0 && r == root:
		copy(recv[:size], result)
	case v == 0:
		return c.Send(result, root)
	case r == root:
		return c.Recv(recv[:size], 0)
	}
	return nil
}

// blocks splits size bytes of elements of es bytes into p nearly equal
// pieces, returning the p+1 boundaries.
func blocks(size, es, p int) []int {
	n := size / es
	out := make([]int, p+1)
	for i := 0; i <= p; i++ {
		out[i] = i * n / p * es
	}
	out[p] = size
	return out
}

// rsag is the state of a reduce-scatter by recursive halving over the
// largest power of two p ≤ n processes: the first 2(n-p) ranks pair up
// first (the odd one of each pair takes part, holding both
// contributions). The reduction builds up in acc, the caller's receive
// buffer when it has one, so that nothing is copied: the first exchange
// sends from the send buffer and receives straight into acc.
type rsag struct {
	c       *coll.Comm
	n, p    int
	rem     int
	newrank int // -1 for a process that only folded its data in
	acc     []byte
	bounds  []int
	op      *coll.Op
}

func (s *rsag) real(nr int) int {
	if nr < s.rem {
		return 2*nr + 1
	}
	return nr + s.rem
}

// reduceScatter leaves the reduction of block s.newrank in acc; send is
// this process's contribution, or nil when it is in acc already.
func (s *rsag) reduceScatter(send, acc []byte) error {
	c, r := s.c, s.c.Rank()
	s.p = 1
	for s.p*2 <= s.n {
		s.p *= 2
	}
	s.rem = s.n - s.p
	size := len(acc)
	s.acc = acc
	s.bounds = blocks(size, s.op.Size, s.p)
	switch {
	case r < 2*s.rem && r%2 == 0:
		s.newrank = -1
		if send == nil {
			send = acc
		}
		return c.Send(send, r+1)
	case r < 2*s.rem:
		tmp := c.Scratch(coll.ScratchRSAG, size)
		if err := c.Recv(tmp, r-1); err != nil {
			return err
		}
		if send != nil {
			copy(acc, send)
			send = nil
		}
		s.op.Apply(tmp, acc)
		s.newrank = r / 2
	default:
		s.newrank = r - s.rem
	}
	var tmp []byte
	lo, hi := 0, s.p
	for d := s.p / 2; d >= 1; d /= 2 {
		mid := lo + (hi-lo)/2
		partner := s.real(s.newrank ^ d)
		keepLo, keepHi, giveLo, giveHi := lo, mid, mid, hi
		if s.newrank&d != 0 {
			keepLo, keepHi, giveLo, giveHi = mid, hi, lo, mid
		}
		kb, ke := s.bounds[keepLo], s.bounds[keepHi]
		gb, ge := s.bounds[giveLo], s.bounds[giveHi]
		if send != nil {
			// The partner's half lands in acc; this process's own
			// half is combined into it.
			if err := c.Sendrecv(send[gb:ge], partner, acc[kb:ke], partner); err != nil {
				return err
			}
			s.op.Apply(send[kb:ke], acc[kb:ke])
			send = nil
		} else {
			if tmp == nil {
				tmp = c.Scratch(coll.ScratchRSAG, size)
			}
			if err := c.Sendrecv(acc[gb:ge], partner, tmp[kb:ke], partner); err != nil {
				return err
			}
			s.op.Apply(tmp[kb:ke], acc[kb:ke])
		}
		lo, hi = keepLo, keepHi
	}
	return nil
}

// allgather completes acc on every process by recursive doubling, then
// hands it to the processes that folded in.
func (s *rsag) allgather() error {
	c, r := s.c, s.c.Rank()
	if s.newrank >= 0 {
		lo, hi := s.newrank, s.newrank+1
		for d := 1; d < s.p; d *= 2 {
			partner := s.real(s.newrank ^ d)
			plo := lo ^ d // the partner's window, of the same size
			phi := plo + (hi - lo)
			if err := c.Sendrecv(s.acc[s.bounds[lo]:s.bounds[hi]], partner, s.acc[s.bounds[plo]:s.bounds[phi]], partner); err != nil {
				return err
			}
			lo, hi = min(lo, plo), max(hi, phi)
		}
	}
	switch {
	case r < 2*s.rem && r%2 == 0:
		return c.Recv(s.acc, r+1)
	case r < 2*s.rem:
		return c.Send(s.acc, r-1)
	}
	return nil
}

// reduceRSG is a reduce-scatter, then a gather of the pieces at the root.
func reduceRSG(c *coll.Comm, send, recv []byte, op *coll.Op, root int) error {
	r := c.Rank()
	size := len(send)
	acc := recv
	if r != root {
		acc = c.Scratch(coll.ScratchReduce, size)
	} else if send == nil {
		size = len(recv)
	}
	acc = acc[:size]
	s := &rsag{c: c, n: c.Size(), op: op}
	if err := s.reduceScatter(send, acc); err != nil {
		return err
	}
	if r != root {
		if s.newrank < 0 {
			return nil
		}
		return c.Send(acc[s.bounds[s.newrank]:s.bounds[s.newrank+1]], root)
	}
	b := newBatch(c, s.p)
	for i := 0; i < s.p; i++ {
		if src := s.real(i); src != r {
			b.recv(acc[s.bounds[i]:s.bounds[i+1]], src)
		}
	}
	return b.wait()
}

// allreduce: for small sizes every process gathers every contribution
// and reduces them itself (allreduceGather); reduce-scatter and allgather
// for large commutative reductions; otherwise a reduction to rank 0 and a
// broadcast.
func allreduce(c *coll.Comm, send, recv []byte, op *coll.Op) error {
	n, r := c.Size(), c.Rank()
	if n == 1 {
		if send != nil {
			copy(recv, send)
		}
		return nil
	}
	if _, carried := c.Carry(); carried || gathers(c, len(recv)) {
		return allreduceGather(c, send, recv, op)
	}
	if useRSAG(c, op, len(recv)) {
		if directAllreduce(c, len(recv)) {
			return allreduceDirect(c, send, recv, op)
		}
		s := &rsag{c: c, n: n, op: op}
		if err := s.reduceScatter(send, recv); err != nil {
			return err
		}
		return s.allgather()
	}
	if send == nil && r != 0 {
		send = recv
	}
	if n == 2 {
		return allreduceExchange(c, send, recv, op)
	}
	if isLinear(c) {
		if err := reduceLinear(c, send, recv, op, 0); err != nil {
			return err
		}
	} else if err := reduceLog(c, send, recv, op, 0); err != nil {
		return err
	}
	return bcast(c, recv, 0)
}

// allreduceExchange is the allreduce of two processes: one exchange, after
// which each combines x0 ∘ x1 itself (in rank order, as reduceLinear
// does, so both get the same bits, whatever the op). Rank 0's send is nil
// when it reduces in place.
func allreduceExchange(c *coll.Comm, send, recv []byte, op *coll.Op) error {
	if send == nil {
		send = recv
	}
	send = send[:len(recv)]
	other := c.Scratch(coll.ScratchWindow, len(recv))
	if err := c.Sendrecv(send, 1-c.Rank(), other, 1-c.Rank()); err != nil {
		return err
	}
	if c.Rank() == 0 {
		op.Apply(send, other) // x0 ∘ x1
		copy(recv, other)
		return nil
	}
	copy(recv, send)
	op.Apply(other, recv) // x0 ∘ x1
	return nil
}

// reduceScatter: a reduction to rank 0, then a scatter of the pieces.
func reduceScatter(c *coll.Comm, send, recv []byte, counts []int, op *coll.Op) error {
	n, r := c.Size(), c.Rank()
	total := 0
	for _, k := range counts {
		total += k
	}
	var all []byte
	if r == 0 {
		all = coll.Buffer(total)
	}
	in := send
	if in == nil {
		in = coll.Clone(recv[:total])
	}
	if err := reduce(c, in, all, op, 0); err != nil {
		return err
	}
	var pieces [][]byte
	if r == 0 {
		pieces = make([][]byte, n)
		pos := 0
		for i, k := range counts {
			pieces[i] = all[pos : pos+k]
			pos += k
		}
	}
	return scatterv(c, pieces, recv[:counts[r]], 0)
}

func reduceScatterBlock(c *coll.Comm, send, recv []byte, op *coll.Op) error {
	n := c.Size()
	bs := len(recv)
	if send == nil {
		bs = len(recv) / n // in place: the input is n blocks in recv, the result goes to its first
	}
	counts := make([]int, n)
	for i := range counts {
		counts[i] = bs
	}
	return reduceScatter(c, send, recv, counts, op)
}

// scanLinear: rank r receives the prefix of ranks 0..r-1, combines its
// own, and passes the result on.
func scanLinear(c *coll.Comm, send, recv []byte, op *coll.Op) error {
	n, r := c.Size(), c.Rank()
	if send != nil {
		copy(recv, send)
	}
	if r > 0 {
		prev := coll.Buffer(len(recv))
		if err := c.Recv(prev, r-1); err != nil {
			return err
		}
		op.Apply(prev, recv)
	}
	if r < n-1 {
		return c.Send(recv, r+1)
	}
	return nil
}

// scanLog is recursive doubling: at distance d, every process sends its
// partial result to r+d and combines the one from r-d in front of its own.
func scanLog(c *coll.Comm, send, recv []byte, op *coll.Op) error {
	n := c.Size()
	if send != nil {
		copy(recv, send)
	}
	out := coll.Buffer(len(recv))
	in := coll.Buffer(len(recv))
	for d := 1; d < n; d *= 2 {
		copy(out, recv)
		got, err := shift(c, out, in, d)
		if err != nil {
			return err
		}
		if got {
			op.Apply(in, recv)
		}
	}
	return nil
}

// shift is a step of recursive doubling at distance d: this process sends
// out to rank r+d and receives in from rank r-d, where they exist. It
// reports whether it received.
func shift(c *coll.Comm, out, in []byte, d int) (bool, error) {
	n, r := c.Size(), c.Rank()
	b := newBatch(c, 2)
	if r-d >= 0 {
		b.recv(in, r-d)
	}
	if r+d < n {
		b.send(out, r+d)
	}
	return r-d >= 0, b.wait()
}

func exscanLinear(c *coll.Comm, send, recv []byte, op *coll.Op) error {
	n, r := c.Size(), c.Rank()
	mine := send
	if mine == nil {
		mine = coll.Clone(recv)
	}
	if r == 0 {
		if n > 1 {
			return c.Send(mine, 1)
		}
		return nil
	}
	if err := c.Recv(recv, r-1); err != nil {
		return err
	}
	if r < n-1 {
		next := coll.Clone(mine)
		op.Apply(recv, next)
		return c.Send(next, r+1)
	}
	return nil
}

// exscanLog is recursive doubling keeping two values: the partial
// reduction including this process's own (which is passed on), and the
// result without it.
func exscanLog(c *coll.Comm, send, recv []byte, op *coll.Op) error {
	n := c.Size()
	mine := send
	if mine == nil {
		mine = recv
	}
	partial := coll.Clone(mine)
	out := coll.Buffer(len(partial))
	in := coll.Buffer(len(partial))
	have := false
	for d := 1; d < n; d *= 2 {
		copy(out, partial)
		got, err := shift(c, out, in, d)
		if err != nil {
			return err
		}
		if got {
			if have {
				op.Apply(in, recv)
			} else {
				copy(recv, in)
				have = true
			}
			op.Apply(in, partial)
		}
	}
	return nil
}
