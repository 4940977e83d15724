package shmem

import (
	"unsafe"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/coll/basic"
	"github.com/lamgo/lam/libmpi/internal/cached"
	"github.com/lamgo/lam/libmpi/internal/fence"
)

// rounds is how many rounds of at most per bytes move size bytes (one,
// without data, for none: the round still synchronises).
func rounds(size, per int) int { return max(1, (size+per-1)/per) }

// viaBasic runs f with lam_basic's functions, which do not report their
// waits: the collective is shown as waiting (coll.Comm.Waiting) meanwhile.
func viaBasic(c *coll.Comm, f func(fns *coll.Actions) error) error {
	c.Waiting(true)
	err := f(basic.Functions(c))
	c.Waiting(false)
	return err
}

// span is round k's part [lo, hi) of size bytes cut in pieces of per.
func span(k, per, size int) (int, int) { return min(k*per, size), min((k+1)*per, size) }

// barrier: every process arrives at a synchronising round.
func barrier(c *coll.Comm) error {
	_, err := c.Data.(*area).sync()
	return err
}

// agree is the argument check's comparison of digests: each process
// writes its digest beside its flags, arrives at a synchronising round,
// and reads every other's.
func agree(c *coll.Comm, digest uint64) (bool, error) { return c.Data.(*area).agree(digest) }

// agree takes a data round as well, as a collective that carries the
// check does (carried), so that the processes number their rounds alike
// even when their calls differ.
func (a *area) agree(digest uint64) (bool, error) {
	s := a.next()
	same, err := a.arrive(digest)
	a.finish(s)
	return same, err
}

// arrive is a synchronising round that compares digests: it reports
// whether every process arrived with this one's.
func (a *area) arrive(digest uint64) (bool, error) {
	fence.Put(a.relaxed, a.digest(a.me, a.syncs+1), digest)
	k, err := a.sync()
	if err != nil {
		return false, err
	}
	same := true
	for q := range a.n {
		same = same && a.digest(q, k).Load() == digest
	}
	return same, nil
}

// carries is shmem's coll.Actions.Carries: a collective whose data move
// in one round carries the argument check (coll_base_check) in that
// round, which synchronises: every process writes its part and its
// digest, arrives, and once all have, compares the digests and reads
// (or, when they differ, returns without touching its buffers). One
// synchronising round instead of the check's and then the collective's.
func carries(c *coll.Comm, sig coll.Sig) bool {
	a, ok := c.Data.(*area)
	if !ok {
		return false
	}
	b := int(sig.Send)
	if sig.Err != nil && b <= 0 {
		// This process's own argument error left its size unknown (a
		// null datatype): as lam_basic does, take the path of a small
		// call, so that at coll_base_check=1 a collective that sends its
		// call returns the error at once (the others do not wait for
		// this process), and otherwise the process meets the others'
		// synchronising round with its error.
		return true
	}
	if b <= 0 {
		return false
	}
	if a.mayDirect(sig.Kind, b) {
		return false // a direct round checks first
	}
	// A Bcast, Gather or Scatter that sends its call (coll_base_check=1)
	// does so in a span as well (sentRound). Those lam_basic moves
	// (large, largeOne, largeCopy) carry the check its way.
	sent := !c.Params.CheckAll && sendsCall(c, sig)
	switch sig.Kind {
	case coll.Bcast, coll.Gather:
		return !a.largeOne(b) && (b <= a.chunk || sent && b <= a.spanBytes())
	case coll.Allgather:
		return !a.largeCopy(b) && (b <= a.chunk || sent && b <= a.spanBytes())
	case coll.Scatter, coll.Alltoall:
		return !a.large(b) && (b <= a.chunk/a.n || sent && b <= a.spanBytes()/a.n)
	case coll.Reduce, coll.Allreduce:
		return !a.largeReduce(b) && b <= min(smallReduce, a.chunk)
	}
	return false
}

