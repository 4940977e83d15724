package basic

import "github.com/lamgo/lam/libmpi/coll"

// lam_basic's nonblocking collectives: the blocking algorithms of
// intra.go and inter.go, each written as a schedule (coll.Schedule) of
// rounds of sends and receives with the local copies and reductions
// between them. They run on a private view of the communicator (c below)
// and add steps to its schedule; the data moves later, when the schedule
// is advanced, so a function may only read what the caller gave it (the
// send buffers) and must do everything with received data in local steps.
// Buffers of their own are allocated for each collective (a view lives
// for one collective only). Each function starts a new round, so they
// compose: a function that calls another runs it after what it added so
// far.

// clone returns a buffer that a step of s fills with a copy of b (which
// an earlier step may be filling).
func clone(s *coll.Schedule, b []byte) []byte {
	out := s.Temp(len(b))
	s.Copy(out, b)
	return out
}

// nbCopyBlock adds the copy of a process's own block, which must fit
// exactly (copyBlock as a step).
func nbCopyBlock(c *coll.Comm, dst, src []byte, r int) {
	checkOwnBlock(c, dst, src, r)
	c.Schedule().Copy(dst, src)
}

// NonblockingFunctions returns lam_basic's nonblocking functions for c,
// which other modules call when they cannot do better.
func NonblockingFunctions(c *coll.Comm) *coll.Actions { return Module{}.NonblockingActions(c) }

// NonblockingActions returns lam_basic's schedules for c.
func (Module) NonblockingActions(c *coll.Comm) *coll.Actions {
	switch {
	case c.Inter():
		return &nbInter
	case c.Size() <= c.Params.Crossover:
		return &nbLinear
	}
	return &nbLogarithmic
}

var nbLinear = coll.Actions{
	Barrier:            nbBarrierLinear,
	Bcast:              nbBcastLinear,
	Gather:             nbGatherLinear,
	Gatherv:            nbGatherv,
	Scatter:            nbScatterLinear,
	Scatterv:           nbScatterv,
	Allgather:          nbAllgather,
	Allgatherv:         nbAllgatherv,
	Alltoall:           nbAlltoall,
	Alltoallv:          nbAlltoallv,
	Alltoallw:          nbAlltoallv,
	Reduce:             nbReduce,
	Allreduce:          nbAllreduce,
	ReduceScatter:      nbReduceScatter,
	ReduceScatterBlock: nbReduceScatterBlock,
	Scan:               nbScanLinear,
	Exscan:             nbExscanLinear,
}

var nbLogarithmic = func() coll.Actions {
	a := nbLinear
	a.Barrier, a.Bcast, a.Gather, a.Scatter = nbBarrierLog, nbBcastLog, nbGatherLog, nbScatterLog
	a.Scan, a.Exscan = nbScanLog, nbExscanLog
	return a
}()

// sched returns c's schedule, with a new round begun.
func sched(c *coll.Comm) *coll.Schedule {
	s := c.Schedule()
	s.Next()
	return s
}

func nbBarrierLinear(c *coll.Comm) error {
	n, r := c.Size(), c.Rank()
	s := sched(c)
	switch {
	case n == 1:
	case n == 2:
		s.Send(c, nil, 1-r)
		s.Recv(c, nil, 1-r)
	case r != 0:
		// The release comes only once rank 0 has heard from everyone.
		s.Send(c, nil, 0)
		s.Recv(c, nil, 0)
	default:
		for i := 1; i < n; i++ {
			s.Recv(c, nil, i)
		}
		s.Next()
		for i := 1; i < n; i++ {
			s.Send(c, nil, i)
		}
	}
	return nil
}

func nbBarrierLog(c *coll.Comm) error {
	n, r := c.Size(), c.Rank()
	s := sched(c)
	for _, k := range children(r, n) {
		s.Recv(c, nil, k)
	}
	if r != 0 {
		s.Next()
		s.Send(c, nil, parent(r))
	}
	return nbBcastLog(c, nil, 0)
}

func nbBcastLinear(c *coll.Comm, buf []byte, root int) error {
	if c.SendsCall() {
		return nbBcastSent(c, buf, root)
	}
	return nbBcastLinearData(c, buf, root)
}

