package mpi

import (
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"unsafe"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/internal/colladapter"
	"github.com/lamgo/lam/libmpi/internal/task"
)

// Collective operations. Each communicator gets a coll module (lam_basic,
// or smp when it spans several nodes with several processes on one; see
// "-ssi coll"), chosen when it first runs a collective. Collective
// messages travel on the communicator's hidden context, tagged with the
// collective, so they never match the program's messages.
//
// Every process of the communicator must call the same collectives in the
// same order, with agreeing arguments: the same root, matching counts and
// the same op. With coll_base_check=1 (the default) the processes first
// compare their arguments, so a disagreement is an error on every process
// (ErrRoot, ErrCount, ErrOp, ErrType, or ErrOther for different
// collectives) instead of a hang or a wrong result; an argument error on
// one process (a bad root, a buffer too small) also reaches the others.
// With coll_base_check=0 that comparison is skipped; a process that
// receives a message of another call still reports it.
//
// Counts come from the lengths of the slices. A send buffer of nil means
// "in place" (MPI_IN_PLACE) where a function says so. On an
// intercommunicator, a rooted collective's root is Root on the root
// process, ProcNull on the other processes of its group, and the root's
// rank in the remote group on the processes of the other group.

// Root is the root argument of the root process of an intercommunicator
// collective (MPI_ROOT).
const Root = coll.Root

// collState is a communicator's collective machinery, made when first
// needed.
type collState struct {
	once sync.Once
	c    *coll.Comm
	mark task.Mark // mpitask's record while a blocking collective waits (collWait)
}

func (c *Comm) collComm() *coll.Comm {
	c.cs.once.Do(func() {
		t := &colladapter.Transport{Engine: st.engine, Comm: c.view(), Nodes: st.nodes, Label: c.name, Owner: collOwner{c},
			Shared: st.proc.Shared, PIDs: st.proc.PIDs, Oversub: st.proc.Oversubscribed}
		if c.inter != nil {
			t.Remote = c.inter.remote
		}
		c.cs.c = coll.New(t, st.proc.Settings)
		c.cs.c.Watch(c.collWait)
	})
	return c.cs.c
}

// setupColl sets the coll module of c, a communicator just made, up now:
// every communicator's maker calls it, where all of c's processes make c
// (collective over c). An error is kept and returned by c's collectives.
func (c *Comm) setupColl() {
	c.collComm().Setup()
}

// CollModule is the name of the coll module serving the communicator
// ("lam_basic", "smp"), chosen now if no collective ran on it yet.
func (c *Comm) CollModule() string {
	if c.check() != nil {
		return ""
	}
	return c.collComm().Module()
}

// release finalises the coll module and frees an intercommunicator's
// local group (a local action, when the communicator is freed).
func (c *Comm) release() {
	if c.cs.c != nil {
		c.cs.c.Free()
	}
	if c.inter != nil && c.inter.local != nil {
		c.inter.local.Free()
	}
}

// collOwner is what the coll adapter asks of a communicator.
type collOwner struct{ c *Comm }

func (o collOwner) Split(color, key int) (*coll.Comm, error) {
	if color < 0 {
		color = Undefined
	}
	n, err := o.c.split(color, key, fmt.Sprintf("%s (hidden, coll)", o.c.name))
	if err != nil || n == nil {
		return nil, err
	}
	return n.collComm(), nil
}

func (o collOwner) Local() *coll.Comm {
	if o.c.inter == nil {
		return nil
	}
	return o.c.inter.local.collComm()
}

func (o collOwner) Free() error { return o.c.Free() }

// Errors between the mpi and coll packages.

var collClasses = map[coll.Class]ErrorClass{
	coll.ErrOther: ErrOther, coll.ErrCount: ErrCount, coll.ErrRoot: ErrRoot, coll.ErrOp: ErrOp,
	coll.ErrType: ErrType, coll.ErrArg: ErrArg, coll.ErrBuffer: ErrBuffer, coll.ErrComm: ErrComm,
	coll.ErrTruncate: ErrTruncate, coll.ErrIntern: ErrIntern, coll.ErrRank: ErrRank, coll.ErrProcFailed: ErrProcFailed,
}

func toColl(e *Error) *coll.Error {
	for cc, mc := range collClasses {
		if mc == e.Class {
			return &coll.Error{Class: cc, Msg: e.Msg, Err: e}
		}
	}
	return &coll.Error{Class: coll.ErrOther, Msg: e.Msg, Err: e}
}

// collFail hands a collective's error to the communicator's handler.
func (c *Comm) collFail(err error) error { return c.fail(collError(err)) }