// carried begins the round of a collective of one round: it reports
// whether the running collective carries the argument check (and its
// digest), and the round's number. A collective that carries the check
// but needs more than one round (its op's elements are larger than
// expected) checks first, as without the carry; ok is then false and so
// is proceed when the calls differ.
func (a *area) carried(c *coll.Comm, oneRound bool) (digest uint64, ok, proceed bool, err error) {
	digest, ok = c.Carry()
	a.lastOne, a.lastSent = ok && oneRound, false
	if !ok || oneRound {
		return digest, ok, true, nil
	}
	same, err := a.agree(digest)
	c.Carried(same)
	return 0, false, same && err == nil, err
}

// verdict ends the synchronising round of a carried check: it reports
// the verdict and whether to read the round's data.
func (a *area) verdict(c *coll.Comm, digest uint64) (bool, error) {
	same, err := a.arrive(digest)
	if err != nil {
		return false, err
	}
	c.Carried(same)
	return same, nil
}

// carriedRound is the one round of a collective that carries the
// argument check: a process that writes claims the round's block and
// write fills it; then the verdict's synchronising round; then, if every
// process's call was the same, read takes what it needs of round s.
func (a *area) carriedRound(c *coll.Comm, digest uint64, writes bool, write func(in []byte), read func(s uint64)) error {
	s := a.next()
	if writes {
		if err := a.claim(s); err != nil {
			return err
		}
		write(a.in(a.me, s))
	}
	same, err := a.verdict(c, digest)
	if same {
		read(s)
	}
	a.finish(s)
	return err
}

// syncedRound is carriedRound for a reduction whose inputs all fit in
// the synchronising line beside the digests (syncFits): each process
// leaves its input there (syncData) before it arrives, so that once the
// round is complete every input is in the line it fetched to see that,
// instead of one more line fetched from every other process's buffer.
// The processes that want the result combine them in p's grouping.
func (a *area) syncedRound(c *coll.Comm, digest uint64, p plan, mine, result []byte, wants bool) error {
	s := a.next()
	copy(a.syncData(a.me, a.syncs+1, len(mine)), mine)
	same, err := a.verdict(c, digest)
	if same && wants {
		for q := range a.n {
			a.inputs[q] = a.syncData(q, a.syncs, len(mine))
		}
		e := evaluator{plan: p, x: a.inputs, regs: &a.regs}
		e.run(result)
	}
	a.finish(s)
	return err
}

// sendsCall is shmem's coll.Actions.SendsCall: at coll_base_check=1 a
// Bcast, Gather or Scatter of one round (carries: one buffer, or one
// span) sends its call with its data. The processes that write (a
// Bcast's and a Scatter's root, a Gather's others) write their data and
// the digest of their call beside it (and the call, when the digest
// there differs) and return; the processes that read wait for those
// posts, compare the digests with their own, and read the data when they
// agree, or return the error that says how the calls differ
// (coll.Comm.JudgeCall, from the call beside the digest), their buffers
// untouched. No synchronising round: nobody waits for a process that only
// writes. The buffers' reuse is what makes a writer that returned at once
// safe: it writes the same buffer again (and its digest and call) only
// segs rounds later, once every process finished the round that last
// used it (claim).
func sendsCall(_ *coll.Comm, sig coll.Sig) bool {
	switch sig.Kind {
	case coll.Bcast, coll.Gather, coll.Scatter:
		return true
	}
	return false
}

// sentOwnError is shmem's coll.Actions.SentOwnError: a process whose own
// arguments were wrong at coll_base_check=1 still takes its round of a
// Bcast, Gather or Scatter, without data, so that every process numbers
// its rounds alike and later collectives read the right buffers. As a
// writer (a Bcast's or Scatter's root, a Gather's other processes; root
// 0 if its root is what was wrong) it posts its call, the error in it,
// so that its readers return an error that says so instead of waiting
// for ever; as a reader it finishes the round without reading.
func sentOwnError(c *coll.Comm, sig coll.Sig) {
	a := c.Data.(*area)
	a.lastOne, a.lastSent = false, false
	s := a.next()
	root := sig.Root
	if root < 0 || root >= a.n {
		root = 0
	}
	if writes := (sig.Kind == coll.Gather) != (a.me == root); writes && a.claimLane(s) == nil {
		a.postCall(c, s)
	}
	a.finish(s)
}

