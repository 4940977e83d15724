package coll

import (
	"encoding/binary"
	"errors"
	"math"
	"unsafe"
)

// The argument check (coll_base_check): before a collective, its
// processes reduce a small vector describing their call — which
// collective, root, sizes, op, type, and whether their own arguments were
// wrong — with min and max, through the communicator's own Allreduce, and
// each judges the result. A mismatch is then an error on every process,
// before any data moves, rather than a hang or a wrong answer. On an
// intercommunicator each group reduces its own, the two leaders swap the
// results, and each group learns the other's.
//
// The check of a Barrier is the barrier: the reduction already waits for
// every process.

const (
	fKind = iota
	fRootCat
	fRootRank
	fRootSelf
	fSend
	fRecv
	fOp
	fType
	fCounts
	fErr
	nFields
)

// Root categories.
const (
	catNone = iota
	catRoot
	catNull
	catRank
)

const none = math.MaxInt64

// rooted reports whether a collective has a root.
func rooted(k Kind) bool {
	switch k {
	case Bcast, Gather, Gatherv, Scatter, Scatterv, Reduce:
		return true
	}
	return false
}

// sigVector encodes a call: values, then their negations (so that the min
// of the second half is minus the max); fields a process does not take
// part in are "none" in both halves.
func (c *Comm) sigVector(sig Sig) []byte {
	var val [nFields]int64
	var care [nFields]bool
	set := func(f int, v int64) { val[f], care[f] = v, true }
	set(fKind, int64(sig.Kind))
	switch {
	case !rooted(sig.Kind):
		set(fRootCat, catNone)
	case c.Inter() && sig.Root == Root:
		set(fRootCat, catRoot)
		set(fRootSelf, int64(c.Rank()))
	case c.Inter() && sig.Root == ProcNull:
		set(fRootCat, catNull)
	default:
		set(fRootCat, catRank)
		set(fRootRank, int64(sig.Root))
	}
	if sig.Send >= 0 {
		set(fSend, sig.Send)
	}
	if sig.Recv >= 0 && c.Inter() {
		set(fRecv, sig.Recv)
	}
	set(fOp, int64(sig.Op))
	set(fType, int64(sig.Type))
	set(fCounts, int64(sig.Counts>>1))
	e := int64(0)
	if sig.Err != nil {
		e = int64(sig.Err.Class) + 1
	}
	set(fErr, e)
	b := c.Scratch(ScratchCheck, 2*nFields*8)
	for i := range nFields {
		lo, hi := int64(none), int64(none)
		if care[i] {
			lo, hi = val[i], -val[i]
		}
		binary.LittleEndian.PutUint64(b[i*8:], uint64(lo))
		binary.LittleEndian.PutUint64(b[(nFields+i)*8:], uint64(hi))
	}
	return b
}

// agg is a reduced vector: for each field, whether anyone gave it, and
// the least and greatest value given.
type agg struct {
	has    [nFields]bool
	lo, hi [nFields]int64
}

func decodeAgg(b []byte) agg {
	var a agg
	for i := range nFields {
		lo := int64(binary.LittleEndian.Uint64(b[i*8:]))
		hi := int64(binary.LittleEndian.Uint64(b[(nFields+i)*8:]))
		if lo != none {
			a.has[i], a.lo[i], a.hi[i] = true, lo, -hi
		}
	}
	return a
}

func (a agg) agrees(f int) bool { return !a.has[f] || a.lo[f] == a.hi[f] }

func merge(a, b agg) agg {
	out := a
	for i := range nFields {
		switch {
		case !b.has[i]:
		case !out.has[i]:
			out.has[i], out.lo[i], out.hi[i] = true, b.lo[i], b.hi[i]
		default:
			out.lo[i], out.hi[i] = min(out.lo[i], b.lo[i]), max(out.hi[i], b.hi[i])
		}
	}
	return out
}

// minOp is the element-wise minimum of int64s.
var minOp = Op{Size: 8, Commutative: true, Exact: true, Apply: func(in, inout []byte) {
	a := unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(in))), len(in)/8)
	b := unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(inout))), len(inout)/8)
	for i := range b {
		b[i] = min(a[i], b[i])
	}
}}

