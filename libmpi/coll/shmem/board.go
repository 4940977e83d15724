package shmem

import (
	"encoding/binary"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/internal/fence"
)

// The board (coll.Board): the nonblocking collectives of a communicator
// on one node.
//
// Every nonblocking collective that starts on the communicator takes the
// next board number (the same on every process: MPI has every process
// start them in the same order) and posts an entry in its process's
// board line of that number: the number, the digest of its call, the
// sleepers on the number, the size of its data and, for a collective
// shmem runs itself, the data; the call itself beside, for the error
// that says how two calls differ. An Ibarrier, an Iallreduce, Ireduce
// or Ibcast of up to bigBytes, an Igather or Iallgather whose block is
// up to bigBytes, an Iscatter or Ialltoall whose blocks are up to
// wideBytes together, are their entries: once every process has posted
// its entry, whoever looks compares the digests and takes its part of
// the others' data (for an Iallreduce, combining the inputs in the
// grouping lam_basic would use, planFor), with no message and no
// schedule. Data of up to boardBytes lie in the entry's line; larger
// data in the process's outboard, in as many of its slots as they take,
// the next free ones in turn (the entry's line says which: outSlots); a
// start writes there once every process has read the last number whose
// data lie there.
// Others run as schedules of lam_basic's messages, and their entries
// only guard them: a process whose call differs ends every process's
// collective with the error, where the others would wait for messages
// its call never sends.
//
// The entries are read in their numbers' order, by whoever moves the
// board on (a test or wait of one of its collectives, or a start): a
// number is read once every process posted it, or once this process
// completed it early (an Ibcast's or Iscatter's process that took the
// root's data, a process that only gives: it needs nobody else's
// entry); a process's done line says up to which number it read. An
// entry line is written again boardSlots numbers later, once every
// process has read the number that last used it (claim); a start that
// finds it not yet read moves its own board on and waits for the
// others'.
const (
	boardSlots  = 256
	boardDigest = 8  // the call's digest
	boardSleep  = 16 // the sleepers on the number
	boardSize   = 20 // uint32: the data's bytes + 1; 0 for a collective that runs as a schedule
	boardData   = 24
	boardBytes  = line - boardData // the most data an entry holds

	boardCalls  = boardSlots * line                                        // a process's calls, after its entries
	boardDone   = boardCalls + (boardSlots*coll.CallSize+line-1)/line*line // its done line
	boardStride = boardDone + line                                         // one process's board

	// The outboard: the data of entries larger than boardBytes. Up to
	// 64 KiB a collective on the board takes a few microseconds where
	// its schedule's messages take tens or hundreds on a busy node (4
	// processes on 2 processors, 4 KiB Iallreduce: 119 µs as a
	// schedule, 17 on the board); bigSlots of them may be outstanding
	// before a start waits for the others to read.
	bigSlots = 8
	bigBytes = 65536
	// An Iscatter's or Ialltoall's entry carries every block, in up
	// to every slot of the outboard.
	wideBytes = bigSlots * bigBytes
)

// boardAt is where process i's board begins, after the pools.
func (g geometry) boardAt(i int) int { return g.poolAt(g.n) + i*boardStride }

// bigAt is where process i's outboard begins, after the boards.
func (g geometry) bigAt(i int) int { return g.boardAt(g.n) + i*bigSlots*bigBytes }

// board is this process's side of a communicator's board.
type board struct {
	a    *area
	mu   sync.Mutex
	next uint64 // the last number posted (under mu)
	// staged is a number posted whose flag BoardPublish writes, and
	// stagedGives whether it is a collective this process only gives to
	// (gives): both written and read by the goroutine that starts it,
	// under the communicator's lock then right after it (a plain
	// handshake: an atomic exchange there would be a locked instruction
	// on the way of every start).
	staged      uint64
	stagedGives bool
	// The last number whose data went to each outboard slot, and the
	// slot the next takes first (under mu): a start may write to a
	// slot once every process has read its last (outSlots).
	used   [bigSlots]uint64
	cursor int
	read   atomic.Uint64 // every number up to it was read (written under mu)
	// settled: no number below it and past read may still complete
	// early (completed already, or not an Ibcast's or Iscatter's that
	// may); early looks from there (under mu).
	settled uint64
	pend    [boardSlots]pending
	seen    []uint64 // process → its done, as last seen (claim; under mu)
	// calls: the digest of the call in each of this process's call
	// slots, which a post writes only when its call's differs (a
	// program starts the same collective again and again); under mu.
	calls [boardSlots]struct {
		digest uint64
		ok     bool
	}
	err error // a process died: every collective of the board fails (under mu)

	inputs [][]byte // a reduction's inputs, one per process (under mu)
	regs   [][]byte // its scratch registers (under mu)

	// closed is set when the area is unmapped; readers counts the
	// guards looking at the area meanwhile (close waits for them).
	closed  atomic.Bool
	readers atomic.Int32
}