// nbBcastLinearData is the linear Bcast of buf alone.
func nbBcastLinearData(c *coll.Comm, buf []byte, root int) error {
	n, r := c.Size(), c.Rank()
	s := sched(c)
	switch {
	case n == 1:
	case r != root:
		s.Recv(c, buf, root)
	default:
		for i := 1; i < n; i++ {
			s.Send(c, buf, (root+i)%n)
		}
	}
	return nil
}

func nbBcastLog(c *coll.Comm, buf []byte, root int) error {
	if c.SendsCall() {
		return nbBcastSent(c, buf, root)
	}
	return nbBcastLogData(c, buf, root)
}

// nbBcastLogData is the binomial Bcast of buf alone.
func nbBcastLogData(c *coll.Comm, buf []byte, root int) error {
	if linearBcast(c, len(buf)) {
		return nbBcastLinearData(c, buf, root) // as the blocking Bcast chooses
	}
	n, r := c.Size(), c.Rank()
	v := (r - root + n) % n
	s := sched(c)
	if v != 0 {
		s.Recv(c, buf, (parent(v)+root)%n)
		s.Next()
	}
	ch := children(v, n)
	for i := len(ch) - 1; i >= 0; i-- { // the largest subtree first
		s.Send(c, buf, (ch[i]+root)%n)
	}
	return nil
}

func nbBcast(c *coll.Comm, buf []byte, root int) error {
	if isLinear(c) {
		return nbBcastLinear(c, buf, root)
	}
	return nbBcastLog(c, buf, root)
}

// nbBcastData is nbBcast of buf alone, also where the collective sends
// its call (a message that already holds it).
func nbBcastData(c *coll.Comm, buf []byte, root int) error {
	if isLinear(c) {
		return nbBcastLinearData(c, buf, root)
	}
	return nbBcastLogData(c, buf, root)
}

func nbGatherLinear(c *coll.Comm, send, recv []byte, root int) error {
	if c.SendsCall() {
		return nbGatherSent(c, send, recv, root)
	}
	n, r := c.Size(), c.Rank()
	s := sched(c)
	if r != root {
		s.Send(c, send, root)
		return nil
	}
	bs := len(recv) / n
	for i := 0; i < n; i++ {
		if i == r {
			if send != nil {
				s.Copy(recv[i*bs:(i+1)*bs], send)
			}
			continue
		}
		s.Recv(c, recv[i*bs:(i+1)*bs], i)
	}
	return nil
}

func nbGatherLog(c *coll.Comm, send, recv []byte, root int) error {
	if c.SendsCall() {
		return nbGatherSent(c, send, recv, root)
	}
	if linearRooted(c, blockSize(c, send, recv)) {
		return nbGatherLinear(c, send, recv, root) // as the blocking Gather chooses
	}
	n, r := c.Size(), c.Rank()
	v := (r - root + n) % n
	ch := children(v, n)
	s := sched(c)
	if v != 0 && len(ch) == 0 {
		s.Send(c, send, (parent(v)+root)%n)
		return nil
	}
	tmp, own, bs := gatherTreeBuffer(c, send, recv, root)
	if own != nil {
		s.Copy(tmp[:bs], own)
	}
	s.Next()
	for _, k := range ch {
		off := (k - v) * bs
		s.Recv(c, tmp[off:off+subtree(k, n)*bs], (k+root)%n)
	}
	s.Next()
	if v != 0 {
		s.Send(c, tmp, (parent(v)+root)%n)
		return nil
	}
	if root != 0 {
		for k := 0; k < n; k++ {
			w := (k + root) % n
			s.Copy(recv[w*bs:(w+1)*bs], tmp[k*bs:(k+1)*bs])
		}
	}
	return nil
}

func nbGather(c *coll.Comm, send, recv []byte, root int) error {
	if isLinear(c) {
		return nbGatherLinear(c, send, recv, root)
	}
	return nbGatherLog(c, send, recv, root)
}

func nbGatherv(c *coll.Comm, send []byte, recv [][]byte, root int) error {
	n, r := c.Size(), c.Rank()
	s := sched(c)
	if r != root {
		s.Send(c, send, root)
		return nil
	}
	for i := 0; i < n; i++ {
		if i == r {
			if send != nil {
				nbCopyBlock(c, recv[i], send, r)
			}
			continue
		}
		s.Recv(c, recv[i], i)
	}
	return nil
}