// postCall posts this process's round s in its lane line (claimed, the
// data written): the call, when the one kept in the line's slot is
// another (the call of a digest never changes, so a repeated call writes
// nothing), the digest, then the round's number, which a reader waits
// for.
func (a *area) postCall(c *coll.Comm, s uint64) {
	d := c.SentDigest()
	if slot := a.callDigest(a.me, s); slot.Load() != d || d == 0 {
		c.PutCall(a.call(a.me, s))
		fence.Put(a.relaxed, slot, d)
	}
	fence.Put(a.relaxed, a.laneDigest(a.me, s), d)
	a.publish(a.posting(a.me, s), s)
}

// judgeCall compares process q's call of round s (posted) with this
// process's: nil when they agree, else the error that says how they
// differ.
func (a *area) judgeCall(c *coll.Comm, q int, s uint64) error {
	if a.laneDigest(q, s).Load() == c.SentDigest() {
		return nil
	}
	return c.JudgeCall(a.call(q, s), true)
}

// inLane reports whether a call whose writer writes size bytes in its
// round (a Scatter's n pieces together, laid end to end) moves them in
// its lane line instead of its buffers. Every process of a call decides
// alike from the call; a reader reads the data only of a writer whose
// call agrees with its own, so of one that decided as it did.
func inLane(size int) bool { return size <= laneBytes }

// sentRound is the one round of a collective that sends its call with
// its data (sendsCall): a process that writes claims its lane line of
// the round and, unless the data fit the line (inLane(size)), the
// round's k buffers (bufsFor: one, or a span sized to the call); write
// fills them, it posts its call and the round in the lane line and
// returns; the others wait for the lane lines of the processes from
// (each that writes, in rank order) and read each one's data (read,
// given the lane line's data or the writer's buffers) whose call agrees
// with theirs. The first error is returned (a Gather's root reads the
// blocks whose calls agree).
//
// The lane line is the round's head's, the round number after the last
// round begun, whatever k: the same on every process, which a reader
// waits for and judges. So a reader whose call is of another size, and
// so of another k, still finds the writer's call of this collective
// there, and returns the error. Only a round of one buffer is reported
// to outside code (lastSent), which mirrors those alone.
func (a *area) sentRound(c *coll.Comm, k, size int, writes bool, from func(q int) bool, write func(in []byte), read func(q int, in []byte)) error {
	a.lastOne, a.lastSent = false, k == 1
	head := a.step + 1
	first, s := a.nextSpan(k)
	lane := inLane(size)
	if writes {
		if err := a.claimLane(head); err != nil {
			return err
		}
		if lane {
			write(a.laneData(a.me, head))
		} else {
			if err := a.claimSpan(first, k); err != nil {
				return err
			}
			write(a.inRound(a.me, first, k))
		}
		a.postCall(c, head)
		// The next round's lane line, asked for now: its reader fetched
		// it 256 rounds ago, and taking it back at the next store costs
		// a wait at the next locked instruction (the communicator's
		// lock). One line ahead measured best (2 processes bound, 8-byte
		// Bcast 0.24 → 0.14 µs, Gather 0.21 → 0.17, Scatter 0.26 → 0.14;
		// two ahead made Gather slower, more ahead less gain).
		fence.Claim(unsafe.Pointer(&a.mem[a.lane(a.me, head+1)]))
		a.finish(s)
		return nil
	}
	var firstErr error
	for q := range a.n {
		if q == a.me || !from(q) {
			continue
		}
		if err := a.await(a.posting(q, head), head, q); err != nil {
			return err
		}
		if err := a.judgeCall(c, q, head); err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if lane {
			read(q, a.laneData(q, head))
		} else {
			read(q, a.inRound(q, first, k))
		}
	}
	a.finish(s)
	return firstErr
}

// inRound and outRound are process i's input and output (a reduction's
// slices) of the round of k buffers that begins at first (nextSpan).
func (a *area) inRound(i int, first uint64, k int) []byte {
	return a.bufs(i, a.buf(first), k)
}