// pending is a number posted and not yet read.
type pending struct {
	c      *coll.Comm // the communicator (or view) it started on
	sig    coll.Sig
	digest uint64
	quick  *coll.Schedule // shmem runs it: completed when read
	recv   []byte         // an Iallreduce's or Ireduce's result, an Ibcast's buffer
	op     *coll.Op
	size   int
	root   int
	early  bool   // completed before every process posted (early)
	alone  bool   // it may complete before every process posted (coll.Comm.Alone)
	g      *guard // it runs as a schedule: its guard
}

func newBoard(a *area) *board {
	return &board{a: a, seen: make([]uint64, a.n), inputs: make([][]byte, a.n)}
}

// entry is where process i's entry of number s lies.
func (b *board) entry(i int, s uint64) int { return b.a.boardAt(i) + int(s%boardSlots)*line }

// posted is process i's flag of number s.
func (b *board) posted(i int, s uint64) flag {
	off := b.entry(i, s)
	return b.a.flagAt(off, off+boardSleep)
}

// callOf is process i's call of number s.
func (b *board) callOf(i int, s uint64) []byte {
	off := b.a.boardAt(i) + boardCalls + int(s%boardSlots)*coll.CallSize
	return b.a.mem[off : off+coll.CallSize : off+coll.CallSize]
}

// data is process i's data of number s, size bytes: in its entry line,
// or, when larger, in its outboard from the slot the line names.
func (b *board) data(i int, s uint64, size int) []byte {
	off := b.entry(i, s) + boardData
	if size > boardBytes {
		at := int(binary.LittleEndian.Uint32(b.a.mem[off:]))
		off = b.a.bigAt(i)
		if at >= 0 && at <= bigSlots-slotsFor(size) { // as outSlots wrote it
			off += at * bigBytes
		}
	}
	return b.a.mem[off : off+size : off+size]
}

// slotsFor is the outboard slots that size bytes of data take.
func slotsFor(size int) int { return (size + bigBytes - 1) / bigBytes }

// done is process i's done flag: the last number it read.
func (b *board) done(i int) flag {
	off := b.a.boardAt(i) + boardDone
	return b.a.flagAt(off, off+boardSleep)
}

// quickSize is the bytes of data each process's entry of k carries, and
// whether shmem runs it: a Barrier; an Allreduce, Reduce or Bcast of up
// to bigBytes; a Gather or Allgather whose block is up to bigBytes, a
// Scatter or Alltoall whose blocks together are up to wideBytes (every
// process's entry of a Scatter the size of the root's); with buffers of
// the lengths the call implies (the others are left to the schedule,
// which judges them).
func quickSize(c *coll.Comm, k *coll.BoardCall) (int, bool) {
	n := len(k.Recv)
	if k.Send != nil {
		n = len(k.Send)
	}
	root := c.Rank() == k.Root
	switch k.Sig.Kind {
	case coll.Barrier:
		return 0, true
	case coll.Allreduce:
		return n, k.Op != nil && n <= bigBytes && len(k.Recv) >= n
	case coll.Reduce:
		return n, k.Op != nil && n <= bigBytes && (!root || len(k.Recv) >= n)
	case coll.Bcast:
		return n, n <= bigBytes
	case coll.Gather:
		if !root {
			return len(k.Send), len(k.Send) <= bigBytes
		}
		n = len(k.Recv) / c.Size()
		return n, n <= bigBytes && blocks(k.Recv, k.Send, c.Size())
	case coll.Scatter:
		if !root {
			n = len(k.Recv) * c.Size()
			return n, n <= wideBytes
		}
		return len(k.Send), len(k.Send) <= wideBytes && blocks(k.Send, k.Recv, c.Size())
	case coll.Allgather:
		n = len(k.Recv) / c.Size()
		return n, n <= bigBytes && blocks(k.Recv, k.Send, c.Size())
	case coll.Alltoall:
		n = len(k.Recv)
		return n, n <= wideBytes && n%c.Size() == 0 && (k.Send == nil || len(k.Send) == n)
	}
	return 0, false
}