func nbScatterLinear(c *coll.Comm, send, recv []byte, root int) error {
	if c.SendsCall() {
		return nbScatterSent(c, send, recv, root)
	}
	n, r := c.Size(), c.Rank()
	s := sched(c)
	if r != root {
		s.Recv(c, recv, root)
		return nil
	}
	bs := len(send) / n
	for i := 0; i < n; i++ {
		if i == r {
			if recv != nil {
				s.Copy(recv, send[i*bs:(i+1)*bs])
			}
			continue
		}
		s.Send(c, send[i*bs:(i+1)*bs], i)
	}
	return nil
}

func nbScatterLog(c *coll.Comm, send, recv []byte, root int) error {
	if c.SendsCall() {
		return nbScatterSent(c, send, recv, root)
	}
	if linearRooted(c, blockSize(c, recv, send)) {
		return nbScatterLinear(c, send, recv, root) // as the blocking Scatter chooses
	}
	n, r := c.Size(), c.Rank()
	v := (r - root + n) % n
	ch := children(v, n)
	s := sched(c)
	if v != 0 && len(ch) == 0 {
		s.Recv(c, recv, (parent(v)+root)%n)
		return nil
	}
	tmp, bs, rotated := scatterTreeBuffer(c, send, recv, root)
	switch {
	case rotated:
		for k := 0; k < n; k++ {
			w := (k + root) % n
			s.Copy(tmp[k*bs:(k+1)*bs], send[w*bs:(w+1)*bs])
		}
		s.Next()
	case v != 0:
		s.Recv(c, tmp, (parent(v)+root)%n)
		s.Next()
	}
	for i := len(ch) - 1; i >= 0; i-- {
		k := ch[i]
		off := (k - v) * bs
		s.Send(c, tmp[off:off+subtree(k, n)*bs], (k+root)%n)
	}
	if recv != nil {
		s.Copy(recv, tmp[:bs])
	}
	return nil
}

func nbScatter(c *coll.Comm, send, recv []byte, root int) error {
	if isLinear(c) {
		return nbScatterLinear(c, send, recv, root)
	}
	return nbScatterLog(c, send, recv, root)
}

func nbScatterv(c *coll.Comm, send [][]byte, recv []byte, root int) error {
	n, r := c.Size(), c.Rank()
	s := sched(c)
	if r != root {
		s.Recv(c, recv, root)
		return nil
	}
	for i := 0; i < n; i++ {
		if i == r {
			if recv != nil {
				nbCopyBlock(c, recv, send[i], r)
			}
			continue
		}
		s.Send(c, send[i], i)
	}
	return nil
}

// nbAllgather: a gather to rank 0, then a broadcast.
func nbAllgather(c *coll.Comm, send, recv []byte) error {
	n, r := c.Size(), c.Rank()
	bs := len(recv) / n
	if send == nil && r != 0 {
		send = recv[r*bs : (r+1)*bs]
	}
	if n == 1 {
		if send != nil {
			sched(c).Copy(recv, send)
		}
		return nil
	}
	if c.OneNode() && bs > c.Params.AllgatherRing {
		// As the blocking Allgather on one node: every process sends its
		// block to every other and receives theirs at once, each copied
		// once (the shared-memory rpis), instead of a gather to rank 0
		// and a broadcast of everything.
		own := recv[r*bs : (r+1)*bs]
		mine := send
		if mine == nil {
			mine = own
		}
		s := sched(c)
		for i := 1; i < n; i++ {
			src := (r - i + n) % n
			s.Recv(c, recv[src*bs:(src+1)*bs], src)
		}
		for i := 1; i < n; i++ {
			s.Send(c, mine, (r+i)%n)
		}
		if &mine[0] != &own[0] {
			nbCopyBlock(c, own, mine, r)
		}
		return nil
	}
	if err := nbGather(c, send, recv, 0); err != nil {
		return err
	}
	return nbBcast(c, recv, 0)
}

// nbAllgatherv: a gather to rank 0, then a broadcast of the blocks,
// packed unless they lie one after another.
func nbAllgatherv(c *coll.Comm, send []byte, recv [][]byte) error {
	n, r := c.Size(), c.Rank()
	if send == nil && r != 0 {
		send = recv[r]
	}
	if n == 1 {
		if send != nil {
			nbCopyBlock(c, recv[0], send, 0)
		}
		return nil
	}
	if err := nbGatherv(c, send, recv, 0); err != nil {
		return err
	}
	if all := span(recv); all != nil {
		return nbBcast(c, all, 0)
	}
	total := 0
	for _, b := range recv {
		total += len(b)
	}
	packed := coll.Buffer(total)
	s := sched(c)
	if r == 0 {
		pos := 0
		for _, b := range recv {
			s.Copy(packed[pos:pos+len(b)], b)
			pos += len(b)
		}
	}
	if err := nbBcast(c, packed, 0); err != nil {
		return err
	}
	if r != 0 {
		s.Next()
		pos := 0
		for _, b := range recv {
			s.Copy(b, packed[pos:pos+len(b)])
			pos += len(b)
		}
	}
	return nil
}