func (a *area) outRound(i int, first uint64, k int) []byte {
	return a.bufs(i, a.segs+a.buf(first), k)
}

// large reports whether a Gather, Scatter or Alltoall moving size bytes
// per process is lam_basic's (coll_base_shmem_large_size, 64 KiB by
// default). Through the area each copies every byte twice, in rounds of
// a buffer (Scatter's and Alltoall's cut in n pieces), each a wait for
// flags; over point-to-point, one rendezvous per message and, above the
// rpi's single-copy size (rpi_usysv_single_copy, 64 KiB), one copy
// straight between the processes' buffers. Where copies between the
// processors' caches are slow, as on this machine in session 22, that
// measured faster from 256 KiB (Scatter of 1 MiB blocks at 4 processes
// 467 → 329 µs, Alltoall of 256 KiB at 2 processes 63 → 32: docs/coll.md);
// where they were fast (session 16) the area won up to 1 MiB. Two
// processes that share their processors with others (crowdedPair) keep
// the area up to the copy size: there each step of a rendezvous waits for
// the peer to be scheduled, and the area measured faster (2×2 hosts, one
// processor each: a Bcast of 256 KiB 170 µs through the nodes' areas,
// 300 over point-to-point; Alltoall 1500–1850 against 2200–2400).
func (a *area) large(size int) bool {
	if a.crowdedPair() {
		return a.largeCopy(size)
	}
	return a.largeSize > 0 && size > a.largeSize
}

// largeCopy is large for Bcast, Allgather, Reduce and Allreduce, which
// copy less through the area than over point-to-point
// (coll_base_shmem_copy_size, 1 MiB by default: with buffers of 64 KiB
// the area measured faster up to there at 4 and 8 processes,
// docs/coll.md): at n processes a Bcast copies the message n times
// through the area (once in, n−1 out), 2(n−1) times through the rings
// and n−1 times straight between the buffers, one after another down
// lam_basic's tree; an Allgather n+1 blocks per process (its own into
// recv and into the area, the n−1 others out) against 2n−1 around
// lam_basic's ring; an Allreduce of s bytes about 2.25s per process at 4
// (in, a slice out, every slice back) against 3s for reduce-scatter and
// allgather through the rings.
func (a *area) largeCopy(size int) bool {
	return a.largeSize > 0 && size > max(a.largeSize, a.copySize)
}

// largeOne is largeCopy for a Bcast or a Gather, and large at two
// processes: there either is one message, which the rpi copies once
// straight into the receiver's buffer (in two halves at once) where the
// area copies it twice (2 processes, 1 MiB, session 22: Bcast 133 → 37
// µs, Gather 153 → 84). On more processes a Gather's root copies the
// blocks out of the area while the others copy theirs in, where over
// point-to-point it would wait for each copy in turn (Gather of 256 KiB
// at 8 processes 216 µs through the area, 446 over point-to-point).
func (a *area) largeOne(size int) bool {
	return a.n == 2 && a.large(size) || a.largeCopy(size)
}

// largeReduce reports whether a Reduce or Allreduce of size bytes per
// process is lam_basic's: at two processes above
// coll_base_shmem_reduce_size (64 KiB by default), where lam_basic's
// reduce-scatter and allgather is one exchange each way and measured
// faster than the area's rounds, each of which waits twice for the other
// (inputs posted, slices reduced); at more, above largeCopy's limit, as
// Bcast and Allgather (the area measured faster up to 1 MiB at 4 and 8
// processes on 2 processors: docs/coll.md). Never when
// coll_base_shmem_large_size is 0; never above largeCopy's limit.
func (a *area) largeReduce(size int) bool {
	if a.n == 2 && a.largeSize > 0 && size > a.reduceSz {
		return true
	}
	return a.largeCopy(size)
}

// finish ends a data round of this process.
func (a *area) finish(s uint64) { a.publish(a.done[a.me], s) }