// blocks reports whether all is n blocks of one's length, or of a length
// of its own if one is nil (in place).
func blocks(all, one []byte, n int) bool {
	return len(all)%n == 0 && (one == nil || len(one)*n == len(all))
}

// BoardQuick is coll.Board's: shmem runs an Ibarrier, and a small
// Iallreduce, Ireduce, Ibcast, Igather, Iscatter, Iallgather or
// Ialltoall, itself.
func (a *area) BoardQuick(c *coll.Comm, k *coll.BoardCall) (bool, error) {
	size, ok := quickSize(c, k)
	if !ok {
		return false, nil
	}
	mine := posted(c, k, size)
	p := pending{c: c, sig: *k.Sig, quick: k.Sched, recv: k.Recv, op: k.Op, size: size, root: k.Root}
	if err := a.nb.post(&p, mine[:min(size, len(mine))], true); err != nil {
		return false, err // nothing posted: the start fails
	}
	return true, nil
}

// posted is the data this process's entry of k carries (size bytes
// each), having copied its own block of a Gather, Scatter, Allgather or
// Alltoall to its place (the others' come from their entries: finish):
// the root's data are an Ibcast's and an Iscatter's, and the others'
// entries say only their size; an Igather's root takes the others'.
func posted(c *coll.Comm, k *coll.BoardCall, size int) []byte {
	me, root := c.Rank(), c.Rank() == k.Root
	switch k.Sig.Kind {
	case coll.Bcast:
		if root {
			return k.Recv
		}
		return nil
	case coll.Gather:
		if !root {
			return k.Send
		}
		if k.Send != nil {
			copy(k.Recv[me*size:(me+1)*size], k.Send)
		}
		return nil
	case coll.Scatter:
		if !root {
			return nil
		}
		if b := size / c.Size(); k.Recv != nil {
			copy(k.Recv, k.Send[me*b:(me+1)*b])
		}
		return k.Send
	case coll.Allgather:
		block := k.Recv[me*size : (me+1)*size]
		if k.Send == nil {
			return block
		}
		copy(block, k.Send)
		return k.Send
	case coll.Alltoall:
		if k.Send == nil {
			return k.Recv // copied to the entry before its blocks are received
		}
		b := size / c.Size()
		copy(k.Recv[me*b:(me+1)*b], k.Send[me*b:(me+1)*b])
		return k.Send
	}
	if k.Send != nil {
		return k.Send
	}
	return k.Recv
}

// BoardPublish is coll.Board's: the number of the collective BoardQuick
// posted, written once the caller holds no lock. The other processes
// wait for that store; an atomic instruction of this process's (a lock's)
// right after it would wait until the line it is in came back from the
// caches of the processes polling it, which the store alone does not:
// it drains while this process goes on to wait for theirs.
func (a *area) BoardPublish() {
	b := a.nb
	s := b.staged
	b.staged = 0
	if s == 0 {
		return
	}
	a.publish(b.posted(a.me, s), s)
	// Ask now for the line of the next number, as the lane does: taking
	// it back from the readers' caches overlaps the wait.
	fence.Claim(unsafe.Pointer(&a.mem[b.entry(a.me, s+1)]))
	// A process that only gives (an Ibcast's root, an Ireduce's others)
	// is done once its data are in its entry.
	if !b.stagedGives {
		return
	}
	b.mu.Lock()
	p := &b.pend[s%boardSlots]
	var q *coll.Schedule
	if b.read.Load() < s && p.quick != nil && !p.early && p.quick.Sealed() {
		p.early, q, p.quick = true, p.quick, nil // completed: the board forgets it
	}
	b.mu.Unlock()
	if q != nil {
		q.Complete(nil)
	}
}