// collError is the *Error of a collective's error.
func collError(err error) error {
	if err == nil {
		return nil
	}
	var me *Error
	var ce *coll.Error
	switch {
	case errors.As(err, &me):
		if ce2 := (*coll.Error)(nil); errors.As(err, &ce2) && ce2.Err != me {
			// A coll error carrying an MPI error from below: keep the
			// coll error's words, the MPI error's class.
			return &Error{Class: me.Class, Msg: ce2.Msg, Err: err}
		}
		return me
	case errors.As(err, &ce):
		cl, ok := collClasses[ce.Class]
		if !ok {
			cl = ErrOther
		}
		if cl == ErrOther {
			cl = classOf(ce.Err) // a dead peer below, say
		}
		return &Error{Class: cl, Msg: ce.Msg, Err: err}
	}
	return fromCore(err)
}

// zeroCall reports whether a collective that moves nothing at this
// process (every buffer it passed is empty) may return before its call
// is built, as the full path would (coll.Comm.Empty; a nonblocking one
// with its request complete, doneNow): MPI is
// initialised, c is a valid intracommunicator, root is one of its ranks
// (0 for a call without one), and the coll framework is not recording
// c's calls. Any other case takes the full path, which checks every
// argument and reports what is wrong. (Building the call costs more than
// the rest of a zero-size collective.) c's coll.Comm is read without
// collComm's sync.Once, which does not inline: every communicator's
// maker sets it up (setupColl) before the communicator is handed out.
func zeroCall(c *Comm, root int) bool {
	if st.engine == nil || c == nil || !c.ready || c.inter != nil || uint(root) >= uint(len(c.group)) {
		return false
	}
	cc := c.cs.c
	return cc != nil && !cc.Records()
}

// moveNone reports whether a collective whose buffers here are send and
// recv moves nothing at this process and may return at once (zeroCall).
func moveNone[T CollElem](c *Comm, send, recv []T, root int) bool {
	return len(send) == 0 && len(recv) == 0 && zeroCall(c, root)
}

// reduceNone is moveNone for a reduction by op.
func reduceNone[T CollElem](c *Comm, send, recv []T, op *Op, root int) bool {
	return moveNone(c, send, recv, root) && zeroOp[T](op)
}

// zeroOp reports whether op is good for T without building the call: a
// predefined op defined for T (collOp makes it once, the first time, so
// that a program's first reductions may be its empty ones). Others (a
// program's own ops, ops not defined for T) take the full path, which
// reports their errors.
func zeroOp[T CollElem](op *Op) bool {
	if op == nil || op.id == 0 {
		return false
	}
	_, _, e := collOp[T](op)
	return e == nil
}

// call is one collective call being prepared.
type call struct {
	c   *Comm
	cc  *coll.Comm
	sig coll.Sig
	nb  *nbRun // a nonblocking collective being started (icoll.go); nil for a blocking one

	// lists are the block lists a blocking v collective took from
	// blockLists, given back when it returns.
	lists [2]*[][]byte
}

// blockLists keeps the block lists of blocking v collectives between
// calls, so that cutting a buffer into blocks allocates nothing once a
// list of the size was made. A nonblocking collective keeps its own
// list until it completes, so it makes one.
var blockLists = sync.Pool{New: func() any { return new([][]byte) }}

// blockList returns a list of n blocks for k, taken from blockLists for a
// blocking call.
func (k *call) blockList(n int) [][]byte {
	i := 0
	for i < len(k.lists) && k.lists[i] != nil {
		i++
	}
	if k.nb != nil || i == len(k.lists) {
		return make([][]byte, n)
	}
	p := blockLists.Get().(*[][]byte)
	if cap(*p) < n {
		*p = make([][]byte, n)
	}
	k.lists[i] = p
	return (*p)[:n]
}

// putLists gives k's block lists back, holding no buffer of the caller's.
func (k *call) putLists() {
	for i, p := range k.lists {
		if p == nil {
			break
		}
		clear((*p)[:cap(*p)])
		blockLists.Put(p)
		k.lists[i] = nil
	}
}

// begin starts k, a zero call, as a collective of the given kind on c
// (nonblocking when nb is not nil), filling k in place (a call is large: returning it would
// copy it on every call); an error means c is not usable (it went to
// World's handler).
func (k *call) begin(nb *nbRun, c *Comm, kind coll.Kind) error {
	k.nb = nb
	if _, err := engine(); err != nil {
		return err
	}
	if err := c.check(); err != nil {
		return World.fail(err)
	}
	// Field by field into k, a zero call: a Sig literal is built
	// aside and copied in 16-byte moves that stall on its 8-byte
	// stores (a fifth of a small collective's Go path, in profiles).
	k.c, k.cc = c, c.collComm()
	k.sig.Kind, k.sig.Send, k.sig.Recv = kind, -1, -1
	return nil
}