// bcast: the root writes each round's piece, the others copy it out. A
// zero-byte Bcast or Gather still takes its round: smp's fan-out and fan-in
// on a node are those.
func bcast(c *coll.Comm, buf []byte, root int) error {
	a := c.Data.(*area)
	if a.useDirect(coll.Bcast, len(buf)) {
		return a.directBcast(buf, root)
	}
	if a.largeOne(len(buf)) {
		return viaBasic(c, func(f *coll.Actions) error { return f.Bcast(c, buf, root) })
	}
	if c.SendsCall() {
		return a.sentRound(c, a.bufsFor(len(buf)), len(buf), a.me == root, func(q int) bool { return q == root }, func(in []byte) { copy(in, buf) },
			func(_ int, in []byte) { copy(buf, in) })
	}
	digest, carry, proceed, err := a.carried(c, len(buf) <= a.chunk)
	if !proceed {
		return err
	}
	if carry {
		return a.carriedRound(c, digest, a.me == root, func(in []byte) { copy(in, buf) }, func(s uint64) {
			if a.me != root {
				copy(buf, a.in(root, s))
			}
		})
	}
	// A call that fits a span takes the buffers it needs, one round
	// (coll_base_check=0: as deep a run of calls as sentRound's); larger
	// ones rounds of a span.
	bufs := a.bufsFor(len(buf))
	per := bufs * a.chunk
	for k := range rounds(len(buf), per) {
		first, s := a.nextSpan(bufs)
		lo, hi := span(k, per, len(buf))
		if a.me == root {
			if hi > lo {
				if err := a.claimSpan(first, bufs); err != nil {
					return err
				}
				copy(a.inRound(a.me, first, bufs), buf[lo:hi])
			}
			a.publish(a.posted[a.me], s)
		} else {
			if err := a.await(a.posted[root], s, root); err != nil {
				return err
			}
			copy(buf[lo:hi], a.inRound(root, first, bufs))
		}
		a.finish(s)
	}
	return nil
}

// gather: each process writes its block's piece, the root copies them.
func gather(c *coll.Comm, send, recv []byte, root int) error {
	a := c.Data.(*area)
	m := len(send)
	if a.me == root {
		m = len(recv) / a.n
	}
	if a.useDirect(coll.Gather, m) {
		return a.directGather(send, recv, m, root)
	}
	if a.largeOne(m) {
		return viaBasic(c, func(f *coll.Actions) error { return f.Gather(c, send, recv, root) })
	}
	if c.SendsCall() {
		if a.me == root && send != nil {
			cached.Copy(recv[a.me*m:(a.me+1)*m], send)
		}
		return a.sentRound(c, a.bufsFor(m), m, a.me != root, func(q int) bool { return q != root }, func(in []byte) { copy(in, send) },
			func(q int, in []byte) { copy(recv[q*m:(q+1)*m], in) })
	}
	digest, carry, proceed, err := a.carried(c, m <= a.chunk)
	if !proceed {
		return err
	}
	if carry {
		return a.carriedRound(c, digest, a.me != root, func(in []byte) { copy(in, send) }, func(s uint64) {
			if a.me != root {
				return
			}
			for q := range a.n {
				if q != root {
					copy(recv[q*m:(q+1)*m], a.in(q, s))
				} else if send != nil {
					cached.Copy(recv[q*m:(q+1)*m], send)
				}
			}
		})
	}
	if a.me == root {
		if send != nil {
			cached.Copy(recv[a.me*m:(a.me+1)*m], send)
		}
	}
	bufs := a.bufsFor(m) // as bcast's
	per := bufs * a.chunk
	for k := range rounds(m, per) {
		first, s := a.nextSpan(bufs)
		lo, hi := span(k, per, m)
		if a.me != root {
			if hi > lo {
				if err := a.claimSpan(first, bufs); err != nil {
					return err
				}
				copy(a.inRound(a.me, first, bufs), send[lo:hi])
			}
			a.publish(a.posted[a.me], s)
		} else {
			for q := range a.n {
				if q == root {
					continue
				}
				if err := a.await(a.posted[q], s, q); err != nil {
					return err
				}
				copy(recv[q*m+lo:q*m+hi], a.inRound(q, first, bufs))
			}
		}
		a.finish(s)
	}
	return nil
}