// gives reports whether this process only gives data to collective p,
// and may complete it alone: it is an Ibcast's or Iscatter's root, an
// Ireduce's or Igather's other process.
func (b *board) gives(p *pending) bool {
	if !p.alone {
		return false
	}
	switch p.sig.Kind {
	case coll.Bcast, coll.Scatter:
		return b.a.me == p.root
	case coll.Reduce, coll.Gather:
		return b.a.me != p.root
	}
	return false
}

// fromRoot reports whether a process other than the root of a
// collective of kind k takes the root's data alone: an Ibcast's, an
// Iscatter's.
func fromRoot(k coll.Kind) bool { return k == coll.Bcast || k == coll.Scatter }

// early completes the Ibcasts and Iscatters of numbers past the first
// not yet read whose roots posted, those that may complete alone
// (coll.Comm.Alone): each process takes the root's data once the root's
// call agrees with its own (as lam_basic's receivers compare the call
// sent with the data), without waiting for the others. b.mu is held.
func (b *board) early() {
	from := max(b.read.Load()+1, b.settled)
	for s := from; s <= b.next; s++ {
		p := &b.pend[s%boardSlots]
		if p.quick == nil || p.early || !p.alone || !fromRoot(p.sig.Kind) {
			if s == from {
				from++ // never early again: the next look starts past it
			}
			continue
		}
		if !p.quick.Sealed() || b.posted(p.root, s).v.Load() < s {
			continue
		}
		if s == from {
			from++
		}
		var err error
		if b.a.u64(b.entry(p.root, s)+boardDigest).Load() != p.digest {
			err = b.judge(p, p.root, s)
		} else {
			b.take(s, p)
		}
		q := p.quick
		p.early, p.quick = true, nil // completed: the board forgets it
		q.Complete(err)
	}
	b.settled = from
}

// take copies this process's part of the root's data of number s, an
// Ibcast's or Iscatter's (not the root's), to its buffer.
func (b *board) take(s uint64, p *pending) {
	from := b.data(p.root, s, p.size)
	if p.sig.Kind == coll.Scatter {
		n := p.size / b.a.n
		from = from[b.a.me*n : (b.a.me+1)*n]
	}
	copy(p.recv, from)
}

// BoardPost is coll.Board's: the entry of a collective that runs as a
// schedule, and the guard that ends it if another process's call
// differs.
func (a *area) BoardPost(c *coll.Comm, k *coll.BoardCall) (func() error, error) {
	g := &guard{b: a.nb}
	p := pending{c: c, sig: *k.Sig, g: g}
	if err := a.nb.post(&p, nil, false); err != nil {
		return nil, err
	}
	return g.check, nil
}