// bad records an argument error (the first counts); the process still
// takes part in the argument check.
func (k *call) bad(class ErrorClass, format string, args ...any) {
	if k.sig.Err == nil {
		k.sig.Err = toColl(errorf(class, "%s: "+format, append([]any{k.sig.Kind}, args...)...))
	}
}

// badErr records an argument error found by a helper (the first counts).
func (k *call) badErr(err error) {
	if k.sig.Err == nil {
		k.sig.Err = toColl(within(Class(err), k.sig.Kind.String(), err))
	}
}

func (k *call) run(f func(a *coll.Actions) error) error {
	if k.sig.Send == 0 && k.cc.Empty(&k.sig) { // (Empty inlines, zeroSize does not: a call that moves data skips both)
		// A call that moves nothing returns at once (MPI's zero-count
		// collectives); a nonblocking one's request is complete
		// (startNB), as every process's is, without a number of the
		// communicator's nonblocking collectives.
		return nil
	}
	if k.nb != nil {
		return k.nbStep(f)
	}
	if task.Tracing() {
		defer enterColl(k).Leave()
	}
	err := k.cc.RunCall(&k.sig, f) // which records the call for mpitask while it waits (collWait)
	if k.lists[0] != nil {
		k.putLists()
	}
	if err != nil {
		return k.c.collFail(err)
	}
	return nil
}

// n is the size of the group a collective's blocks come from or go to:
// the communicator's, or the remote group's.
func (k *call) n() int {
	if k.c.inter != nil {
		return len(k.c.inter.remote)
	}
	return len(k.c.group)
}

func (k *call) inter() bool { return k.c.inter != nil }

// root checks a root argument and reports whether this process is the
// root (on an intercommunicator: gave Root).
func (k *call) root(root int) bool {
	if k.inter() {
		if root != Root && root != ProcNull && (root < 0 || root >= len(k.c.inter.remote)) {
			k.bad(ErrRoot, "root %d is neither Root, ProcNull nor a rank of the remote group (size %d)", root, len(k.c.inter.remote))
		}
		k.sig.Root = root
		return root == Root
	}
	if root < 0 || root >= len(k.c.group) {
		k.bad(ErrRoot, "root %d is not in %s (size %d)", root, k.c.name, len(k.c.group))
		k.sig.Root = 0
		return false
	}
	k.sig.Root = root
	return root == k.c.rank
}

// sends and recvs are the participation of an intercommunicator's
// processes: the root group's non-root processes neither send nor receive.
func (k *call) rootSide(root int) bool { return k.inter() && (root == Root || root == ProcNull) }

func (k *call) noInPlace(send []byte) []byte {
	if k.inter() && send == nil {
		k.bad(ErrBuffer, "in place (a nil send buffer) is not allowed on an intercommunicator")
	}
	return send
}

func sizeOf[T any]() int { return int(unsafe.Sizeof(*new(T))) }

// raw views a buffer of any element type as bytes, without copying; a nil
// slice stays nil ("in place"), an empty one becomes an empty one.
func raw[T any](b []T) []byte {
	if b == nil {
		return nil
	}
	if len(b) == 0 {
		return []byte{}
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b))), len(b)*sizeOf[T]())
}

// blocks cuts buf into blocks at displs of counts elements of es bytes,
// checking them.
func (k *call) blocks(what string, buf []byte, counts, displs []int, es int) [][]byte {
	n := k.n()
	if len(counts) != n || len(displs) != n {
		k.bad(ErrArg, "%s: %d counts and %d displacements for %d processes", what, len(counts), len(displs), n)
		return nil
	}
	out := k.blockList(n)
	for i := range n {
		lo, hi := displs[i]*es, (displs[i]+counts[i])*es
		switch {
		case counts[i] < 0:
			k.bad(ErrCount, "%s: negative count %d", what, counts[i])
			return nil
		case displs[i] < 0 || hi > len(buf):
			k.bad(ErrBuffer, "%s: block %d (%d elements at %d) is outside the buffer of %d elements", what, i, counts[i], displs[i], len(buf)/max(es, 1))
			return nil
		}
		out[i] = buf[lo:hi:hi]
	}
	return out
}

// digest sums up count arrays that must be the same on every process.
func digest(arrays ...[]int) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, a := range arrays {
		for _, x := range a {
			for i := range b {
				b[i] = byte(uint64(x) >> (8 * i))
			}
			h.Write(b[:])
		}
		h.Write([]byte{0xff})
	}
	return h.Sum64() | 1
}

// Barrier waits until every process of c has called it (MPI_Barrier). On
// an intercommunicator, a process leaves once every process of the other
// group has called it.
func Barrier(c *Comm) error { return iBarrier(nil, c) }