// scatter: the root writes every process's piece of each round into its
// buffer, each process copies its own.
func scatter(c *coll.Comm, send, recv []byte, root int) error {
	a := c.Data.(*area)
	m := len(recv)
	if a.me == root {
		m = len(send) / a.n
	}
	if a.useDirect(coll.Scatter, m) {
		return a.directScatter(send, recv, m, root)
	}
	if a.large(m) {
		return viaBasic(c, func(f *coll.Actions) error { return f.Scatter(c, send, recv, root) })
	}
	per := a.chunk / a.n
	if c.SendsCall() {
		if a.me == root && recv != nil {
			cached.Copy(recv, send[a.me*m:(a.me+1)*m])
		}
		bufs := a.bufsFor(m * a.n)
		per = bufs * a.chunk / a.n // each process's part of the round
		if inLane(m * a.n) {
			per = m // the pieces end to end in the lane line
		}
		return a.sentRound(c, bufs, m*a.n, a.me == root, func(q int) bool { return q == root }, func(in []byte) {
			for q := range a.n {
				if q != root {
					copy(in[q*per:], send[q*m:(q+1)*m])
				}
			}
		}, func(_ int, in []byte) { copy(recv, in[a.me*per:a.me*per+m]) })
	}
	digest, carry, proceed, err := a.carried(c, m <= per)
	if !proceed {
		return err
	}
	if carry {
		return a.carriedRound(c, digest, a.me == root, func(in []byte) {
			for q := range a.n {
				if q != root {
					copy(in[q*per:], send[q*m:(q+1)*m])
				}
			}
		}, func(s uint64) {
			if a.me != root {
				copy(recv, a.in(root, s)[a.me*per:a.me*per+m])
			} else if recv != nil {
				cached.Copy(recv, send[a.me*m:(a.me+1)*m])
			}
		})
	}
	if a.me == root {
		if recv != nil {
			cached.Copy(recv, send[a.me*m:(a.me+1)*m])
		}
	}
	bufs := a.bufsFor(m * a.n)    // as bcast's, for the n pieces
	piece := bufs * a.chunk / a.n // each process's part of a round
	for k := range rounds(m, piece) {
		first, s := a.nextSpan(bufs)
		lo, hi := span(k, piece, m)
		if a.me == root {
			if hi > lo {
				if err := a.claimSpan(first, bufs); err != nil {
					return err
				}
				b := a.inRound(a.me, first, bufs)
				for q := range a.n {
					if q != root {
						copy(b[q*piece:], send[q*m+lo:q*m+hi])
					}
				}
			}
			a.publish(a.posted[a.me], s)
		} else {
			if err := a.await(a.posted[root], s, root); err != nil {
				return err
			}
			copy(recv[lo:hi], a.inRound(root, first, bufs)[a.me*piece:])
		}
		a.finish(s)
	}
	return nil
}

// allgather: each process writes its block's piece of each round, and
// copies every other's.
func allgather(c *coll.Comm, send, recv []byte) error {
	a := c.Data.(*area)
	m := len(recv) / a.n
	if a.useDirect(coll.Allgather, m) {
		own := send
		if own == nil {
			own = recv[a.me*m : (a.me+1)*m]
		}
		return a.directAll(own, recv, m, true)
	}
	if a.largeCopy(m) {
		return viaBasic(c, func(f *coll.Actions) error { return f.Allgather(c, send, recv) })
	}
	digest, carry, proceed, err := a.carried(c, m <= a.chunk)
	if !proceed {
		return err
	}
	if carry {
		if send == nil {
			send = recv[a.me*m : (a.me+1)*m]
		}
		return a.carriedRound(c, digest, true, func(in []byte) { copy(in, send) }, func(s uint64) {
			for q := range a.n {
				copy(recv[q*m:(q+1)*m], a.in(q, s))
			}
		})
	}
	if send == nil {
		send = recv[a.me*m : (a.me+1)*m]
	} else {
		cached.Copy(recv[a.me*m:(a.me+1)*m], send)
	}
	for k := range rounds(m, a.spanBytes()) {
		first, s := a.nextSpan(a.spanBufs())
		lo, hi := span(k, a.spanBytes(), m)
		if hi > lo {
			if err := a.claimSpan(first, a.spanBufs()); err != nil {
				return err
			}
			copy(a.inRound(a.me, first, a.spanBufs()), send[lo:hi])
		}
		a.publish(a.posted[a.me], s)
		for i := 1; i < a.n; i++ {
			q := (a.me + i) % a.n
			if err := a.await(a.posted[q], s, q); err != nil {
				return err
			}
			copy(recv[q*m+lo:q*m+hi], a.inRound(q, first, a.spanBufs()))
		}
		a.finish(s)
	}
	return nil
}