// post gives p the next number, waits until its entry line may be
// written (claim), and posts p's entry: its digest, call and data (quick:
// shmem runs it).
func (b *board) post(p *pending, data []byte, quick bool) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return b.err
	}
	s := b.next + 1
	var need uint64 // the number whose lines (and outboard) s's reuse
	if s > boardSlots {
		need = s - boardSlots
	}
	at := -1 // the first outboard slot of its data (an entry without data takes none)
	if quick && p.size > boardBytes && len(data) > 0 {
		var last uint64
		at, last = b.outSlots(p.size)
		need = max(need, last)
	}
	if err := b.claim(need); err != nil {
		return err
	}
	b.next = s
	a := b.a
	if at >= 0 {
		k := slotsFor(p.size)
		for j := at; j < at+k; j++ {
			b.used[j] = s
		}
		b.cursor = (at + k) % bigSlots
		binary.LittleEndian.PutUint32(a.mem[b.entry(a.me, s)+boardData:], uint32(at))
	}
	p.digest = p.c.CallDigest(&p.sig)
	if p.g != nil {
		p.g.s, p.g.c, p.g.sig, p.g.digest = s, p.c, p.sig, p.digest
	}
	p.alone = p.quick != nil && p.c.Alone(p.sig)
	b.pend[s%boardSlots] = *p
	if p.quick != nil {
		root := -1
		if p.alone && fromRoot(p.sig.Kind) && a.me != p.root {
			root = p.root // it waits for the root's entry alone (early)
		}
		p.quick.SetQuick(b, s, root)
	}
	off := b.entry(a.me, s)
	fence.Put(a.relaxed, a.u64(off+boardDigest), p.digest)
	n := uint32(0)
	if quick {
		n = uint32(p.size) + 1
	}
	if len(data) > 0 {
		to := b.data(a.me, s, p.size)
		if k := p.sig.Kind; k == coll.Scatter || k == coll.Alltoall {
			// Its own block is nobody else's to read: the rest only.
			m := p.size / a.n
			copy(to[:a.me*m], data[:a.me*m])
			copy(to[(a.me+1)*m:], data[(a.me+1)*m:])
		} else {
			copy(to, data)
		}
	}
	binary.LittleEndian.PutUint32(a.mem[off+boardSize:], n)
	if k := &b.calls[s%boardSlots]; !k.ok || k.digest != p.digest {
		p.c.PutCallOf(&p.sig, b.callOf(a.me, s))
		k.digest, k.ok = p.digest, true
	}
	if quick {
		b.staged = s // BoardPublish writes the number
		b.stagedGives = b.gives(p)
	} else {
		a.publish(b.posted(a.me, s), s)
	}
	return nil
}

// outSlots is where the next entry's size bytes of data go in this
// process's outboard: the first of the slots they take, the next in turn
// (from the first slot if they do not fit before the end), and the
// number every process must have read before they are written there,
// the last whose data lie there (0: none). b.mu is held.
func (b *board) outSlots(size int) (at int, last uint64) {
	at, k := b.cursor, slotsFor(size)
	if at+k > bigSlots {
		at = 0
	}
	return at, slices.Max(b.used[at : at+k])
}

// claim waits until every process has read number want (0: none), which
// last used the lines a new number's entry writes, moving this process's
// board on meanwhile (the others may wait for it to read too). b.mu is
// held; it is released while waiting.
func (b *board) claim(want uint64) error {
	if want == 0 {
		return nil
	}
	need := want
	var lastCheck time.Time
	for {
		b.progress()
		if b.err != nil {
			return b.err
		}
		lag := -1
		for q := range b.a.n {
			switch {
			case q == b.a.me:
				if b.read.Load() < need {
					lag = q
				}
			case b.seen[q] < need:
				if b.seen[q] = b.done(q).v.Load(); b.seen[q] < need {
					lag = q
				}
			}
			if lag >= 0 {
				break
			}
		}
		if lag < 0 {
			return nil
		}
		// Wait a while for what it lacks (another process's post, or
		// its reading), then look again.
		f, who := b.done(lag), lag
		if lag != b.a.me {
			// It may be asleep waiting for this process's next entry
			// (an Ibcast's or Iscatter's other process, which waits
			// for its root's alone) with numbers posted that it has
			// not read: woken, it reads them (Await).
			b.posted(b.a.me, b.next+1).wake()
		}
		if lag == b.a.me {
			r := b.read.Load() + 1
			who = b.missing(r)
			if who < 0 {
				continue
			}
			f, need = b.posted(who, r), r
		}
		b.mu.Unlock()
		err := b.a.awaitLong(f, need, who, &lastCheck, time.Millisecond)
		b.mu.Lock()
		if err != nil {
			b.fail(err)
			return err
		}
		need = want
	}
}

// missing is the first process whose entry of number s is not posted, or
// -1.
func (b *board) missing(s uint64) int {
	for q := range b.a.n {
		if b.posted(q, s).v.Load() < s {
			return q
		}
	}
	return -1
}

// progress reads the numbers posted by every process, in order: it
// compares their calls, completes the collectives shmem runs and settles
// the guards. b.mu is held.
func (b *board) progress() {
	r := b.read.Load()
	start := r
	if r < b.next {
		b.early()
	}
	for r < b.next {
		s := r + 1
		p := &b.pend[s%boardSlots]
		// A number this process completed early is read at once: it
		// took what it needed from the entries it looked at, and the
		// others' entries, which it never looks at, are theirs to write
		// again once they read the number (a process reads only what
		// it posted).
		if !p.early && (b.missing(s) >= 0 || (p.quick != nil && !p.quick.Sealed())) {
			break
		}
		b.settle(s, p)
		*p = pending{}
		r = s
		b.read.Store(r)
	}
	if r != start {
		b.a.publish(b.done(b.a.me), r)
	}
}