// digest hashes a signature vector (the same on every process: no
// per-process seed), as a signed value, so that minOp orders digests and
// their complements alike.
func digest(v []byte) uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	for i := 0; i+8 <= len(v); i += 8 {
		h ^= binary.LittleEndian.Uint64(v[i:])
		h *= 0xff51afd7ed558ccd
		h ^= h >> 32
	}
	return h
}

// sigDigest is digest(c.sigVector(sig)), kept for the last call without
// an argument error: a program calls the same collective with the same
// arguments again and again. c.mu is held.
func (c *Comm) sigDigest(sig *Sig) uint64 {
	if sig.Err == nil && c.lastSig.ok && sig.same(&c.lastSig.sig) {
		return c.lastSig.digest
	}
	h := digest(c.sigVector(*sig))
	if sig.Err == nil {
		c.lastSig = lastSig{sig: *sig, digest: h, ok: true}
	}
	return h
}

// lastSig is the last call sigDigest digested.
type lastSig struct {
	sig    Sig
	digest uint64
	ok     bool
	way    uint8 // how runChecked runs it (checkWay), once it has asked
}

// agree runs the argument check. c.mu is held.
func (c *Comm) agree(sig *Sig) error {
	if !c.Inter() && c.Size() == 1 {
		if sig.Err != nil {
			return sig.Err
		}
		return nil
	}
	if !c.Inter() {
		// First the least and the greatest digest of the signatures: if
		// they are equal, so are the signatures (all but certainly), and
		// this one is the reduction; a digest and its complement fit in
		// one small message. Otherwise, the signatures themselves, to say
		// what differs.
		h := c.sigDigest(sig)
		var same bool
		var err error
		if c.act.Agree != nil {
			// The module compares the digests itself (shmem: one
			// exchange of flags, the digests beside them).
			err = c.checkRun(func(a *Actions) error {
				var err error
				same, err = a.Agree(c, h)
				return err
			})
		} else {
			d := c.Scratch(ScratchDigest, 32)
			binary.LittleEndian.PutUint64(d, h)
			binary.LittleEndian.PutUint64(d[8:], ^h)
			err = c.checkRun(func(a *Actions) error { return a.Allreduce(c, d[:16], d[16:], &minOp) })
			lo, notHi := binary.LittleEndian.Uint64(d[16:]), binary.LittleEndian.Uint64(d[24:])
			same = int64(lo) == ^int64(notHi)
		}
		if err != nil {
			return err
		}
		if same {
			// Every process made this call: it fails only if every
			// process's own arguments were wrong.
			if sig.Err != nil {
				return sig.Err
			}
			if c.act.Agree != nil {
				w := WayChecked
				if sig.Kind == Barrier {
					w = WayAgreed
				}
				c.note(sig, w, h)
			}
			return nil
		}
		v := c.sigVector(*sig)
		mine := c.Scratch(ScratchCheck2, len(v))
		err = c.checkRun(func(a *Actions) error { return a.Allreduce(c, v, mine, &minOp) })
		if err != nil {
			return err
		}
		return c.judge(*sig, decodeAgg(mine), nil)
	}
	v := c.sigVector(*sig)
	mine := c.Scratch(ScratchCheck2, len(v))
	local := c.T.Local()
	remote := Buffer(len(v))
	err := c.checkRun(func(*Actions) error {
		if err := c.Sub(local, Check, 0, func(a *Actions) error { return a.Allreduce(local, v, mine, &minOp) }); err != nil {
			return err
		}
		if local.Rank() == 0 {
			if err := c.Sendrecv(mine, 0, remote, 0); err != nil {
				return err
			}
		}
		return c.Sub(local, Check, 0, func(a *Actions) error { return a.Bcast(local, remote, 0) })
	})
	if err != nil {
		return err
	}
	r := decodeAgg(remote)
	return c.judge(*sig, decodeAgg(mine), &r)
}