// alltoall: each process writes, each round, a piece of its block for
// every other process, and copies the piece each other wrote for it. In
// place (send nil), each round's pieces leave recv before others' land
// there.
func alltoall(c *coll.Comm, send, recv []byte) error {
	a := c.Data.(*area)
	m := len(recv) / a.n
	if send != nil { // in place, peers would read blocks this process overwrites
		if a.useDirect(coll.Alltoall, m) {
			return a.directAll(send, recv, m, false)
		}
	}
	if a.large(m) {
		return viaBasic(c, func(f *coll.Actions) error { return f.Alltoall(c, send, recv) })
	}
	if send == nil {
		send = recv
	}
	per := a.chunk / a.n
	digest, carry, proceed, err := a.carried(c, m <= per)
	if !proceed {
		return err
	}
	if carry {
		return a.carriedRound(c, digest, true, func(in []byte) {
			for q := range a.n {
				copy(in[q*per:], send[q*m:(q+1)*m])
			}
		}, func(s uint64) {
			for q := range a.n {
				copy(recv[q*m:(q+1)*m], a.in(q, s)[a.me*per:a.me*per+m])
			}
		})
	}
	cached.Copy(recv[a.me*m:(a.me+1)*m], send[a.me*m:(a.me+1)*m])
	piece := a.spanBytes() / a.n // each process's part of a round's span
	for k := range rounds(m, piece) {
		first, s := a.nextSpan(a.spanBufs())
		lo, hi := span(k, piece, m)
		if hi > lo {
			if err := a.claimSpan(first, a.spanBufs()); err != nil {
				return err
			}
			b := a.inRound(a.me, first, a.spanBufs())
			for q := range a.n {
				if q != a.me {
					copy(b[q*piece:], send[q*m+lo:q*m+hi])
				}
			}
		}
		a.publish(a.posted[a.me], s)
		for i := 1; i < a.n; i++ {
			q := (a.me + i) % a.n
			if err := a.await(a.posted[q], s, q); err != nil {
				return err
			}
			copy(recv[q*m+lo:q*m+hi], a.inRound(q, first, a.spanBufs())[a.me*piece:])
		}
		a.finish(s)
	}
	return nil
}

// smallReduce is the size of a reduction round up to which every process
// that needs the result combines all of it itself (one exchange of flags)
// rather than one slice (two).
const smallReduce = 2048