func nbAlltoall(c *coll.Comm, send, recv []byte) error {
	n := c.Size()
	bs := len(recv) / n
	if send == nil {
		send = clone(sched(c), recv)
	}
	sb, rb := make([][]byte, n), make([][]byte, n)
	for i := 0; i < n; i++ {
		sb[i], rb[i] = send[i*bs:(i+1)*bs], recv[i*bs:(i+1)*bs]
	}
	return nbAlltoallv(c, sb, rb)
}

func nbAlltoallv(c *coll.Comm, send, recv [][]byte) error {
	n, r := c.Size(), c.Rank()
	s := sched(c)
	for i := 1; i < n; i++ {
		src := (r - i + n) % n
		s.Recv(c, recv[src], src)
	}
	for i := 1; i < n; i++ {
		dst := (r + i) % n
		s.Send(c, send[dst], dst)
	}
	nbCopyBlock(c, recv[r], send[r], r)
	return nil
}

// nbReduce chooses as reduce does.
func nbReduce(c *coll.Comm, send, recv []byte, op *coll.Op, root int) error {
	if c.SendsCall() {
		return nbReduceSent(c, send, recv, op, root)
	}
	n := c.Size()
	size := len(send)
	if send == nil {
		size = len(recv)
	}
	switch {
	case n == 1:
		if send != nil {
			sched(c).Copy(recv, send)
		}
		return nil
	case useRSAG(c, op, size):
		return nbReduceRSG(c, send, recv, op, root)
	case isLinear(c):
		return nbReduceLinear(c, send, recv, op, root)
	}
	return nbReduceLog(c, send, recv, op, root)
}

// nbReduceLinear combines in reduceLinear's order: x[n-1], then x[i] ∘
// result for i from n-2 down to 0; every contribution is received at
// once.
func nbReduceLinear(c *coll.Comm, send, recv []byte, op *coll.Op, root int) error {
	n, r := c.Size(), c.Rank()
	s := sched(c)
	if r != root {
		s.Send(c, send, root)
		return nil
	}
	mine := send
	if mine == nil {
		mine = clone(s, recv)
	}
	size := len(mine)
	acc := recv[:size]
	in := make([][]byte, n)
	for i := n - 1; i >= 0; i-- {
		in[i] = mine
		if i != r {
			in[i] = s.Temp(size)
			s.Recv(c, in[i], i)
		}
	}
	s.Copy(acc, in[n-1])
	for i := n - 2; i >= 0; i-- {
		s.Reduce(op, in[i], acc)
	}
	return nil
}

// nbReduceLog is reduceLog's binomial reduction.
func nbReduceLog(c *coll.Comm, send, recv []byte, op *coll.Op, root int) error {
	t, mine := newReduceTree(c, send, recv, op, root)
	n, r, v, size := t.n, c.Rank(), t.v, len(mine)
	s := sched(c)
	result := mine
	for m := 1; m < n; m <<= 1 {
		if v&m != 0 {
			s.Next()
			s.Send(c, result, t.real(v&^m))
			break
		}
		if v|m >= n {
			continue
		}
		in := s.Temp(size)
		s.Next()
		s.Recv(c, in, t.real(v|m))
		s.Reduce(op, result, in)
		result = in
	}
	s.Next()
	switch {
	case v == 0 && r == root:
		s.Copy(recv[:size], result)
	case v == 0:
		s.Send(c, result, root)
	case r == root:
		s.Recv(c, recv[:size], 0)
	}
	return nil
}

// nbRSAG is rsag as a schedule: a reduce-scatter by recursive halving
// over the largest power of two p ≤ n processes (the first 2(n-p) ranks
// pair up first), then, for Allreduce, an allgather by recursive doubling.
type nbRSAG struct {
	rsag
	s *coll.Schedule
}