func iBarrier(nb *nbRun, c *Comm) error {
	var k call
	if err := k.begin(nb, c, coll.Barrier); err != nil {
		return err
	}
	return k.run(func(a *coll.Actions) error { return a.Barrier(k.cc) })
}

// Bcast sends the root's buf to every process's buf (MPI_Bcast); every
// process passes a buffer of the same length.
func Bcast[T CollElem](c *Comm, buf []T, root int) error { return iBcast(nil, c, buf, root) }

func iBcast[T CollElem](nb *nbRun, c *Comm, buf []T, root int) error {
	if moveNone(c, buf, nil, root) {
		return nil
	}
	var k call
	if err := k.begin(nb, c, coll.Bcast); err != nil {
		return err
	}
	b := raw(buf)
	isRoot := k.root(root)
	switch {
	case !k.inter():
		k.sig.Send = int64(len(b))
	case isRoot:
		k.sig.Send = int64(len(b))
	case root != ProcNull:
		k.sig.Recv = int64(len(b))
	}
	return k.run(func(a *coll.Actions) error { return a.Bcast(k.cc, b, root) })
}

// Gather collects every process's send at the root (MPI_Gather): recv, at
// the root only, holds one block per process in rank order, each as long
// as every send. At the root, send may be nil: its block is already in
// place in recv.
func Gather[T CollElem](c *Comm, send, recv []T, root int) error {
	return iGather(nil, c, send, recv, root)
}

func iGather[T CollElem](nb *nbRun, c *Comm, send, recv []T, root int) error {
	if moveNone(c, send, recv, root) {
		return nil
	}
	var k call
	if err := k.begin(nb, c, coll.Gather); err != nil {
		return err
	}
	s, r := raw(send), raw(recv)
	isRoot := k.root(root)
	n := k.n()
	if isRoot {
		if len(r)%n != 0 {
			k.bad(ErrCount, "the receive buffer (%d elements) is not %d equal blocks", len(recv), n)
		}
	}
	s = k.gatherSig(s, r, root, isRoot, sizeOf[T](), "elements")
	return k.run(func(a *coll.Actions) error { return a.Gather(k.cc, s, r, root) })
}

// Gatherv collects every process's send at the root, process i's into
// recv[displs[i]:displs[i]+counts[i]] (MPI_Gatherv); counts and displs
// (in elements) matter at the root only. At the root, send may be nil:
// its block is already in place.
func Gatherv[T CollElem](c *Comm, send, recv []T, counts, displs []int, root int) error {
	return iGatherv(nil, c, send, recv, counts, displs, root)
}

func iGatherv[T CollElem](nb *nbRun, c *Comm, send, recv []T, counts, displs []int, root int) error {
	var k call
	if err := k.begin(nb, c, coll.Gatherv); err != nil {
		return err
	}
	s := raw(send)
	var blocks [][]byte
	if k.root(root) {
		blocks = k.blocks("receive", raw(recv), counts, displs, sizeOf[T]())
	}
	if k.inter() && !k.rootSide(root) {
		s = k.noInPlace(s)
	}
	return k.run(func(a *coll.Actions) error { return a.Gatherv(k.cc, s, blocks, root) })
}

// Scatter sends block i of the root's send to process i's recv
// (MPI_Scatter): send, at the root only, holds one block per process,
// each as long as every recv. At the root, recv may be nil: its block
// stays in place in send.
func Scatter[T CollElem](c *Comm, send, recv []T, root int) error {
	return iScatter(nil, c, send, recv, root)
}

func iScatter[T CollElem](nb *nbRun, c *Comm, send, recv []T, root int) error {
	if moveNone(c, send, recv, root) {
		return nil
	}
	var k call
	if err := k.begin(nb, c, coll.Scatter); err != nil {
		return err
	}
	s, r := raw(send), raw(recv)
	isRoot := k.root(root)
	n := k.n()
	if isRoot {
		if len(s)%n != 0 {
			k.bad(ErrCount, "the send buffer (%d elements) is not %d equal blocks", len(send), n)
		}
	}
	k.scatterSig(s, r, root, isRoot, sizeOf[T](), "elements")
	return k.run(func(a *coll.Actions) error { return a.Scatter(k.cc, s, r, root) })
}

// Scatterv sends send[displs[i]:displs[i]+counts[i]] of the root to
// process i's recv (MPI_Scatterv); counts and displs matter at the root
// only. At the root, recv may be nil: its block stays in place.
func Scatterv[T CollElem](c *Comm, send []T, counts, displs []int, recv []T, root int) error {
	return iScatterv(nil, c, send, counts, displs, recv, root)
}