// reduction is Reduce (all false) and Allreduce (all true) of ops whose
// elements fit a buffer (larger ones are lam_basic's): each round,
// every process posts its piece of input; then either the processes that
// need the result combine the whole piece (small rounds), or each
// combines one slice of it into its output buffer and the processes that
// need the result copy every slice.
func reduction(c *coll.Comm, mine, result []byte, op *coll.Op, root int, all bool) error {
	a := c.Data.(*area)
	size := len(mine)
	p := planFor(c, op, size, root)
	a.lastGroup = p.g
	per := a.chunk / op.Size * op.Size
	wants := all || a.me == root
	digest, carry, proceed, err := a.carried(c, size <= per && size <= smallReduce)
	if !proceed {
		return err
	}
	if carry && a.syncFits(size) {
		a.lastLoop = false
		return a.syncedRound(c, digest, p, mine, result, wants)
	}
	if carry {
		a.lastLoop = false
		return a.carriedRound(c, digest, true, func(in []byte) { copy(in, mine) }, func(s uint64) {
			if wants {
				a.combine(p, s, 1, 0, size, result)
			}
		})
	}
	// More than a buffer: rounds of a span, as the other collectives'
	// (fewer rounds, each two waits for flags, for the same pool; the C
	// fast path's fc_reduction mirrors this).
	a.lastLoop = true
	bufs := 1
	if size > per {
		bufs = a.spanBufs()
		per = a.spanBytes() / op.Size * op.Size
	}
	for k := range rounds(size, per) {
		first, s := a.nextSpan(bufs)
		lo, hi := span(k, per, size)
		if hi > lo {
			if err := a.claimSpan(first, bufs); err != nil {
				return err
			}
			copy(a.inRound(a.me, first, bufs), mine[lo:hi])
		}
		small := hi-lo <= smallReduce
		if small && all {
			// Every process needs every input: one synchronising round.
			if _, err := a.sync(); err != nil {
				return err
			}
			a.combine(p, first, bufs, 0, hi-lo, result[lo:hi])
			a.finish(s)
			continue
		}
		a.publish(a.posted[a.me], s)
		if wants || !small {
			for q := range a.n {
				if q != a.me {
					if err := a.await(a.posted[q], s, q); err != nil {
						return err
					}
				}
			}
		}
		if small {
			if wants {
				a.combine(p, first, bufs, 0, hi-lo, result[lo:hi])
			}
			a.finish(s)
			continue
		}
		// This process's slice of the round, in whole elements.
		elems := (hi - lo) / op.Size
		slo, shi := a.me*elems/a.n*op.Size, (a.me+1)*elems/a.n*op.Size
		a.combine(p, first, bufs, slo, shi, a.outRound(a.me, first, bufs)[slo:shi])
		a.publish(a.reduced[a.me], s)
		if wants {
			for q := range a.n {
				if q != a.me {
					if err := a.await(a.reduced[q], s, q); err != nil {
						return err
					}
				}
				qlo, qhi := q*elems/a.n*op.Size, (q+1)*elems/a.n*op.Size
				copy(result[lo+qlo:lo+qhi], a.outRound(q, first, bufs)[qlo:qhi])
			}
		}
		a.finish(s)
	}
	return nil
}

// combine reduces bytes [lo, hi) of every process's input of the round
// of k buffers that begins at first (nextSpan) into dst.
func (a *area) combine(p plan, first uint64, k int, lo, hi int, dst []byte) {
	for q := range a.n {
		a.inputs[q] = a.inRound(q, first, k)[lo:hi]
	}
	e := evaluator{plan: p, x: a.inputs, regs: &a.regs}
	e.run(dst)
}

func reduce(c *coll.Comm, send, recv []byte, op *coll.Op, root int) error {
	a := c.Data.(*area)
	a.lastLoop = false
	mine := send
	if mine == nil {
		mine = recv // in place at the root
	}
	switch {
	case len(mine) == 0:
		return nil
	case op.Size > a.chunk || a.largeReduce(len(mine)):
		return viaBasic(c, func(f *coll.Actions) error { return f.Reduce(c, send, recv, op, root) })
	}
	var result []byte
	if c.Rank() == root {
		result = recv[:len(mine)]
	}
	return reduction(c, mine, result, op, root, false)
}

func allreduce(c *coll.Comm, send, recv []byte, op *coll.Op) error {
	a := c.Data.(*area)
	a.lastLoop = false
	mine := send
	if mine == nil {
		mine = recv // in place: the input is copied out before recv is written
	}
	switch {
	case len(mine) == 0:
		return nil
	case op.Size > a.chunk || a.largeReduce(len(mine)):
		return viaBasic(c, func(f *coll.Actions) error { return f.Allreduce(c, send, recv, op) })
	}
	return reduction(c, mine, recv[:len(mine)], op, 0, true)
}