func (x *nbRSAG) reduceScatter(send, acc []byte) {
	c, r, s := x.c, x.c.Rank(), x.s
	x.p = 1
	for x.p*2 <= x.n {
		x.p *= 2
	}
	x.rem = x.n - x.p
	size := len(acc)
	x.acc = acc
	x.bounds = blocks(size, x.op.Size, x.p)
	switch {
	case r < 2*x.rem && r%2 == 0:
		x.newrank = -1
		if send == nil {
			send = acc
		}
		s.Send(c, send, r+1)
		return
	case r < 2*x.rem:
		tmp := s.Temp(size)
		s.Recv(c, tmp, r-1)
		if send != nil {
			s.Copy(acc, send)
			send = nil
		}
		s.Reduce(x.op, tmp, acc)
		x.newrank = r / 2
	default:
		x.newrank = r - x.rem
	}
	var tmp []byte
	lo, hi := 0, x.p
	for d := x.p / 2; d >= 1; d /= 2 {
		mid := lo + (hi-lo)/2
		partner := x.real(x.newrank ^ d)
		keepLo, keepHi, giveLo, giveHi := lo, mid, mid, hi
		if x.newrank&d != 0 {
			keepLo, keepHi, giveLo, giveHi = mid, hi, lo, mid
		}
		kb, ke := x.bounds[keepLo], x.bounds[keepHi]
		gb, ge := x.bounds[giveLo], x.bounds[giveHi]
		s.Next()
		if send != nil {
			// The partner's half lands in acc; this process's own half is
			// combined into it.
			s.Send(c, send[gb:ge], partner)
			s.Recv(c, acc[kb:ke], partner)
			s.Reduce(x.op, send[kb:ke], acc[kb:ke])
			send = nil
		} else {
			if tmp == nil {
				tmp = s.Temp(size)
			}
			s.Send(c, acc[gb:ge], partner)
			s.Recv(c, tmp[kb:ke], partner)
			s.Reduce(x.op, tmp[kb:ke], acc[kb:ke])
		}
		lo, hi = keepLo, keepHi
	}
}

func (x *nbRSAG) allgather() {
	c, r, s := x.c, x.c.Rank(), x.s
	if x.newrank >= 0 {
		lo, hi := x.newrank, x.newrank+1
		for d := 1; d < x.p; d *= 2 {
			partner := x.real(x.newrank ^ d)
			plo := lo ^ d
			phi := plo + (hi - lo)
			s.Next()
			s.Send(c, x.acc[x.bounds[lo]:x.bounds[hi]], partner)
			s.Recv(c, x.acc[x.bounds[plo]:x.bounds[phi]], partner)
			lo, hi = min(lo, plo), max(hi, phi)
		}
	}
	s.Next()
	switch {
	case r < 2*x.rem && r%2 == 0:
		s.Recv(c, x.acc, r+1)
	case r < 2*x.rem:
		s.Send(c, x.acc, r-1)
	}
}

func nbReduceRSG(c *coll.Comm, send, recv []byte, op *coll.Op, root int) error {
	r := c.Rank()
	size := len(send)
	acc := recv
	x := &nbRSAG{rsag: rsag{c: c, n: c.Size(), op: op}, s: sched(c)}
	if r != root {
		acc = x.s.Temp(size)
	} else if send == nil {
		size = len(recv)
	}
	acc = acc[:size]
	x.reduceScatter(send, acc)
	s := x.s
	s.Next()
	if r != root {
		if x.newrank >= 0 {
			s.Send(c, acc[x.bounds[x.newrank]:x.bounds[x.newrank+1]], root)
		}
		return nil
	}
	for i := 0; i < x.p; i++ {
		if src := x.real(i); src != r {
			s.Recv(c, acc[x.bounds[i]:x.bounds[i+1]], src)
		}
	}
	return nil
}

func nbAllreduce(c *coll.Comm, send, recv []byte, op *coll.Op) error {
	if c.SendsCall() {
		return nbAllreduceSent(c, send, recv, op)
	}
	n, r := c.Size(), c.Rank()
	if n == 1 {
		if send != nil {
			sched(c).Copy(recv, send)
		}
		return nil
	}
	if useRSAG(c, op, len(recv)) {
		x := &nbRSAG{rsag: rsag{c: c, n: n, op: op}, s: sched(c)}
		x.reduceScatter(send, recv)
		x.allgather()
		return nil
	}
	if send == nil && r != 0 {
		send = recv
	}
	if n == 2 {
		return nbAllreduceExchange(c, send, recv, op)
	}
	var err error
	if isLinear(c) {
		err = nbReduceLinear(c, send, recv, op, 0)
	} else {
		err = nbReduceLog(c, send, recv, op, 0)
	}
	if err != nil {
		return err
	}
	return nbBcast(c, recv, 0)
}