// judge turns the reduced vectors (of this process's group, and of the
// remote group) into the error every process reports, or nil.
func (c *Comm) judge(sig Sig, mine agg, remote *agg) error {
	all := mine
	if remote != nil {
		all = merge(mine, *remote)
	}
	name, k := c.T.Name(), sig.Kind
	if all.has[fErr] && all.hi[fErr] > 0 {
		if sig.Err != nil {
			return sig.Err
		}
		return Errorf(Class(all.hi[fErr]-1), "%s: %s: another process gave invalid arguments", name, k)
	}
	if !all.agrees(fKind) {
		return Errorf(ErrOther, "%s: the processes called different collectives: %s and %s", name, Kind(all.lo[fKind]), Kind(all.hi[fKind]))
	}
	if remote == nil {
		if !all.agrees(fRootRank) {
			return Errorf(ErrRoot, "%s: %s: the processes gave different roots (%d and %d)", name, k, all.lo[fRootRank], all.hi[fRootRank])
		}
		if !all.agrees(fSend) {
			return Errorf(ErrCount, "%s: %s: the processes gave different sizes (%d and %d bytes)", name, k, all.lo[fSend], all.hi[fSend])
		}
	} else {
		if rooted(k) && !interRootOK(mine, *remote) {
			return Errorf(ErrRoot, "%s: %s: the roots do not match: one group must give Root on one process and ProcNull on the others, the other group that process's rank", name, k)
		}
		for _, g := range []agg{mine, *remote} {
			if !g.agrees(fSend) || !g.agrees(fRecv) {
				return Errorf(ErrCount, "%s: %s: the processes of a group gave different sizes", name, k)
			}
		}
		if mine.has[fSend] && remote.has[fRecv] && mine.lo[fSend] != remote.lo[fRecv] ||
			mine.has[fRecv] && remote.has[fSend] && mine.lo[fRecv] != remote.lo[fSend] {
			return Errorf(ErrCount, "%s: %s: what one group sends is not what the other expects", name, k)
		}
	}
	if !all.agrees(fOp) {
		return Errorf(ErrOp, "%s: %s: the processes gave different ops", name, k)
	}
	if !all.agrees(fType) {
		return Errorf(ErrType, "%s: %s: the processes gave different element types", name, k)
	}
	if !mine.agrees(fCounts) || remote != nil && !remote.agrees(fCounts) {
		return Errorf(ErrCount, "%s: %s: the processes gave different count arrays", name, k)
	}
	return nil
}

func interRootOK(mine, remote agg) bool {
	rootSide := func(g agg) bool {
		return g.has[fRootCat] && g.lo[fRootCat] >= catRoot && g.hi[fRootCat] <= catNull &&
			g.has[fRootSelf] && g.lo[fRootSelf] == g.hi[fRootSelf]
	}
	rankSide := func(g agg) bool {
		return g.has[fRootCat] && g.lo[fRootCat] == catRank && g.hi[fRootCat] == catRank && g.agrees(fRootRank)
	}
	return rootSide(mine) && rankSide(remote) && remote.lo[fRootRank] == mine.lo[fRootSelf] ||
		rootSide(remote) && rankSide(mine) && mine.lo[fRootRank] == remote.lo[fRootSelf]
}

// zeroSize reports whether a collective moves nothing, so that it returns
// at once when the process's own arguments are right (a process with an
// argument error takes part in coll_base_check's agreement, so that every
// process learns of it), with no message and without the agreement: on an
// intracommunicator, a collective whose block size (Sig.Send) is the same
// on every process in a correct program, called with zero bytes. Other
// MPIs do the same; the cost is that coll_base_check cannot report a
// process that gave zero bytes while the others gave more (they wait for
// it, as under other MPIs). The v-forms (whose counts differ by process),
// Barrier and intercommunicators always run.
func zeroSize(c *Comm, sig *Sig) bool {
	if sig.Send != 0 || c.Inter() {
		return false
	}
	switch sig.Kind {
	case Bcast, Gather, Scatter, Allgather, Alltoall, Reduce, Allreduce, ReduceScatterBlock, Scan, Exscan:
		return true
	}
	return false
}