// settle reads number s, which every process posted, or which this
// process completed early.
func (b *board) settle(s uint64, p *pending) {
	if p.early {
		return // completed already; a mismatch it did not see stays unseen, as under lam_basic
	}
	var err error
	var quick uint32
	for q := range b.a.n {
		off := b.entry(q, s)
		sz := binary.LittleEndian.Uint32(b.a.mem[off+boardSize:])
		if q == 0 {
			quick = sz
		}
		if b.a.u64(off+boardDigest).Load() != p.digest {
			err = b.judge(p, q, s)
			break
		}
		if sz != quick {
			err = &coll.Error{Class: coll.ErrIntern, Msg: p.c.T.Name() + ": " + p.sig.Kind.String() + ": the processes ran the same call in different ways"}
			break
		}
	}
	if p.g != nil {
		p.g.settle(err)
		return
	}
	if err == nil && p.size > 0 {
		b.finish(s, p)
	}
	p.quick.Complete(err)
}

// finish moves the data of number s, which shmem runs, once every
// process posted it and the calls agree: an Ibcast's or Iscatter's
// process copies the root's (take), an Igather's root and an
// Iallgather's or Ialltoall's process the others' blocks, an
// Iallreduce's process and an Ireduce's root combine every process's in
// the grouping lam_basic would use (planFor).
func (b *board) finish(s uint64, p *pending) {
	me, n := b.a.me, b.a.n
	data := func(q int) []byte { return b.data(q, s, p.size) }
	root := p.root
	switch p.sig.Kind {
	case coll.Bcast, coll.Scatter:
		if me != root {
			b.take(s, p)
		}
		return
	case coll.Gather, coll.Allgather:
		if p.sig.Kind == coll.Gather && me != root {
			return
		}
		for q := range n {
			if q != me {
				copy(p.recv[q*p.size:(q+1)*p.size], data(q))
			}
		}
		return
	case coll.Alltoall:
		k := p.size / n
		for q := range n {
			if q != me {
				copy(p.recv[q*k:(q+1)*k], data(q)[me*k:(me+1)*k])
			}
		}
		return
	case coll.Allreduce:
		root = 0
	case coll.Reduce:
		if me != root {
			return
		}
	default:
		return
	}
	for q := range n {
		b.inputs[q] = data(q)
	}
	e := evaluator{plan: planFor(p.c, p.op, p.size, root), x: b.inputs, regs: &b.regs}
	e.run(p.recv[:p.size])
	clear(b.inputs)
}

// judge is the error of process q's call of number s, which differs
// from p's.
func (b *board) judge(p *pending, q int, s uint64) error {
	var call [coll.CallSize]byte
	copy(call[:], b.callOf(q, s))
	return judgeCall(p.c, &p.sig, call[:])
}

// judgeCall is the error of another process's call, whose digest
// differs from sig's on c.
func judgeCall(c *coll.Comm, sig *coll.Sig, call []byte) error {
	if err := c.JudgeCallOf(sig, call); err != nil {
		return err
	}
	return &coll.Error{Class: coll.ErrOther, Msg: c.T.Name() + ": " + sig.Kind.String() + ": another process started another collective"}
}

// fail ends every collective under way on the board with err (a process
// died), and every later one. b.mu is held.
func (b *board) fail(err error) {
	b.err = err
	for s := b.read.Load() + 1; s <= b.next; s++ {
		p := &b.pend[s%boardSlots]
		if p.g != nil {
			p.g.settle(err)
		} else if p.quick != nil && !p.early {
			p.quick.Complete(err)
		}
		*p = pending{}
	}
	b.read.Store(b.next)
}