// nbAllreduceExchange: one exchange, then each combines x0 ∘ x1.
func nbAllreduceExchange(c *coll.Comm, send, recv []byte, op *coll.Op) error {
	if send == nil {
		send = recv
	}
	send = send[:len(recv)]
	// A view's scratch is its collective's: the argument check's
	// exchange and the collective's, rounds apart, may share it.
	other := c.Scratch(coll.ScratchWindow, len(recv))
	s := sched(c)
	s.Send(c, send, 1-c.Rank())
	s.Recv(c, other, 1-c.Rank())
	if c.Rank() == 0 {
		s.Reduce(op, send, other) // x0 ∘ x1
		s.Copy(recv, other)
		return nil
	}
	s.Copy(recv, send)
	s.Reduce(op, other, recv) // x0 ∘ x1
	return nil
}

func nbReduceScatter(c *coll.Comm, send, recv []byte, counts []int, op *coll.Op) error {
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
		in = clone(sched(c), recv[:total])
	}
	if err := nbReduce(c, in, all, op, 0); err != nil {
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
	return nbScatterv(c, pieces, recv[:counts[r]], 0)
}

func nbReduceScatterBlock(c *coll.Comm, send, recv []byte, op *coll.Op) error {
	n := c.Size()
	bs := len(recv)
	if send == nil {
		bs = len(recv) / n
	}
	counts := make([]int, n)
	for i := range counts {
		counts[i] = bs
	}
	return nbReduceScatter(c, send, recv, counts, op)
}

func nbScanLinear(c *coll.Comm, send, recv []byte, op *coll.Op) error {
	n, r := c.Size(), c.Rank()
	s := sched(c)
	if send != nil {
		s.Copy(recv, send)
	}
	if r > 0 {
		prev := coll.Buffer(len(recv))
		s.Recv(c, prev, r-1)
		s.Reduce(op, prev, recv)
	}
	if r < n-1 {
		s.Next()
		s.Send(c, recv, r+1)
	}
	return nil
}

// nbShift adds a step of recursive doubling at distance d: out to rank
// r+d, in from rank r-d, where they exist; it reports whether it
// receives.
func nbShift(c *coll.Comm, s *coll.Schedule, out, in []byte, d int) bool {
	n, r := c.Size(), c.Rank()
	s.Next()
	if r-d >= 0 {
		s.Recv(c, in, r-d)
	}
	if r+d < n {
		s.Send(c, out, r+d)
	}
	return r-d >= 0
}

func nbScanLog(c *coll.Comm, send, recv []byte, op *coll.Op) error {
	n := c.Size()
	s := sched(c)
	if send != nil {
		s.Copy(recv, send)
	}
	for d := 1; d < n; d *= 2 {
		out, in := coll.Buffer(len(recv)), coll.Buffer(len(recv))
		s.Copy(out, recv)
		if nbShift(c, s, out, in, d) {
			s.Reduce(op, in, recv)
		}
	}
	return nil
}

func nbExscanLinear(c *coll.Comm, send, recv []byte, op *coll.Op) error {
	n, r := c.Size(), c.Rank()
	s := sched(c)
	mine := send
	if mine == nil {
		mine = clone(s, recv)
	}
	if r == 0 {
		if n > 1 {
			s.Send(c, mine, 1)
		}
		return nil
	}
	s.Recv(c, recv, r-1)
	if r < n-1 {
		next := clone(s, mine)
		s.Reduce(op, recv, next)
		s.Next()
		s.Send(c, next, r+1)
	}
	return nil
}

func nbExscanLog(c *coll.Comm, send, recv []byte, op *coll.Op) error {
	n := c.Size()
	mine := send
	if mine == nil {
		mine = recv
	}
	s := sched(c)
	partial := clone(s, mine)
	have := false
	for d := 1; d < n; d *= 2 {
		out, in := coll.Buffer(len(partial)), coll.Buffer(len(partial))
		s.Copy(out, partial)
		if nbShift(c, s, out, in, d) {
			if have {
				s.Reduce(op, in, recv)
			} else {
				s.Copy(recv, in)
				have = true
			}
			s.Reduce(op, in, partial)
		}
	}
	return nil
}