// carry is the argument check of a collective that carries it in its own
// messages (Actions.Carries): the digest of the call, and what the
// module found.
type carry struct {
	digest uint64
	state  uint8
	sig    Sig // the call, when it is sent with the data (carrySent)
}

// The states of a carried check.
const (
	carryNone    = iota
	carryPending // the collective runs and has not said
	carrySame    // every process gave the same digest
	carryDiffer  // some did not
	carrySent    // the call goes with the data (coll_base_check=1, SendsCall)
	carrySentOut // and the module sent or compared it
)

// Carry returns the digest of the running collective's call if it carries
// the argument check (Actions.Carries said so): the module sends it with
// its data, learns every process's digest, and reports with Carried
// whether they were all equal (the same answer on every process). A
// module that learns they differ must still finish its rounds (so that
// nobody waits for a message it would not send) but need not compute.
func (c *Comm) Carry() (digest uint64, ok bool) {
	return c.carry.digest, c.carry.state == carryPending
}

// Carried reports the verdict of a carried check.
func (c *Comm) Carried(same bool) {
	if c.carry.state == carryPending {
		c.carry.state = carryDiffer
		if same {
			c.carry.state = carrySame
		}
	}
}

// runCarried runs a collective that carries its argument check. Its
// messages are tagged as the check's, so that they meet those of a
// process that called another collective and checks before it
// (Actions.Agree, which the module makes send the digests the same way).
// When the digests differ, every process knows it once the collective
// ends, and they reduce the signatures themselves to say what differs, as
// agree does (the receive buffers may have been written by then). c.mu is
// held.
func (c *Comm) runCarried(sig *Sig, digest uint64, f func(a *Actions) error) error {
	c.carry = carry{digest: digest, state: carryPending}
	c.note(sig, WayCarried, digest)
	state, err := c.runAsCheck(sig, f)
	switch state {
	case carrySame:
		return err
	case carryPending:
		if err != nil {
			return err
		}
		return Errorf(ErrIntern, "%s: %s: the module did not carry the argument check", c.T.Name(), sig.Kind)
	}
	return c.differ(*sig)
}

// differ compares the calls of a collective whose carried check found
// their digests different, and returns the error that says what differs.
// c.mu is held.
func (c *Comm) differ(sig Sig) error {
	// What went wrong in the collective (messages of another size or
	// collective) is what the check explains.
	v := c.sigVector(sig)
	mine := c.Scratch(ScratchCheck2, len(v))
	if err := c.checkRun(func(a *Actions) error { return a.Allreduce(c, v, mine, &minOp) }); err != nil {
		return err
	}
	return c.judge(sig, decodeAgg(mine), nil)
}

// RecvAny receives from rank src for the running collective into buf,
// whatever the message's size or collective, without recording a
// mismatch: ok is false when it had another tag or size than len(buf)
// (what fits is in buf). For a module's argument check, which sees the
// difference in what it received.
func (c *Comm) RecvAny(buf []byte, src int) (ok bool, err error) {
	var st Status
	if t, isR := c.T.(Receiver); isR {
		st, err = t.Recv(buf, src, c.recvTag())
	} else {
		var r Request
		if r, err = c.T.Irecv(buf, src, c.recvTag()); err != nil {
			return false, err
		}
		st, err = r.Wait()
	}
	if err != nil && !errors.Is(err, ErrTruncated) {
		return false, err
	}
	return err == nil && int32(st.Tag) == c.tag && st.Count == len(buf), nil
}

// CallSize is the size of the call a collective sends with its data at
// coll_base_check=1 (SendsCall): the signature the check reduces, so
// that the receiver can say what differs without asking.
const CallSize = 2 * nFields * 8

// SendsCall reports whether the running collective sends its call with
// its data (coll_base_check=1, Actions.SendsCall): the module puts
// PutCall's bytes in front of every message of data, and every process
// that receives one compares them with JudgeCall and returns what it
// says. A process that only sends returns once its data left, without a
// round back, and never learns of a mismatch; a process that waits for a
// message the others' calls do not send waits, as under MPIs that do not
// check (coll_base_check=2 makes every process learn of every mismatch,
// at the cost of that round).
func (c *Comm) SendsCall() bool { return c.carry.state >= carrySent }