func iScatterv[T CollElem](nb *nbRun, c *Comm, send []T, counts, displs []int, recv []T, root int) error {
	var k call
	if err := k.begin(nb, c, coll.Scatterv); err != nil {
		return err
	}
	r := raw(recv)
	var blocks [][]byte
	if k.root(root) {
		blocks = k.blocks("send", raw(send), counts, displs, sizeOf[T]())
	}
	if k.inter() && !k.rootSide(root) && r == nil {
		r = []byte{}
	}
	return k.run(func(a *coll.Actions) error { return a.Scatterv(k.cc, blocks, r, root) })
}

// Allgather gathers every process's send into every process's recv, in
// rank order (MPI_Allgather); recv holds one block per process (of the
// remote group, on an intercommunicator), each as long as every send.
// send may be nil: each process's block is already in place in recv.
func Allgather[T CollElem](c *Comm, send, recv []T) error { return iAllgather(nil, c, send, recv) }

func iAllgather[T CollElem](nb *nbRun, c *Comm, send, recv []T) error {
	if moveNone(c, send, recv, 0) {
		return nil
	}
	var k call
	if err := k.begin(nb, c, coll.Allgather); err != nil {
		return err
	}
	s, r := raw(send), raw(recv)
	n := k.n()
	if len(r)%n != 0 {
		k.bad(ErrCount, "the receive buffer (%d elements) is not %d equal blocks", len(recv), n)
	}
	s = k.allgatherSig(s, r, sizeOf[T](), "elements")
	return k.run(func(a *coll.Actions) error { return a.Allgather(k.cc, s, r) })
}

// Allgatherv gathers every process's send into every process's recv,
// process i's at recv[displs[i]:displs[i]+counts[i]] (MPI_Allgatherv);
// every process passes the same counts and displs. send may be nil: each
// block is already in place.
func Allgatherv[T CollElem](c *Comm, send, recv []T, counts, displs []int) error {
	return iAllgatherv(nil, c, send, recv, counts, displs)
}

func iAllgatherv[T CollElem](nb *nbRun, c *Comm, send, recv []T, counts, displs []int) error {
	var k call
	if err := k.begin(nb, c, coll.Allgatherv); err != nil {
		return err
	}
	s := raw(send)
	blocks := k.blocks("receive", raw(recv), counts, displs, sizeOf[T]())
	if k.inter() {
		s = k.noInPlace(s)
	} else {
		k.sig.Counts = digest(counts, displs)
		if blocks != nil && s != nil && len(s) != len(blocks[k.c.rank]) {
			k.bad(ErrCount, "sending %d elements where counts[%d] is %d", len(send), k.c.rank, counts[k.c.rank])
		}
	}
	return k.run(func(a *coll.Actions) error { return a.Allgatherv(k.cc, s, blocks) })
}

// Alltoall sends block j of send to process j and receives block i of recv
// from process i (MPI_Alltoall); send and recv hold one block per process
// (of the remote group, on an intercommunicator), all of one length. send
// may be nil: recv holds the blocks to send and gets those received.
func Alltoall[T CollElem](c *Comm, send, recv []T) error { return iAlltoall(nil, c, send, recv) }

func iAlltoall[T CollElem](nb *nbRun, c *Comm, send, recv []T) error {
	if moveNone(c, send, recv, 0) {
		return nil
	}
	var k call
	if err := k.begin(nb, c, coll.Alltoall); err != nil {
		return err
	}
	s, r := raw(send), raw(recv)
	n := k.n()
	if len(r)%n != 0 || s != nil && len(s) != len(r) && !k.inter() || s != nil && len(s)%n != 0 {
		k.bad(ErrCount, "send (%d elements) and receive (%d) buffers are not %d equal blocks", len(send), len(recv), n)
	}
	s = k.alltoallSig(s, r)
	return k.run(func(a *coll.Actions) error { return a.Alltoall(k.cc, s, r) })
}

// Alltoallv sends send[sdispls[j]:][:scounts[j]] to process j and
// receives recv[rdispls[i]:][:rcounts[i]] from process i
// (MPI_Alltoallv); process i's scounts[j] must equal process j's
// rcounts[i]. send may be nil (with nil scounts and sdispls): recv holds
// the blocks to send, at rcounts and rdispls, and gets those received.
func Alltoallv[T CollElem](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) error {
	return iAlltoallv(nil, c, send, scounts, sdispls, recv, rcounts, rdispls)
}

func iAlltoallv[T CollElem](nb *nbRun, c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) error {
	var k call
	if err := k.begin(nb, c, coll.Alltoallv); err != nil {
		return err
	}
	es := sizeOf[T]()
	rb := k.blocks("receive", raw(recv), rcounts, rdispls, es)
	var sb [][]byte
	if send == nil && !k.inter() {
		sb = k.blocks("send", coll.Clone(raw(recv)), rcounts, rdispls, es)
	} else {
		sb = k.blocks("send", raw(send), scounts, sdispls, es)
	}
	return k.run(func(a *coll.Actions) error { return a.Alltoallv(k.cc, sb, rb) })
}

