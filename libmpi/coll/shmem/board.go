package shmem

import (
	"encoding/binary"
	"errors"
	"math/bits"
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
// An Ibcast, Igather, Iscatter, Iallgather or Ialltoall (not in place)
// too large for the outboard lends its buffer instead, where the kernel
// lets the processes copy each other's memory (the probe, direct.go):
// the entry carries the buffer's address and that of the process's
// receive buffer, and each pair of a lender and a process that needs
// its data is copied once, straight from buffer to buffer (one copy, as
// the direct rounds), by whichever of the two comes to it first: the
// reader when it reads the number (process_vm_readv, pull), the lender
// when its board moves on once everyone posted (process_vm_writev,
// push); a claim bit per pair decides, and the pair is counted in the
// lender's entry (taken). A lender completes once every pair is done,
// a reader once its own are: nobody waits for another's progress, only
// for its start and for a copy under way (lending). An Iallreduce or
// Ireduce too large for the outboard lends its input and receive
// buffers the same way, and the processes reduce it slice by slice,
// whoever comes first taking the next slice (lentreduce.go).
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
	// A lent entry's (lent): the address of the buffer lent, the count
	// of the pairs done with it and its sleepers, and what the count
	// must reach for the lender to complete (set once its process read
	// the number, for Ready); the address of the process's receive
	// buffer, where lenders may copy for it, and twice the count of
	// those copies made (gotFailed set if one failed: a flag that
	// reaches 2·n once n copies are made, whatever failed) and its
	// sleepers; then the claims: bit r of lender q's claims is set by
	// whichever of q and r copies q's data for r (claimPair).
	boardAddr       = boardData
	boardTaken      = boardData + 8
	boardTakenSleep = boardData + 16
	boardWant       = boardData + 24
	boardRecvAddr   = boardData + 32
	boardGot        = boardData + 40
	boardGotSleep   = boardData + 48
	boardClaims     = boardData + 56
	gotFailed       = 1
	// lendMax is the most processes whose boards lend: one claim bit
	// each in the rest of the line.
	lendMax = (line - boardClaims) * 8

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
	// scratch is a lent reduction's: the slices of every input and the
	// result (under mu; lentreduce.go).
	scratch []byte

	// lending: the numbers read whose buffer this process lent and
	// others still copy from (under mu).
	lending []lendWait

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
	lent   bool   // its entries lend their buffers (lends)
	held   []byte // the buffer this process lent: kept alive until released
}