// close ends the collectives under way (the communicator is freed) and
// waits until no guard looks at the area.
func (b *board) close() {
	b.closed.Store(true)
	b.mu.Lock()
	if b.err == nil {
		b.fail(&coll.Error{Class: coll.ErrComm, Msg: b.a.name + ": the communicator was freed with nonblocking collectives under way"})
	}
	b.mu.Unlock()
	for b.readers.Load() > 0 {
		runtime.Gosched()
	}
}

// The board moves the collectives shmem runs on (coll.Quick).

// Ready: every process posted the first number not yet read (for an
// Ibcast's process, its root posted its number), or s is done.
func (b *board) Ready(s *coll.Schedule) bool {
	if s.Done() || b.closed.Load() {
		return true
	}
	if k, root := s.QuickNumber(); root >= 0 {
		return b.posted(root, k).v.Load() >= k
	}
	return b.missing(b.read.Load()+1) < 0
}

// Poll moves the board on, if no other goroutine is.
func (b *board) Poll(*coll.Schedule) {
	if b.mu.TryLock() {
		b.progress()
		b.mu.Unlock()
	}
}

// awakeFor is the longest a wait for an entry sleeps before it reads
// what was posted meanwhile: a start elsewhere may be waiting for that
// (claim), and wakes it; this bounds the wait where it does not know to.
const awakeFor = 10 * time.Millisecond

// Await moves the board on until s completes, waiting for the first
// entry not yet posted as the blocking collectives wait for a flag: it
// looks at the entries without the board's lock first, so that the
// lock's atomic instruction comes only once they are there (see
// BoardPublish).
func (b *board) Await(s *coll.Schedule) {
	var lastCheck time.Time
	k, root := s.QuickNumber()
	for !s.Done() {
		r := b.read.Load() + 1
		who := -1
		if root >= 0 {
			// An Ibcast's process waits for its root's entry alone.
			if b.posted(root, k).v.Load() < k {
				who, r = root, k
			}
		} else {
			who = b.missing(r)
		}
		if who >= 0 {
			if f := b.posted(who, r); !b.a.spin(f, r) {
				err := b.a.awaitLong(f, r, who, &lastCheck, awakeFor)
				if err != nil || f.v.Load() < r {
					// Woken (by a start that waits for this process to
					// read: claim) or awake again: it reads what was
					// posted meanwhile.
					b.mu.Lock()
					if err != nil {
						b.fail(err)
					} else {
						b.progress()
					}
					b.mu.Unlock()
				}
			}
			continue
		}
		b.mu.Lock()
		b.progress()
		moved := b.read.Load() >= r
		b.mu.Unlock()
		if !moved && !s.Done() {
			// Posted, but the collective whose number it is has not
			// sealed its start yet (another goroutine is starting it).
			runtime.Gosched()
		}
	}
}

// guard ends a schedule whose process's call differs from another's
// (coll.Schedule.Guard).
type guard struct {
	b      *board
	s      uint64
	c      *coll.Comm
	sig    coll.Sig
	digest uint64
	// verdict, once known: the error (nil: the calls agree).
	verdict atomic.Pointer[verdict]
}

type verdict struct{ err error }

func (g *guard) settle(err error) { g.verdict.Store(&verdict{err}) }

// check is the guard: the error, once one process's posted call differs.
// It reads the entries of the processes that posted its number (each
// read checked against the number again, since a line may be written
// again once its number was read everywhere: its verdict is known by
// then).
func (g *guard) check() error {
	if v := g.verdict.Load(); v != nil {
		return v.err
	}
	b := g.b
	b.readers.Add(1)
	defer b.readers.Add(-1)
	if b.closed.Load() {
		return nil // close settles the guard
	}
	for q := range b.a.n {
		f := b.posted(q, g.s)
		if f.v.Load() != g.s {
			continue
		}
		d := b.a.u64(b.entry(q, g.s) + boardDigest).Load()
		if d == g.digest {
			continue
		}
		var call [coll.CallSize]byte
		copy(call[:], b.callOf(q, g.s))
		if f.v.Load() != g.s {
			continue // written again meanwhile: the verdict is known
		}
		err := judgeCall(g.c, &g.sig, call[:])
		g.verdict.CompareAndSwap(nil, &verdict{err})
		return g.verdict.Load().err
	}
	return nil
}