// PutCall writes the running collective's call into b[:CallSize].
func (c *Comm) PutCall(b []byte) {
	copy(b[:CallSize], c.sigVector(c.carry.sig))
	c.carry.state = carrySentOut
}

// CallOp merges calls (PutCall's bytes) element by element so that
// JudgeCall, given the merge of several, says what differs among them
// all: a module whose data are combined on their way (a Reduce) reduces
// the calls with it alongside.
func CallOp() *Op { return &minOp }

// SentDigest returns the argument check's digest of the running
// collective's call, when it sends its call with its data (SendsCall), and
// counts as sending it: a module that leaves its call where the receivers
// find it (shmem's area) writes the digest beside its data and the call
// itself (PutCall) only when it changed, and a receiver compares the
// digests, and the calls (JudgeCall) only when those differ.
func (c *Comm) SentDigest() uint64 {
	c.carry.state = carrySentOut
	return c.carry.digest
}

// JudgeCall compares the call in front of a message (b, the CallSize
// bytes received; whole is false when the message had another size or
// tag than expected) with this process's, and returns the error that
// says how they differ, or nil.
func (c *Comm) JudgeCall(b []byte, whole bool) error {
	c.carry.state = carrySentOut
	return c.judgeCall(c.carry.sig, b, whole)
}

// judgeCall is JudgeCall for the call sig. c.mu is held.
func (c *Comm) judgeCall(sig Sig, b []byte, whole bool) error {
	mine := c.sigVector(sig)
	if whole && string(mine) == string(b[:CallSize]) {
		return nil
	}
	all := merge(decodeAgg(mine), decodeAgg(b[:CallSize]))
	if err := c.judge(sig, all, nil); err != nil {
		return err
	}
	return Errorf(ErrOther, "%s: %s: a message of another call came", c.T.Name(), sig.Kind)
}

// runSent runs a collective that sends its call with its data
// (Actions.SendsCall). Its messages are tagged as the check's, as those of a
// carried check are. c.mu is held.
func (c *Comm) runSent(sig *Sig, digest uint64, f func(a *Actions) error) error {
	c.sending(sig, digest)
	c.note(sig, WaySent, digest)
	g := f
	if c.nextSync() {
		sig := *sig
		g = func(a *Actions) error {
			err := f(a)
			if err2 := c.syncSent(sig, false); err == nil {
				err = err2
			}
			return err
		}
	}
	state, err := c.runAsCheck(sig, g)
	if state != carrySentOut && err == nil {
		return Errorf(ErrIntern, "%s: %s: the module did not send the call", c.T.Name(), sig.Kind)
	}
	return err
}

// sending makes sig, of that digest, the running collective that sends
// its call with its data (SendsCall, PutCall, SentDigest, JudgeCall).
func (c *Comm) sending(sig *Sig, digest uint64) {
	c.carry = carry{state: carrySent, digest: digest}
	c.carry.sig.set(sig)
}

// checkTag is the tag of the argument check's messages (Sig{Kind:
// Check}'s), which a collective that carries the check or sends its call
// uses too.
var checkTag = tagOf(Sig{Kind: Check})

// runAsCheck runs f for sig with its messages tagged as the check's, and
// returns how the carried check ended (c.carry, which it clears) and f's
// error. c.mu is held.
func (c *Comm) runAsCheck(sig *Sig, f func(a *Actions) error) (uint8, error) {
	err := c.runTagged(sig, checkTag, f)
	state := c.carry.state
	c.carry = carry{}
	return state, err
}

// Flow control of the collectives that send their call (runSent): a
// process that only sends returns once its messages left, so a receiver
// slower than its senders (a Gather's root, a Bcast's or Scatter's other
// processes) would see its queue of unexpected messages grow for as long
// as the program runs. Every coll_base_sent_sync-th of them on a
// communicator (counted alike on every process: each runs every one)
// ends with an acknowledgement: the processes that receive data send a
// message of no bytes to those that only send it, which wait for it. A
// sender is then never more than that many calls ahead of a receiver,
// and a receiver's queue holds at most that many calls' messages from
// each sender; when the receivers keep up, it costs a message of no
// bytes per process every so many calls.