// lendWait is a number read whose buffer this process lent, until want
// pairs are done with its data: the collective (its pending, whose
// quick is its schedule and held the buffer) and its outcome so far.
type lendWait struct {
	s    uint64
	want uint64
	p    pending
	err  error
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
// whether shmem may run it: a Barrier; an Allreduce or Reduce; a Bcast,
// a Gather or an Allgather, a Scatter or an Alltoall (every process's
// entry of a Scatter the size of the root's); with buffers of the
// lengths the call implies (the others are left to the schedule, which
// judges them). big: the data do not fit the outboard (an Allreduce's,
// Reduce's or Bcast's above bigBytes, a Gather's or Allgather's block
// above bigBytes, a Scatter's or Alltoall's blocks together above
// wideBytes), and the entry may only lend its buffer (lends).
func quickSize(c *coll.Comm, k *coll.BoardCall) (size int, ok, big bool) {
	n := len(k.Recv)
	if k.Send != nil {
		n = len(k.Send)
	}
	root := c.Rank() == k.Root
	switch k.Sig.Kind {
	case coll.Barrier:
		return 0, true, false
	case coll.Allreduce:
		return n, k.Op != nil && len(k.Recv) >= n && n <= lentAllreduceMax, n > bigBytes
	case coll.Reduce:
		return n, k.Op != nil && (!root || len(k.Recv) >= n) && n <= lentReduceMax, n > bigBytes
	case coll.Bcast:
		return n, true, n > bigBytes
	case coll.Gather:
		if !root {
			return len(k.Send), true, len(k.Send) > bigBytes
		}
		n = len(k.Recv) / c.Size()
		return n, blocks(k.Recv, k.Send, c.Size()), n > bigBytes
	case coll.Scatter:
		if !root {
			n = len(k.Recv) * c.Size()
			return n, true, n > wideBytes
		}
		return len(k.Send), blocks(k.Send, k.Recv, c.Size()), len(k.Send) > wideBytes
	case coll.Allgather:
		n = len(k.Recv) / c.Size()
		return n, blocks(k.Recv, k.Send, c.Size()), n > bigBytes
	case coll.Alltoall:
		n = len(k.Recv)
		return n, n%c.Size() == 0 && (k.Send == nil || len(k.Send) == n), n > wideBytes
	}
	return 0, false, false
}

// Lending: no process waits for another's progress, only for its start: each
// pair of a lender and a process that needs its data (a reader) is
// copied by whichever of the two comes to it first, the reader when it
// reads the number (pull: a read from the lender's buffer), the lender
// when its board moves on once every process posted the number
// (release, push: a write into the reader's receive buffer, whose
// address the reader's entry carries), and a claim bit per pair in the
// lender's entry decides which. The other then waits only for a copy
// under way. Before the claims a lender waited for its readers to copy,
// and a program that waits for its nonblocking collectives on several
// communicators in orders that differ from process to process (MPI
// permits it; testprog icollmany) waited for ever, each process for
// another that waited elsewhere.

// lends reports whether the entries of k, too large for the outboard,
// lend their buffers: an Ibcast, Igather, Iscatter, Iallgather,
// Iallreduce, Ireduce, or an Ialltoall not in place (whose buffer is
// read by the others while its process writes what it receives there),
// where the probe permitted the processes to copy each other's memory;
// on two processes an Ialltoall only (the others' schedules were faster
// there: the rpi's single copy shares the work between the pair, where
// a lender idles while the other copies; lam_basic's Iallreduce of two
// is one exchange). Every process answers alike: the probe's answer is
// agreed, and MPI has every process of an Ialltoall in place or none.
func (a *area) lends(k *coll.BoardCall) bool {
	if a.direct != directPermitted || a.n > lendMax || a.n == 2 && k.Sig.Kind != coll.Alltoall {
		return false
	}
	switch k.Sig.Kind {
	case coll.Bcast, coll.Gather, coll.Scatter, coll.Allgather, coll.Allreduce, coll.Reduce:
		return true
	case coll.Alltoall:
		return k.Send != nil
	}
	return false
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
	size, ok, big := quickSize(c, k)
	if !ok || big && !a.lends(k) {
		return false, nil
	}
	mine := posted(c, k, size)
	p := pending{c: c, sig: *k.Sig, quick: k.Sched, recv: k.Recv, op: k.Op, size: size, root: k.Root, lent: big}
	if big {
		p.held = mine
	}
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
		// A root that lent its buffer completes once the others have
		// copied (release), never here.
		if p.quick == nil || p.early || !p.alone || !fromRoot(p.sig.Kind) || p.lent && b.a.me == p.root {
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
		switch {
		case b.a.u64(b.entry(p.root, s)+boardDigest).Load() != p.digest:
			err = b.judge(p, p.root, s)
		case p.lent && !b.lentLike(p.root, s, p):
			err = differ(p) // the root's entry holds its data, no address
		case p.lent:
			err = b.pull(s, p)
		default:
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

// reads reports whether this process copies from process q's buffer
// that q's entry of lent collective p lends.
func (b *board) reads(p *pending, q int) bool { return readsFrom(p, b.a.me, q) }

// readsFrom reports whether process r copies from process q's buffer in
// lent collective p, as r's call is p's.
func readsFrom(p *pending, r, q int) bool {
	if r == q {
		return false
	}
	switch p.sig.Kind {
	case coll.Bcast, coll.Scatter:
		return q == p.root
	case coll.Gather:
		return r == p.root
	case coll.Allgather, coll.Alltoall:
		return true
	}
	return false
}

// lentLike reports whether process q's entry of number s lends its
// buffer to a call the same as this process's lent collective p (the
// same digest and size): only such processes copy from each other's
// buffers, and count themselves in each other's entries.
func (b *board) lentLike(q int, s uint64, p *pending) bool {
	off := b.entry(q, s)
	return b.a.u64(off+boardDigest).Load() == p.digest &&
		binary.LittleEndian.Uint32(b.a.mem[off+boardSize:]) == uint32(p.size)+1
}

// lentTo is how many processes copy from the buffer this process's
// entry of lent collective s (p) lends: those whose calls are the same
// (a process whose call differs neither copies nor counts itself).
func (b *board) lentTo(s uint64, p *pending) uint64 {
	var want uint64
	for q := range b.a.n {
		if readsFrom(p, q, b.a.me) && b.lentLike(q, s, p) {
			want++
		}
	}
	return want
}

// taken is the count, in process i's entry of number s, of the processes
// that have done with the buffer it lends.
func (b *board) taken(i int, s uint64) flag {
	off := b.entry(i, s)
	return b.a.flagAt(off+boardTaken, off+boardTakenSleep)
}

// pull copies this process's part of lent collective s (p), which every
// process it copies from posted, straight from their buffers into its
// own, the next process's first, and counts itself in each one's entry:
// each pair whose claim it wins (claimPair); the lenders that won the
// others are copying into its buffer, and it waits for them (got). A
// copy the kernel refuses is the collective's error; the others are
// made and counted all the same.
func (b *board) pull(s uint64, p *pending) error {
	me, n := b.a.me, b.a.n
	var first error
	lost := uint64(0)
	for i := 1; i < n; i++ {
		q := (me + i) % n
		if !b.reads(p, q) {
			continue
		}
		if !b.claimPair(q, me, s) {
			lost++
			continue
		}
		from, to, m := pairPart(p, q, me, n)
		addr := b.a.u64(b.entry(q, s)+boardAddr).Load() + uint64(from)
		if err := b.a.copyWith(q, p.recv[to:to+m], addr, false); err != nil && first == nil {
			first = err
		}
		b.took(q, s)
	}
	if err := b.awaitPushes(s, lost); err != nil && first == nil {
		first = err
	}
	return first
}

// untake counts this process in the entries of lent collective s (p)
// whose buffers it would have copied from, without copying (the
// collective failed): those whose calls are the same as its own, which
// wait for it (lentTo), unless their lender claimed the pair; it waits
// for those lenders' copies into its buffer to end.
func (b *board) untake(s uint64, p *pending) {
	b.awaitPushes(s, b.forgo(s, p))
}

// forgo counts this process done with the buffers lent to collective s
// (p) by the processes it would have copied from whose calls are the
// same as its own (lentTo) and that posted the number (the others'
// lines hold an older one), claiming each pair without copying; it
// returns how many pairs their lenders claimed first: copies into this
// process's buffer under way, which the caller waits for.
func (b *board) forgo(s uint64, p *pending) (lost uint64) {
	for q := range b.a.n {
		if b.reads(p, q) && b.posted(q, s).v.Load() >= s && b.lentLike(q, s, p) {
			if b.claimPair(q, b.a.me, s) {
				b.took(q, s)
			} else {
				lost++
			}
		}
	}
	return lost
}

// pairPart is what lent collective p copies from lender q to reader r
// of its n processes: m bytes from offset from of q's lent buffer to
// offset to of r's receive buffer.
func pairPart(p *pending, q, r, n int) (from, to, m int) {
	switch p.sig.Kind {
	case coll.Scatter:
		m = p.size / n
		return r * m, 0, m
	case coll.Gather, coll.Allgather:
		return 0, q * p.size, p.size
	case coll.Alltoall:
		m = p.size / n
		return r * m, q * m, m
	}
	return 0, 0, p.size // a Bcast
}

// claimPair claims the copy of lender q's data for reader r in lent
// collective s: it reports whether the caller (q or r) is the one to
// make it. Only a claimant copies, right after claiming, so the other
// waits at most for one copy under way.
func (b *board) claimPair(q, r int, s uint64) bool {
	w := b.a.u64(b.entry(q, s) + boardClaims + r/64*8)
	bit := uint64(1) << (r % 64)
	return w.Load()&bit == 0 && w.Or(bit)&bit == 0
}

// got is twice the count, in process r's entry of number s, of the
// copies lenders made into its receive buffer (gotFailed set if one
// failed).
func (b *board) got(r int, s uint64) flag {
	off := b.entry(r, s)
	return b.a.flagAt(off+boardGot, off+boardGotSleep)
}

// awaitPushes waits until the lenders that claimed lost pairs of lent
// collective s from this process have copied into its buffer.
func (b *board) awaitPushes(s, lost uint64) error {
	if lost == 0 {
		return nil
	}
	return b.awaitCopies(b.got(b.a.me, s), lost, errPushFailed)
}

// awaitCopies waits until count flag f (twice the copies made, gotFailed
// set if one failed) says n copies are made: copies under way, each
// made right after its claim, so the wait is short unless a process
// died (the liveness check ends it). A failed one is failed's error.
func (b *board) awaitCopies(f flag, n uint64, failed error) error {
	var lastCheck time.Time
	for !b.a.spin(f, 2*n) {
		if err := b.a.awaitLong(f, 2*n, -1, &lastCheck, awakeFor); err != nil {
			return err
		}
	}
	if f.v.Load()&gotFailed != 0 {
		return &coll.Error{Class: coll.ErrOther, Msg: b.a.name + ": shmem's direct copy: " + failed.Error(), Err: failed}
	}
	return nil
}

// errPushFailed is the error of a process that a lender's copy into its
// buffer failed for.
var errPushFailed = errors.New("a lender's copy into this process's buffer failed")

// push copies, for each process that reads the buffer this process lent
// to collective w and whose pair it claims (claimPair), its part into
// that process's receive buffer, and counts the pair done. A copy that
// fails is the reader's error (a copy is the error of the process whose
// data did not come, whichever of the pair made it). b.mu is held.
func (b *board) push(w *lendWait) {
	p := &w.p
	me, n := b.a.me, b.a.n
	for i := 1; i < n; i++ {
		r := (me + i) % n
		if !readsFrom(p, r, me) {
			continue
		}
		if !b.lentLike(r, w.s, p) || !b.claimPair(me, r, w.s) {
			// A reader whose call differs, or a pair done or under
			// way (its reader may have moved on and written its line
			// again: then the claim, set, says so).
			continue
		}
		from, to, m := pairPart(p, me, r, n)
		addr := b.a.u64(b.entry(r, w.s)+boardRecvAddr).Load() + uint64(to)
		f := b.got(r, w.s)
		if b.a.copyWith(r, p.held[from:from+m], addr, true) != nil {
			f.v.Or(gotFailed) // the reader's error: its data did not come
		}
		f.v.Add(2)
		f.wake()
		b.took(me, w.s)
	}
}

// took counts this process in process q's entry of number s as having
// done with the buffer it lends.
func (b *board) took(q int, s uint64) {
	f := b.taken(q, s)
	f.v.Add(1)
	f.wake()
}

// release copies what it may of the collectives whose buffers this
// process lent (push) and completes those every pair is done with.
// b.mu is held.
func (b *board) release() {
	if len(b.lending) == 0 {
		return
	}
	kept := b.lending[:0]
	for _, w := range b.lending {
		b.push(&w)
		if b.taken(b.a.me, w.s).v.Load() < w.want {
			kept = append(kept, w)
			continue
		}
		w.p.quick.Complete(w.err)
	}
	clear(b.lending[len(kept):])
	b.lending = kept
}

// lendWant is what number s's count must reach for the schedule of
// collective s whose buffer this process lent to complete, and whether
// it is still waiting for that; b.mu is held.
func (b *board) lendWant(s uint64) (uint64, bool) {
	for _, w := range b.lending {
		if w.s == s {
			return w.want, true
		}
	}
	return 0, false
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
	if quick && !p.lent && p.size > boardBytes && len(data) > 0 {
		var last uint64
		at, last = b.outSlots(p.size)
		need = max(need, last)
	}
	if err := b.claim(need); err != nil {
		return err
	}
	// The number that last used the entry line was read by every
	// process: whoever copied from a buffer it lent has counted itself
	// in the line, which this entry is about to clear.
	b.release()
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
	if p.lent {
		var addr uint64
		if len(data) > 0 {
			addr = uint64(uintptr(unsafe.Pointer(unsafe.SliceData(data))))
		}
		a.u64(off + boardAddr).Store(addr)
		a.u64(off + boardTaken).Store(0)
		addr = 0
		if len(p.recv) > 0 {
			addr = uint64(uintptr(unsafe.Pointer(unsafe.SliceData(p.recv))))
		}
		a.u64(off + boardRecvAddr).Store(addr)
		a.u64(off + boardGot).Store(0)
		for w := boardClaims; w < line; w += 8 {
			a.u64(off + w).Store(0)
		}
	} else if len(data) > 0 {
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
		b.stagedGives = b.gives(p) && !p.lent
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
	b.release()
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
			err = differ(p)
			break
		}
	}
	if p.g != nil {
		p.g.settle(err)
		return
	}
	if p.lent && reduces(p.sig.Kind) {
		if err == nil {
			err = b.reduceSlices(s, p)
		}
		p.quick.Complete(err)
		return
	}
	if p.lent {
		if err == nil {
			err = b.pull(s, p)
		} else {
			b.untake(s, p)
		}
		if want := b.lentTo(s, p); want > 0 {
			// Others may still copy from its buffer: it completes
			// once they have all done (release).
			b.a.u64(b.entry(b.a.me, s) + boardWant).Store(want)
			b.lending = append(b.lending, lendWait{s: s, want: want, p: *p, err: err})
			return
		}
		p.quick.Complete(err)
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

// differ is the error of collective p, whose processes' calls agree but
// which they ran in different ways (one on the board, one as a
// schedule, as their buffers differ).
func differ(p *pending) error {
	return &coll.Error{Class: coll.ErrIntern, Msg: p.c.T.Name() + ": " + p.sig.Kind.String() + ": the processes ran the same call in different ways"}
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
			if p.lent {
				// The lenders' copies into its buffer under way end
				// first (for a second at most: a lender may be the
				// process that died).
				lost := b.forgo(s, p)
				f := b.got(b.a.me, s)
				for start := time.Now(); f.v.Load() < 2*lost && time.Since(start) < time.Second; {
					runtime.Gosched()
				}
			}
			p.quick.Complete(err)
		}
		*p = pending{}
	}
	b.read.Store(b.next)
	b.release() // those every process has done with end as they would have
	for _, w := range b.lending {
		w.p.quick.Complete(err)
	}
	clear(b.lending)
	b.lending = b.lending[:0]
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
// Ibcast's process, its root posted its number), every process that
// copies from the buffer s lent has done, or s is done.
func (b *board) Ready(s *coll.Schedule) bool {
	if s.Done() || b.closed.Load() {
		return true
	}
	k, root := s.QuickNumber()
	if root >= 0 {
		return b.posted(root, k).v.Load() >= k
	}
	r := b.read.Load()
	if k <= r {
		// Read, not complete: it waits for the pairs to be done with
		// the buffer it lent (release); a pair nobody claimed yet is
		// its to copy now.
		off := b.entry(b.a.me, k)
		want := b.a.u64(off + boardWant).Load()
		if b.taken(b.a.me, k).v.Load() >= want {
			return true
		}
		claimed := 0
		for w := boardClaims; w < line; w += 8 {
			claimed += bits.OnesCount64(b.a.u64(off + w).Load())
		}
		return uint64(claimed) < want
	}
	return b.missing(r+1) < 0
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
		if root < 0 && k <= b.read.Load() {
			b.awaitRelease(s, k, &lastCheck)
			continue
		}
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

// awaitRelease waits until every process has done with the buffer this
// process lent to collective k (read, its schedule s not yet complete),
// and completes it.
func (b *board) awaitRelease(s *coll.Schedule, k uint64, lastCheck *time.Time) {
	b.mu.Lock()
	b.release() // its own copies first: what is left is under way
	want, ok := b.lendWant(k)
	b.mu.Unlock()
	if ok {
		f := b.taken(b.a.me, k)
		if !b.a.spin(f, want) {
			if err := b.a.awaitLong(f, want, -1, lastCheck, awakeFor); err != nil {
				b.mu.Lock()
				b.fail(err)
				b.mu.Unlock()
				return
			}
		}
	}
	b.mu.Lock()
	b.progress()
	b.mu.Unlock()
	if !ok && !s.Done() {
		runtime.Gosched() // completing in another goroutine
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