// Alltoallw is Alltoallv with a datatype per block and displacements in
// bytes (MPI_Alltoallw): scounts[j] elements of stypes[j] at
// send[sdispls[j]:] go to process j, rcounts[i] elements of rtypes[i] at
// recv[rdispls[i]:] come from process i. send may be nil (with nil
// scounts, sdispls and stypes; not on an intercommunicator): recv holds
// the blocks to send, and gets those received.
func Alltoallw(c *Comm, send []byte, scounts, sdispls []int, stypes []*Datatype, recv []byte, rcounts, rdispls []int, rtypes []*Datatype) error {
	return iAlltoallw(nil, c, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
}

func iAlltoallw(nb *nbRun, c *Comm, send []byte, scounts, sdispls []int, stypes []*Datatype, recv []byte, rcounts, rdispls []int, rtypes []*Datatype) error {
	return alltoallTyped(nb, coll.Alltoallw, c, send, scounts, sdispls, stypes, nil, recv, rcounts, rdispls, rtypes, nil)
}

// alltoallTyped is Alltoallw (types per block, displacements in bytes),
// or Alltoallv with datatypes (kind Alltoallv: the types stype and
// rtype, displacements in their extents).
func alltoallTyped(nb *nbRun, kind coll.Kind, c *Comm, send []byte, scounts, sdispls []int, stypes []*Datatype, stype *Datatype,
	recv []byte, rcounts, rdispls []int, rtypes []*Datatype, rtype *Datatype) error {
	var k call
	if err := k.begin(nil, c, kind); err != nil {
		return err
	}
	k.nb = nb
	if kind == coll.Alltoallv {
		rdispls, rtypes = k.vLayout("receive", rcounts, rdispls, rtype)
		if send != nil || k.inter() {
			sdispls, stypes = k.vLayout("send", scounts, sdispls, stype)
		}
	}
	var sb [][]byte
	if send == nil && !k.inter() {
		sb = k.typedBlocks("send", recv, rcounts, rdispls, rtypes, true) // in place
	} else {
		sb = k.typedBlocks("send", send, scounts, sdispls, stypes, true)
	}
	rb := k.typedBlocks("receive", recv, rcounts, rdispls, rtypes, false)
	return k.run(func(a *coll.Actions) error {
		f := a.Alltoallw
		if kind == coll.Alltoallv {
			f = a.Alltoallv
		}
		if err := f(k.cc, sb, rb); err != nil {
			return err
		}
		return k.then(func() error { return unpackBlocks(rb, recv, rcounts, rdispls, rtypes) })
	})
}

// reduction prepares a reduction's op and checks its buffers.
func reduction[T CollElem](k *call, op *Op) *coll.Op {
	o, typ, e := collOp[T](op)
	if e != nil {
		k.sig.Err = toColl(e)
		o = &coll.Op{Size: sizeOf[T](), Commutative: true, Apply: func(in, inout []byte) {}}
	}
	k.sig.Type = typ
	switch {
	case op == nil:
	case op.id != 0:
		k.sig.Op = op.id
	default:
		k.sig.Op = coll.UserOp
	}
	return o
}

// Reduce combines every process's send with op, element by element, into
// the root's recv (MPI_Reduce). At the root, send may be nil: its
// contribution is in recv, which gets the result.
func Reduce[T CollElem](c *Comm, send, recv []T, op *Op, root int) error {
	return iReduce(nil, c, send, recv, op, root)
}

func iReduce[T CollElem](nb *nbRun, c *Comm, send, recv []T, op *Op, root int) error {
	if reduceNone(c, send, recv, op, root) {
		return nil
	}
	var k call
	if err := k.begin(nb, c, coll.Reduce); err != nil {
		return err
	}
	o := reduction[T](&k, op)
	s, r := raw(send), raw(recv)
	isRoot := k.root(root)
	count := len(s)
	if isRoot && (s == nil || k.inter()) {
		count = len(r)
	}
	if isRoot && len(r) < count {
		k.bad(ErrBuffer, "the receive buffer (%d elements) is shorter than the send buffer (%d)", len(recv), len(send))
	}
	switch {
	case !k.inter():
		k.sig.Send = int64(count)
		if isRoot && len(r) >= count {
			r = r[:count]
		}
	case isRoot:
		k.sig.Recv = int64(count)
	case root != ProcNull:
		k.sig.Send = int64(count)
		s = k.noInPlace(s)
	}
	return k.run(func(a *coll.Actions) error { return a.Reduce(k.cc, s, r, o, root) })
}

// Allreduce combines every process's send with op into every process's
// recv (MPI_Allreduce); on an intercommunicator, each group gets the
// other's. send may be nil: each contribution is in recv.
func Allreduce[T CollElem](c *Comm, send, recv []T, op *Op) error {
	return iAllreduce(nil, c, send, recv, op)
}

func iAllreduce[T CollElem](nb *nbRun, c *Comm, send, recv []T, op *Op) error {
	if reduceNone(c, send, recv, op, 0) {
		return nil
	}
	var k call
	if err := k.begin(nb, c, coll.Allreduce); err != nil {
		return err
	}
	o := reduction[T](&k, op)
	s, r := raw(send), raw(recv)
	if s != nil && len(s) != len(r) {
		k.bad(ErrCount, "send (%d elements) and receive (%d) buffers differ", len(send), len(recv))
	}
	k.sig.Send = int64(len(r))
	if k.inter() {
		s = k.noInPlace(s)
		k.sig.Recv = int64(len(r))
	}
	return k.run(func(a *coll.Actions) error { return a.Allreduce(k.cc, s, r, o) })
}

// ReduceScatter combines every process's send (sum(counts) elements) with
// op and scatters the result: process i gets counts[i] elements in its
// recv (MPI_Reduce_scatter). Every process passes the same counts. send
// may be nil: the input is in recv (sum(counts) elements long).
func ReduceScatter[T CollElem](c *Comm, send, recv []T, counts []int, op *Op) error {
	return iReduceScatter(nil, c, send, recv, counts, op)
}

func iReduceScatter[T CollElem](nb *nbRun, c *Comm, send, recv []T, counts []int, op *Op) error {
	var k call
	if err := k.begin(nb, c, coll.ReduceScatter); err != nil {
		return err
	}
	o := reduction[T](&k, op)
	es := sizeOf[T]()
	s, r := raw(send), raw(recv)
	nl := len(k.c.group)
	total := 0
	bytes := make([]int, len(counts))
	for i, x := range counts {
		if x < 0 {
			k.bad(ErrCount, "negative count %d", x)
		}
		total += x
		bytes[i] = x * es
	}
	switch {
	case len(counts) != nl:
		k.bad(ErrArg, "%d counts for %d processes", len(counts), nl)
	case s == nil && len(recv) < total:
		k.bad(ErrBuffer, "in place, the buffer (%d elements) is shorter than the input (%d)", len(recv), total)
	case s != nil && len(send) != total:
		k.bad(ErrCount, "the send buffer has %d elements, the counts add up to %d", len(send), total)
	case s != nil && len(recv) < counts[k.c.rank]:
		k.bad(ErrBuffer, "the receive buffer (%d elements) is shorter than counts[%d] (%d)", len(recv), k.c.rank, counts[k.c.rank])
	}
	if k.sig.Err != nil {
		bytes = make([]int, nl)
	}
	k.sig.Send = int64(total * es)
	if k.inter() {
		s = k.noInPlace(s)
		k.sig.Recv = k.sig.Send
	} else {
		k.sig.Counts = digest(counts)
	}
	return k.run(func(a *coll.Actions) error { return a.ReduceScatter(k.cc, s, r, bytes, o) })
}

// ReduceScatterBlock combines every process's send (one block of
// len(recv) elements per process) with op; process i gets block i in recv
// (MPI_Reduce_scatter_block). send may be nil: recv holds the input blocks
// and gets the result in its first block.
func ReduceScatterBlock[T CollElem](c *Comm, send, recv []T, op *Op) error {
	return iReduceScatterBlock(nil, c, send, recv, op)
}

func iReduceScatterBlock[T CollElem](nb *nbRun, c *Comm, send, recv []T, op *Op) error {
	if reduceNone(c, send, recv, op, 0) {
		return nil
	}
	var k call
	if err := k.begin(nb, c, coll.ReduceScatterBlock); err != nil {
		return err
	}
	o := reduction[T](&k, op)
	s, r := raw(send), raw(recv)
	nl := len(k.c.group)
	block := len(r)
	if s == nil {
		block = len(r) / nl
		if len(r)%nl != 0 {
			k.bad(ErrCount, "in place, the buffer (%d elements) is not %d blocks", len(recv), nl)
		}
	}
	if s != nil && len(s) != nl*block {
		k.bad(ErrCount, "the send buffer has %d elements, not %d blocks of %d", len(send), nl, len(recv))
	}
	if k.inter() {
		s = k.noInPlace(s)
		k.sig.Send, k.sig.Recv = int64(len(s)), int64(nl*block)
	} else {
		k.sig.Send = int64(block)
	}
	return k.run(func(a *coll.Actions) error { return a.ReduceScatterBlock(k.cc, s, r, o) })
}

func scan[T CollElem](kind coll.Kind, c *Comm, send, recv []T, op *Op) error {
	return iscan(nil, kind, c, send, recv, op)
}

func iscan[T CollElem](nb *nbRun, kind coll.Kind, c *Comm, send, recv []T, op *Op) error {
	if reduceNone(c, send, recv, op, 0) {
		return nil
	}
	var k call
	if err := k.begin(nb, c, kind); err != nil {
		return err
	}
	o := reduction[T](&k, op)
	s, r := raw(send), raw(recv)
	if s != nil && len(s) != len(r) {
		k.bad(ErrCount, "send (%d elements) and receive (%d) buffers differ", len(send), len(recv))
	}
	if k.inter() {
		k.bad(ErrComm, "scans are defined on intracommunicators only")
	}
	k.sig.Send = int64(len(r))
	return k.run(func(a *coll.Actions) error {
		if kind == coll.Scan {
			return a.Scan(k.cc, s, r, o)
		}
		return a.Exscan(k.cc, s, r, o)
	})
}

// Scan gives process i the combination with op of the send buffers of
// processes 0 to i (MPI_Scan). send may be nil: the contribution is in
// recv.
func Scan[T CollElem](c *Comm, send, recv []T, op *Op) error {
	return scan(coll.Scan, c, send, recv, op)
}

// Exscan gives process i > 0 the combination with op of the send buffers
// of processes 0 to i-1; process 0's recv is left alone (MPI_Exscan).
// send may be nil: the contribution is in recv.
func Exscan[T CollElem](c *Comm, send, recv []T, op *Op) error {
	return scan(coll.Exscan, c, send, recv, op)
}

// gatherSig fills the signature of a Gather from its bytes (s: this
// process's block, nil in place at the root; r: the root's receive
// buffer) and returns s as the collective sends it; per is the bytes of
// one of the units that messages count in.
func (k *call) gatherSig(s, r []byte, root int, isRoot bool, per int, unit string) []byte {
	if isRoot {
		n := k.n()
		k.sig.Recv = int64(len(r) / n)
		if !k.inter() && s != nil && len(s) != len(r)/n {
			k.bad(ErrCount, "the root sends %d %s into blocks of %d", len(s)/per, unit, len(r)/n/per)
		}
	}
	if !k.rootSide(root) {
		k.sig.Send = int64(len(s))
		if isRoot && s == nil {
			k.sig.Send = k.sig.Recv
		}
	}
	if !k.inter() {
		k.sig.Recv = -1
	} else if !k.rootSide(root) {
		s = k.noInPlace(s)
	}
	return s
}

// scatterSig fills the signature of a Scatter from its bytes (s: the
// root's send buffer; r: this process's block, nil in place at the root);
// per is the bytes of one of the units that messages count in.
func (k *call) scatterSig(s, r []byte, root int, isRoot bool, per int, unit string) {
	if isRoot {
		n := k.n()
		k.sig.Send = int64(len(s) / n)
		if !k.inter() && r != nil && len(r) != len(s)/n {
			k.bad(ErrCount, "the root receives blocks of %d %s into %d", len(s)/n/per, unit, len(r)/per)
		}
	}
	if !k.inter() {
		if !isRoot {
			k.sig.Send = int64(len(r))
		}
	} else if !k.rootSide(root) {
		k.sig.Recv = int64(len(r))
	}
}

// allgatherSig checks an Allgather's block against the receive buffer's
// blocks and fills its signature (s: this process's block, nil in place;
// r: the receive buffer); it returns s as the collective sends it. per
// is the bytes of one of the units that messages count in.
func (k *call) allgatherSig(s, r []byte, per int, unit string) []byte {
	n := k.n()
	if s != nil && !k.inter() && len(s) != len(r)/n {
		k.bad(ErrCount, "sending %d %s into blocks of %d", len(s)/per, unit, len(r)/n/per)
	}
	if k.inter() {
		s = k.noInPlace(s)
		k.sig.Send, k.sig.Recv = int64(len(s)), int64(len(r)/n)
	} else {
		k.sig.Send = int64(len(r) / n)
	}
	return s
}

// alltoallSig fills an Alltoall's signature and returns its send buffer
// as the collective sends it.
func (k *call) alltoallSig(s, r []byte) []byte {
	n := k.n()
	if k.inter() {
		s = k.noInPlace(s)
		k.sig.Send, k.sig.Recv = int64(len(s)/n), int64(len(r)/n)
	} else {
		k.sig.Send = int64(len(r) / n)
	}
	return s
}