// sendsAhead reports whether, at coll_base_check=0, sig is a collective
// whose processes that only send return before their receivers (eager
// sends: a small Bcast's or Scatter's root, a small Gather's or Reduce's
// other processes), which the flow control then bounds as at level 1
// (nextSync, syncSent). A module whose collectives bound their senders
// (Actions.SentBounded) has none.
func (c *Comm) sendsAhead(sig *Sig) bool {
	if c.Params.Check || c.Params.SentSync == 0 || c.act.SentBounded || c.Inter() || c.Size() < 2 {
		return false
	}
	b := int(sig.Send)
	switch sig.Kind {
	case Bcast, Gather, Reduce:
		return b >= 0 && b <= c.Params.Small
	case Scatter:
		return b >= 0 && c.Size()*b <= c.Params.Small
	}
	return false
}

// runSynced runs, at coll_base_check=0, a collective that sends ahead
// (sendsAhead) and ends with the flow control's acknowledgement, on the
// check's tag (which level 0 leaves unused): a process whose own
// arguments were wrong takes no part in the collective but sends its
// acknowledgements, as at level 1. c.mu is held.
func (c *Comm) runSynced(sig *Sig, f func(a *Actions) error) error {
	var err error
	if sig.Err != nil {
		err = sig.Err
	} else {
		err = c.run(sig, f)
	}
	s := *sig
	_, err2 := c.runAsCheck(sig, func(*Actions) error { return c.syncSent(s, sig.Err != nil) })
	if err == nil {
		err = err2
	}
	return err
}

// nextSync counts a collective that sends its call and reports whether
// it is one that ends with the acknowledgement; a module whose own
// collectives bound their senders (Actions.SentBounded) has none, and
// counts none. c.mu is held (a view: the nonblocking ones are counted
// apart, in the order this process starts them, which MPI has every
// process keep alike).
func (c *Comm) nextSync() bool {
	if c.act.SentBounded {
		return false
	}
	k := uint64(c.Params.SentSync)
	if c.nbSent != nil { // a view: a nonblocking collective
		return k > 0 && c.nbSent.Add(1)%k == 0
	}
	c.sent++
	return k > 0 && c.sent%k == 0
}

// syncSent is the acknowledgement at the end of such a collective: where
// the data go to the root (Gather, Reduce), the root acknowledges to
// every other process, which waits for it; where they come from the
// root (Bcast, Scatter), every other process acknowledges to the root,
// which waits for all of them. A process whose own arguments were wrong
// (own) sends its acknowledgements and waits for none. c.mu is held and
// c.tag is the collective's.
func (c *Comm) syncSent(sig Sig, own bool) error {
	var first error
	note := func(err error) {
		if first == nil {
			first = err
		}
	}
	acks(sig, c.Size(), c.Rank(), own, func(i int) { note(c.Send(nil, i)) }, func(i int) {
		_, err := c.RecvAny(nil, i)
		note(err)
	})
	return first
}

// acks calls send for each peer this process (rank r of n) acknowledges
// to at the end of a collective that sends its call (syncSent), and recv
// for each it waits for; a process whose own arguments were wrong (own)
// waits for none, and a bad root makes none.
func acks(sig Sig, n, r int, own bool, send, recv func(peer int)) {
	root := sig.Root
	if root < 0 || root >= n {
		return // a bad root: the process's own error
	}
	toRoot := sig.Kind == Gather || sig.Kind == Reduce
	switch {
	case toRoot && r == root:
		for i := range n {
			if i != r {
				send(i)
			}
		}
	case toRoot && !own:
		recv(root)
	case !toRoot && r != root:
		send(root)
	case !toRoot && !own:
		for i := range n {
			if i != r {
				recv(i)
			}
		}
	}
}
