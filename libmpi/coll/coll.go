// Package coll is the coll framework: the collective operations of a
// communicator are carried out by a coll module chosen for it, LAM's design
// (Squyres 2004, ch. 6).
//
// Every communicator gets its own module, by priority and the user's
// "-ssi coll a,b" list, when it is first used for a collective (choosing is
// local; nothing is exchanged). A module's Init may communicate, for
// example to make hidden sub-communicators with Split; any collective a
// module does not provide falls back to lam_basic's. Modules are written on
// point-to-point: the communicator's Transport moves bytes on a context of
// its own, so that collective traffic never matches the program's messages,
// and every message is tagged with the collective it belongs to, its root,
// op and size, so that a process can tell when the others called something
// else.
//
// The mpi package makes a Comm for each communicator and calls the
// exported methods (Run for the public entry points); the modules (the
// packages basic and smp) implement Module and use the helpers on Comm
// (Send, Recv, Isend, Irecv, Wait, Sub).
package coll

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/lamgo/lam/shared/ssi"
)

// Kind names a collective operation.
type Kind uint8

// The collectives, and Check (the agreement on arguments that precedes a
// collective when coll_base_check is on).
const (
	Barrier Kind = iota + 1
	Bcast
	Gather
	Gatherv
	Scatter
	Scatterv
	Allgather
	Allgatherv
	Alltoall
	Alltoallv
	Alltoallw
	Reduce
	Allreduce
	ReduceScatter
	ReduceScatterBlock
	Scan
	Exscan
	Check
	numKinds
)

var kindNames = [...]string{"", "MPI_Barrier", "MPI_Bcast", "MPI_Gather", "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv",
	"MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoall", "MPI_Alltoallv", "MPI_Alltoallw", "MPI_Reduce", "MPI_Allreduce",
	"MPI_Reduce_scatter", "MPI_Reduce_scatter_block", "MPI_Scan", "MPI_Exscan", "argument check"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && k > 0 {
		return kindNames[k]
	}
	return fmt.Sprintf("collective %d", int(k))
}

// Root and ProcNull are the root arguments of the root group of an
// intercommunicator collective: Root on the root itself, ProcNull on the
// other processes of its group. They have the values the mpi package's
// Root and ProcNull have.
const (
	Root     = -4
	ProcNull = -2
	// AnySource and AnyTag are the wildcards of Transport.Irecv.
	AnySource = -1
	AnyTag    = -1
)

// Op is a reduction as a module sees it: a function over byte slices that
// hold whole elements.
type Op struct {
	// Apply sets inout[i] = in[i] ∘ inout[i] for every element: in holds
	// the contribution of the lower ranks.
	Apply func(in, inout []byte)
	// Commutative ops may be combined in any order of ranks.
	Commutative bool
	// Exact ops (integer arithmetic and logic, max and min) give the same
	// bits however they are grouped, so modules may regroup them even when
	// coll_base_associative is 0.
	Exact bool
	// Size is the size of one element in bytes.
	Size int

	withCall atomic.Pointer[Op] // WithCall's last for this op (its Size says for what size)
}

// Class is the kind of a collective's error. The mpi package maps each to
// its MPI error class.
type Class int

// The classes.
const (
	ErrOther Class = iota
	ErrCount
	ErrRoot
	ErrOp
	ErrType
	ErrArg
	ErrBuffer
	ErrComm
	ErrTruncate
	ErrIntern
	ErrRank
	ErrProcFailed // a process the collective waited for died
)

// Error is a collective's error.
type Error struct {
	Class Class
	Msg   string
	Err   error // the cause, if any
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// Errorf makes an Error.
func Errorf(c Class, format string, args ...any) *Error {
	return &Error{Class: c, Msg: fmt.Sprintf(format, args...)}
}

// ErrTruncated is what a Transport's Wait wraps when a message was longer
// than the receive buffer.
var ErrTruncated = errors.New("message truncated")

// Status describes a completed receive.
type Status struct {
	Source, Tag int
	Count       int // bytes received
}

// Request is a send or receive under way.
type Request interface {
	// Wait waits for it to complete. The error wraps ErrTruncated for a
	// receive whose message was too long (the status is still valid);
	// other errors are fatal to the collective (a dead peer). It is
	// called once: the transport may reuse the request afterwards.
	Wait() (Status, error)
}

// Transport is a communicator's point-to-point on its collective context,
// as the mpi package (or a test) provides it. Ranks are in the local group;
// on an intercommunicator, the destinations and sources of Isend and Irecv
// are ranks of the remote group.
type Transport interface {
	Rank() int
	Size() int
	// RemoteSize is the size of the remote group, 0 for an
	// intracommunicator.
	RemoteSize() int
	// Node is the node a rank of the local group runs on.
	Node(rank int) int32
	Isend(buf []byte, dest, tag int) (Request, error)
	Irecv(buf []byte, source, tag int) (Request, error)
	// Split makes a hidden sub-communicator of an intracommunicator
	// (MPI_Comm_split; nil for color -1), with a coll module of its own.
	Split(color, key int) (*Comm, error)
	// Local is the hidden intracommunicator of an intercommunicator's
	// local group (nil for an intracommunicator).
	Local() *Comm
	// Free releases a sub-communicator made by Split.
	Free() error
	// Name names the communicator in messages.
	Name() string
}

// Sharer is implemented by transports whose communicator's processes of
// one node can share memory (the shmem module needs it).
type Sharer interface {
	// SharedPath is a path, unique to the communicator and this node
	// within the job, under which the communicator's processes of the node
	// may create a shared-memory area ("" if they cannot).
	SharedPath() string
	// PID is the process id of a rank of the local group (0 if unknown),
	// so that a module can notice a peer that died.
	PID(rank int) int
	// Oversubscribed says that the job's processes of this node
	// outnumber the processors they may run on (the union of their
	// affinity masks): a waiter then should not spin.
	Oversubscribed() bool
}

// Receiver is implemented by transports with a blocking receive cheaper
// than Irecv and Wait. Its error is as Request.Wait's.
type Receiver interface {
	Recv(buf []byte, source, tag int) (Status, error)
}

// Actions are a module's collectives on one communicator. Buffers are
// bytes; counts and displacements are already bytes. A nil function falls
// back to lam_basic's. The functions run with the communicator locked;
// what a peer sent that does not fit is recorded (Comm.Recv) and reported
// when the collective ends, so a function returns an error only when it
// cannot go on.
//
// send is nil "in place" (MPI_IN_PLACE) where noted.
type Actions struct {
	Barrier func(c *Comm) error
	Bcast   func(c *Comm, buf []byte, root int) error
	// Gather: every process sends send; the root receives recv, the
	// blocks in rank order. In place: the root's block is already in recv.
	Gather func(c *Comm, send, recv []byte, root int) error
	// Gatherv: the root receives rank i's block into recv[i].
	Gatherv func(c *Comm, send []byte, recv [][]byte, root int) error
	// Scatter: the root sends block i of send to rank i. In place: recv is
	// nil at the root.
	Scatter  func(c *Comm, send, recv []byte, root int) error
	Scatterv func(c *Comm, send [][]byte, recv []byte, root int) error
	// Allgather: everyone's send, in rank order, into everyone's recv. In
	// place: each block is already in recv.
	Allgather  func(c *Comm, send, recv []byte) error
	Allgatherv func(c *Comm, send []byte, recv [][]byte) error
	// Alltoall: block i of send goes to rank i; block j of recv comes from
	// rank j.
	Alltoall func(c *Comm, send, recv []byte) error
	// Alltoallv (and Alltoallw, whose blocks the caller packed): send[i]
	// goes to rank i, recv[j] comes from rank j.
	Alltoallv func(c *Comm, send, recv [][]byte) error
	Alltoallw func(c *Comm, send, recv [][]byte) error
	// Reduce: the root gets the reduction of everyone's send in recv. In
	// place at the root: its contribution is in recv.
	Reduce    func(c *Comm, send, recv []byte, op *Op, root int) error
	Allreduce func(c *Comm, send, recv []byte, op *Op) error
	// ReduceScatter: the reduction of everyone's send (of sum(counts)
	// bytes), of which rank i gets counts[i] bytes in recv. In place:
	// the input is in recv.
	ReduceScatter func(c *Comm, send, recv []byte, counts []int, op *Op) error
	// ReduceScatterBlock: rank i gets block i (of len(recv) bytes). In
	// place: recv holds the n blocks of input; the result goes to its
	// first block.
	ReduceScatterBlock func(c *Comm, send, recv []byte, op *Op) error
	Scan               func(c *Comm, send, recv []byte, op *Op) error
	// Exscan leaves rank 0's recv alone.
	Exscan func(c *Comm, send, recv []byte, op *Op) error
	// Agree, if a module has it, is the argument check's first step on
	// an intracommunicator: it reports whether every process gave the same
	// digest of its call, the same answer on every process, waiting for
	// every process as a Barrier does. Without it the check reduces the
	// digests with Allreduce. It does not fall back to lam_basic's: a
	// module whose Allreduce runs on sub-communicators (smp) checks through
	// them, which also sets them up on every process before a nonblocking
	// collective needs them.
	Agree func(c *Comm, digest uint64) (bool, error)
	// Carries, if a module has it, reports whether its function for sig
	// carries the argument check's digest in its own messages (Carry,
	// Carried) instead of a check before it. It does not fall back to
	// lam_basic's: only the module's own functions can carry.
	Carries func(c *Comm, sig Sig) bool
	// SendsCall, if a module has it, reports whether its function for
	// sig, which Carries, sends the call with its data at
	// coll_base_check=1 instead (Comm.SendsCall, PutCall, JudgeCall):
	// only the processes that receive data compare, and those that only
	// send return without a round back. It does not fall back to
	// lam_basic's.
	SendsCall func(c *Comm, sig Sig) bool
	// SentOwnError, if a module has it, is what a process whose own
	// arguments were wrong (sig.Err) does in place of a collective that
	// sends its call (SendsCall): it takes its part without data, so that
	// the processes stay in step, and tells whoever waits for its data
	// (PutCall or SentDigest give its call, with the error). Without it
	// the process returns its error and takes no part, as lam_basic's
	// senders do (its receivers then wait for a message not sent).
	SentOwnError func(c *Comm, sig Sig)
	// SentBounded says that the module's collectives that send their
	// call bound by themselves how far the senders run ahead of the
	// receivers (shmem: a writer waits for its buffer to be read before
	// it writes it again), so the framework's flow control
	// (coll_base_sent_sync) adds nothing to them. It must: processes that
	// run some of those collectives without the framework (the C fast
	// path) would count them differently.
	SentBounded bool
	// ReportsWaits has bit k set when the module's function for the
	// collective of Kind k (and its Agree, Carries and SendsCall rounds)
	// tells the communicator when it waits for other processes
	// (Comm.Waiting), so that a blocking collective is shown as waiting
	// (Watch) only while it does. It does not fall back to lam_basic's:
	// a collective whose bit is clear is shown as waiting from start to
	// end.
	ReportsWaits uint64
}

// fill replaces a's nil functions with those of b.
func (a *Actions) fill(b *Actions) {
	if b == nil {
		return
	}
	if a.Barrier == nil {
		a.Barrier = b.Barrier
	}
	if a.Bcast == nil {
		a.Bcast = b.Bcast
	}
	if a.Gather == nil {
		a.Gather = b.Gather
	}
	if a.Gatherv == nil {
		a.Gatherv = b.Gatherv
	}
	if a.Scatter == nil {
		a.Scatter = b.Scatter
	}
	if a.Scatterv == nil {
		a.Scatterv = b.Scatterv
	}
	if a.Allgather == nil {
		a.Allgather = b.Allgather
	}
	if a.Allgatherv == nil {
		a.Allgatherv = b.Allgatherv
	}
	if a.Alltoall == nil {
		a.Alltoall = b.Alltoall
	}
	if a.Alltoallv == nil {
		a.Alltoallv = b.Alltoallv
	}
	if a.Alltoallw == nil {
		a.Alltoallw = b.Alltoallw
	}
	if a.Reduce == nil {
		a.Reduce = b.Reduce
	}
	if a.Allreduce == nil {
		a.Allreduce = b.Allreduce
	}
	if a.ReduceScatter == nil {
		a.ReduceScatter = b.ReduceScatter
	}
	if a.ReduceScatterBlock == nil {
		a.ReduceScatterBlock = b.ReduceScatterBlock
	}
	if a.Scan == nil {
		a.Scan = b.Scan
	}
	if a.Exscan == nil {
		a.Exscan = b.Exscan
	}
}

// Module is a coll module.
type Module interface {
	ssi.Module
	// QueryComm reports whether the module can serve c, and with what
	// priority (negative: it cannot). It must not communicate.
	QueryComm(c *Comm) (int, error)
	// Init readies the module on c and returns its functions (nil ones
	// fall back to lam_basic's). It may communicate on c, and make hidden
	// sub-communicators with c.T.Split, whose collectives use lam_basic
	// or whatever is chosen for them.
	Init(c *Comm) (*Actions, error)
	// Finalize releases what Init made. It must not communicate.
	Finalize(c *Comm) error
}

// Register registers a coll module from its package's init.
func Register(m Module) { ssi.Register(m) }

// BasicName is the module every communicator can fall back on.
const BasicName = "lam_basic"

// The framework's parameters.
var (
	ParamCrossover       = ssi.FullName(ssi.Coll, "base", "crossover")
	ParamReduceCrossover = ssi.FullName(ssi.Coll, "base", "reduce_crossover")
	ParamAssociative     = ssi.FullName(ssi.Coll, "base", "associative")
	ParamCheck           = ssi.FullName(ssi.Coll, "base", "check")
	ParamSmall           = ssi.FullName(ssi.Coll, "base", "small")
	ParamAllgatherRing   = ssi.FullName(ssi.Coll, "base", "allgather_ring")
	ParamBcastScatter    = ssi.FullName(ssi.Coll, "base", "bcast_scatter")
	ParamAlltoallPair    = ssi.FullName(ssi.Coll, "base", "alltoall_pairwise")
	ParamSentSync        = ssi.FullName(ssi.Coll, "base", "sent_sync")
	ParamSentSize        = ssi.FullName(ssi.Coll, "base", "sent_size")
	ParamBcastWhole      = ssi.FullName(ssi.Coll, "base", "bcast_whole")
	ParamLinearBlock     = ssi.FullName(ssi.Coll, "base", "linear_block")
	ParamAllreduceDirect = ssi.FullName(ssi.Coll, "base", "allreduce_direct")
)

func init() {
	ssi.RegisterParams(ssi.Coll, "base",
		ssi.Param{Name: "crossover", Default: "4", Type: ssi.Int,
			Help: "Largest number of processes for which lam_basic uses linear algorithms; above it, binomial trees"},
		ssi.Param{Name: "reduce_crossover", Default: "512", Type: ssi.Size,
			Help: "Bytes per process above which lam_basic's Allreduce and Reduce_scatter of a commutative op use reduce-scatter and allgather instead of a reduction tree"},
		ssi.Param{Name: "associative", Default: "0", Type: ssi.Bool,
			Help: "1 lets modules regroup floating-point reductions (smp: reduce on each node first); 0 keeps results bit-identical for a given number of processes"},
		ssi.Param{Name: "check", Default: "1", Type: ssi.Int,
			Help: "0: collectives trust their arguments; 1: they check that the processes' calls (collective, root, sizes, op, type) agree, a small Bcast, Gather or Scatter of lam_basic's by the processes that receive data, from the call carried with it (its senders return at once), every other collective on every process; 2: every collective on every process, so a mismatch is an error everywhere instead of a hang"},
		ssi.Param{Name: "small", Default: "512", Type: ssi.Size,
			Help: "Bytes per process (for Scatter and Alltoall, its n blocks) up to which lam_basic's Bcast, Gather, Scatter, Allgather, Alltoall, Reduce and Allreduce gather every process's part on every process (log2 n exchanges), carrying coll_base_check's digests instead of checking first; Allreduce also without the check. Reductions: at most coll_base_reduce_crossover"},
		ssi.Param{Name: "allgather_ring", Default: "16384", Type: ssi.Size,
			Help: "Bytes per process above which lam_basic's Allgather passes the blocks around a ring (n-1 steps; on a communicator of one node, every send and receive at once) instead of Bruck's algorithm (log2 n steps)"},
		ssi.Param{Name: "bcast_scatter", Default: "262144", Type: ssi.Size,
			Help: "Bytes above which lam_basic's Bcast to three or more processes scatters the message in n pieces and passes them around a ring, instead of sending it whole along a tree"},
		ssi.Param{Name: "alltoall_pairwise", Default: "1048576", Type: ssi.Size,
			Help: "Bytes per block above which lam_basic's Alltoall exchanges with one process at a time (n-1 steps), instead of starting every send and receive at once, on a communicator of more than one node (on one node the shared-memory rpis copy each block once, and every transfer starts at once)"},
		ssi.Param{Name: "bcast_whole", Default: "262144", Type: ssi.Size,
			Help: "Bytes above which lam_basic's Bcast to three or more processes sends the message whole again (from the root to each process on one node, whatever their number; across nodes, linear up to coll_base_crossover processes and a binomial tree above) instead of coll_base_bcast_scatter's scatter and ring, which so takes the sizes between the two (none by default); 0: never"},
		ssi.Param{Name: "linear_block", Default: "4096", Type: ssi.Size,
			Help: "Bytes per process above which lam_basic's Gather and Scatter send every block straight between the root's buffer and its process whatever the number of processes, instead of a binomial tree above coll_base_crossover processes; 0: never"},
		ssi.Param{Name: "allreduce_direct", Default: "0", Type: ssi.Size,
			Help: "Bytes per process above which lam_basic's Allreduce of a commutative op on a communicator of one node has each process read its n-th of every other process's input at once, reduce it, and send the result to every other process at once (two rounds), instead of reduce-scatter and allgather by recursive halving and doubling (2 log2 n exchanges); the same grouping, so the same bits; 0: never"},
		ssi.Param{Name: "sent_size", Default: "16384", Type: ssi.Size,
			Help: "Bytes (a Bcast's message; a Gather's or Scatter's n blocks) up to which, at coll_base_check=1, a Bcast, Gather or Scatter larger than coll_base_small sends the call with its data too, its processes that only send returning at once, instead of a check on every process first (one synchronising round less); 0: only up to coll_base_small"},
		ssi.Param{Name: "sent_sync", Default: "64", Type: ssi.Int,
			Help: "At coll_base_check=1, every so many collectives that send the call with their data on a communicator (a small Bcast, Gather, Scatter; smp's Reduce; counted apart, the small Ibcast, Igather, Iscatter, Ireduce), the processes that only send wait for an acknowledgement from those that receive, so that a receiver slower than its senders has at most that many calls' messages queued (at coll_base_check=0, the same for the small Bcast, Gather, Scatter and Reduce whose senders return at once); 0: never"},
	)
}

// Params are the framework's parameters as one communicator sees them.
type Params struct {
	Crossover       int
	ReduceCrossover int
	Associative     bool
	Check           bool // coll_base_check is 1 or 2
	CheckAll        bool // coll_base_check is 2: every process learns of every mismatch
	Small           int
	AllgatherRing   int
	BcastScatter    int
	AlltoallPair    int
	SentSync        int // coll_base_sent_sync
	SentSize        int // coll_base_sent_size
	BcastWhole      int // coll_base_bcast_whole (0: never)
	LinearBlock     int // coll_base_linear_block (0: never)
	AllreduceDirect int // coll_base_allreduce_direct (0: never)
}

// ReadParams reads the framework's parameters.
func ReadParams(s *ssi.Settings) (Params, error) {
	var p Params
	var errs []error
	var err error
	p.Crossover, err = s.Int(ParamCrossover)
	errs = append(errs, err)
	rc, err := s.Size(ParamReduceCrossover)
	p.ReduceCrossover = int(rc)
	errs = append(errs, err)
	p.Associative, err = s.Bool(ParamAssociative)
	errs = append(errs, err)
	level, err := s.Int(ParamCheck)
	errs = append(errs, err)
	if err == nil && (level < 0 || level > 2) {
		errs = append(errs, fmt.Errorf("%s is %d: 0, 1 or 2", ParamCheck, level))
	}
	p.Check, p.CheckAll = level >= 1, level >= 2
	sm, err := s.Size(ParamSmall)
	p.Small = int(sm)
	errs = append(errs, err)
	ar, err := s.Size(ParamAllgatherRing)
	p.AllgatherRing = int(ar)
	errs = append(errs, err)
	bs, err := s.Size(ParamBcastScatter)
	p.BcastScatter = int(bs)
	errs = append(errs, err)
	ap, err := s.Size(ParamAlltoallPair)
	p.AlltoallPair = int(ap)
	errs = append(errs, err)
	bw, err := s.Size(ParamBcastWhole)
	p.BcastWhole = int(bw)
	errs = append(errs, err)
	lb, err := s.Size(ParamLinearBlock)
	p.LinearBlock = int(lb)
	errs = append(errs, err)
	ad, err := s.Size(ParamAllreduceDirect)
	p.AllreduceDirect = int(ad)
	errs = append(errs, err)
	p.SentSync, err = s.Int(ParamSentSync)
	errs = append(errs, err)
	if err == nil && p.SentSync < 0 {
		errs = append(errs, fmt.Errorf("%s is %d: 0 or more", ParamSentSync, p.SentSync))
	}
	ss, err := s.Size(ParamSentSize)
	p.SentSize = int(ss)
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return p, fmt.Errorf("coll: %w", err)
	}
	if p.Crossover < 1 {
		p.Crossover = 1
	}
	return p, nil
}

// SentCall reports whether, at coll_base_check=1, a Bcast, Gather or
// Scatter of b bytes per process (a Bcast's message, a block of the
// others) on n processes sends its call with its data: up to
// coll_base_small (Scatter: its n blocks), or up to coll_base_sent_size
// (Gather and Scatter: their n blocks). Other collectives never do.
func (p *Params) SentCall(kind Kind, n, b int) bool {
	switch kind {
	case Bcast:
		return b <= p.Small || b <= p.SentSize
	case Gather:
		return b <= p.Small || n*b <= p.SentSize
	case Scatter:
		return n*b <= p.Small || n*b <= p.SentSize
	}
	return false
}

// Comm is a communicator as the coll framework sees it.
type Comm struct {
	// T is the communicator's point-to-point.
	T Transport
	// Params are the framework's parameters.
	Params Params
	// Data is the chosen module's data for this communicator.
	Data any

	mu       sync.Mutex
	settings *ssi.Settings
	module   Module
	act      Actions
	ready    bool
	freed    bool
	initErr  error
	scratch  [nScratch][]uint64 // buffers kept for reuse (Scratch)
	tag      int32              // the current collective's tag
	fault    *Error             // the first mismatch seen in the current collective
	parent   *Comm              // while running as a sub-communicator of parent
	selected string
	carry    carry   // the argument check carried by the running collective
	lastSig  lastSig // sigDigest's last call
	sent     uint64  // the collectives run that sent their call (syncSent)
	rec      recorder
	watcher
	nbcState
}

// New makes the framework's view of a communicator. Setup chooses and
// initialises its module; otherwise the first collective does.
func New(t Transport, s *ssi.Settings) *Comm {
	return &Comm{T: t, settings: s}
}

// Setup chooses and initialises the communicator's module now. It is
// collective over the communicator's processes (a module's setup may
// communicate: smp splits the communicator, shmem agrees on an area), so
// the communicator's maker calls it where every process makes it, before
// any collective: set up by its first collective instead, a communicator
// whose first one is nonblocking could deadlock with another's, since
// processes may start the nonblocking collectives of several
// communicators in different orders. An error is also kept for every
// collective of the communicator to return.
func (c *Comm) Setup() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.setup()
}

// Rank is this process's rank in the (local group of the) communicator.
func (c *Comm) Rank() int { return c.T.Rank() }

// Size is the size of the (local group of the) communicator.
func (c *Comm) Size() int { return c.T.Size() }

// Inter reports whether the communicator is an intercommunicator.
func (c *Comm) Inter() bool { return c.T.RemoteSize() > 0 }

// OneNode reports whether every process of c is on one node (Node).
func (c *Comm) OneNode() bool {
	node := c.T.Node(0)
	for r := 1; r < c.Size(); r++ {
		if c.T.Node(r) != node {
			return false
		}
	}
	return true
}

// Settings are the SSI settings the communicator was made with.
func (c *Comm) Settings() *ssi.Settings { return c.settings }

// Module returns the name of the module chosen for the communicator,
// choosing it if need be ("" if none can be).
func (c *Comm) Module() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.selected == "" && c.initErr == nil {
		if m, err := c.choose(); err == nil {
			c.selected = m.SSI().Name
		}
	}
	return c.selected
}

// Actions returns the communicator's resolved functions (for modules that
// run a collective of a sub-communicator they made; see Sub).
func (c *Comm) Actions() *Actions { return &c.act }

// setup chooses and initialises the module. c.mu is held.
func (c *Comm) setup() error {
	if c.ready {
		return nil
	}
	if c.freed {
		return Errorf(ErrComm, "the communicator was freed")
	}
	if c.initErr != nil {
		return c.initErr
	}
	err := c.setupOnce()
	if err != nil {
		c.initErr = err
	}
	return err
}

func (c *Comm) setupOnce() error {
	p, err := ReadParams(c.settings)
	if err != nil {
		return &Error{Class: ErrArg, Msg: err.Error(), Err: err}
	}
	c.Params = p
	basic, ok := ssi.Lookup(ssi.Coll, BasicName)
	bm, ok2 := basic.(Module)
	if !ok || !ok2 {
		return Errorf(ErrIntern, "coll: the %s module is not built in", BasicName)
	}
	m, err := c.choose()
	if err != nil {
		return err
	}
	c.selected = m.SSI().Name
	// lam_basic's functions, which every module falls back on. They are
	// in place first so that a module's Init can run collectives on c.
	ba, err := bm.Init(c)
	if err != nil {
		return &Error{Class: ErrOther, Msg: fmt.Sprintf("coll: %s on %s: %v", BasicName, c.T.Name(), err), Err: err}
	}
	c.act = *ba
	if m.SSI().Name != BasicName {
		c.tag = tagOf(Sig{Kind: Check})
		a, err := m.Init(c)
		if err != nil {
			return &Error{Class: ErrOther, Msg: fmt.Sprintf("coll: module %s on %s: %v", m.SSI().Name, c.T.Name(), err), Err: err}
		}
		act := *a
		act.fill(ba)
		c.act = act
	}
	if err := c.setupNonblocking(bm, m); err != nil {
		return err
	}
	c.module = m
	c.ready = true
	return nil
}

// Scratch slots: each algorithm that keeps a buffer between calls names
// the slot it uses, so that algorithms that call each other never share
// one.
const (
	ScratchRSAG = iota
	ScratchReduce
	ScratchModule  // for modules other than lam_basic
	ScratchModule2 // and a second one
	ScratchMine    // a root's own contribution, reducing in place
	ScratchCheck   // the argument check's signature
	ScratchCheck2  // and its reduction
	ScratchDigest  // the check's digest of the signature, and its reduction
	ScratchCall    // a call sent with the data (coll_base_check=1)
	ScratchCall2   // and the calls received
	ScratchWindow  // and the three after it: contributions on their way
	nScratch       = ScratchWindow + 4
)

// Scratch returns n bytes, aligned for any element type and not zeroed,
// that the communicator keeps for the next collective: large reductions
// would otherwise allocate (and the kernel zero) megabytes per call. Only
// the collective running on c may use them.
func (c *Comm) Scratch(slot, n int) []byte {
	w := (n + 7) / 8
	if cap(c.scratch[slot]) < w {
		c.scratch[slot] = make([]uint64, w)
	}
	return bytesOfWords(c.scratch[slot][:w])[:n]
}

// Free finalises the module on the communicator (a local action).
func (c *Comm) Free() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.freed = true
	c.scratch = [nScratch][]uint64{}
	c.freeMu.Lock()
	c.free, c.freeShut = nil, true
	c.freeMu.Unlock()
	if !c.ready {
		return nil
	}
	c.ready = false
	return c.module.Finalize(c)
}

// Sig is what a collective's processes must agree on, as the mpi package
// describes a call. Counts are bytes.
type Sig struct {
	Kind Kind
	// Root is the root (intracommunicator), or Root, ProcNull or the
	// root's rank in the remote group (intercommunicator); 0 for
	// collectives without one.
	Root int
	// Send and Recv are the sizes that must match: on an
	// intracommunicator every process's Send must be equal (Recv is not
	// used); on an intercommunicator each group's Send must equal the
	// other's Recv. -1 means "does not take part".
	Send, Recv int64
	// Op is 1 + the index of a predefined op, UserOp for a user's, 0 for
	// none; Type the element type of a reduction (0 for none).
	Op, Type int
	// Counts is a digest of count arrays that must be the same everywhere
	// (0 for none).
	Counts uint64
	// Err is this process's own argument error; the process still takes
	// part in the check so that the others learn of it and nobody hangs.
	Err *Error
}

// set makes s a copy of t, field by field: t was just written so (the
// mpi package fills a call's Sig one field at a time), and a whole-struct
// copy would read it in 16-byte moves that wait for those stores.
func (s *Sig) set(t *Sig) {
	s.Kind, s.Root, s.Send, s.Recv, s.Op, s.Type, s.Counts, s.Err = t.Kind, t.Root, t.Send, t.Recv, t.Op, t.Type, t.Counts, t.Err
}

// same reports whether s and t are the same call, field by field (a
// struct's == calls memequal, several times the cost here).
func (s *Sig) same(t *Sig) bool {
	return s.Kind == t.Kind && s.Root == t.Root && s.Send == t.Send && s.Recv == t.Recv &&
		s.Op == t.Op && s.Type == t.Type && s.Counts == t.Counts && s.Err == t.Err
}

// UserOp is the Op of a Sig for every user-defined op.
const UserOp = 31

// Run runs a collective: it chooses and readies the module if need be,
// checks the arguments with the other processes (coll_base_check), runs f
// with the communicator's functions, and reports the first mismatch seen.
func (c *Comm) Run(sig Sig, f func(a *Actions) error) error { return c.RunCall(&sig, f) }

// RunCall is Run for the call *sig, which it does not keep: a caller
// that builds the Sig field by field passes it without a copy (a Sig
// copied whole right after is read in 16-byte moves, each of which waits
// for the 8-byte stores it spans to reach the cache).
func (c *Comm) RunCall(sig *Sig, f func(a *Actions) error) error {
	if sig.Err == nil && zeroSize(c, sig) { // nothing to move (Empty, unless the way is recorded)
		if c.rec.on.Load() {
			c.mu.Lock()
			c.note(sig, WayZero, 0)
			c.mu.Unlock()
		}
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.setup(); err != nil {
		return err
	}
	switch {
	case c.watch == nil:
	case c.act.ReportsWaits&(1<<sig.Kind) != 0:
		// The module says when it waits (Waiting).
		c.watching, c.wkind, c.wroot = true, sig.Kind, sig.Root
		err := c.runChecked(sig, f)
		c.watching = false
		if c.waits > 0 { // a wait the module did not end
			c.waits = 0
			c.watch(sig.Kind, sig.Root, false)
		}
		return err
	default:
		c.watch(sig.Kind, sig.Root, true)
		err := c.runChecked(sig, f)
		c.watch(sig.Kind, sig.Root, false)
		return err
	}
	return c.runChecked(sig, f)
}

// runChecked is Run's check (coll_base_check) and collective. c.mu is
// held.
func (c *Comm) runChecked(sig *Sig, f func(a *Actions) error) error {
	if c.Params.Check {
		switch way, digest := c.checkWay(sig); way {
		case waySent:
			if sig.Err != nil {
				if c.act.SentOwnError != nil {
					c.sending(sig, c.sigDigest(sig))
					c.act.SentOwnError(c, *sig)
					c.carry = carry{}
				}
				// Nobody waits for a round back from it, but for the
				// acknowledgement of the flow control.
				if c.nextSync() {
					s := *sig
					c.runAsCheck(sig, func(*Actions) error { return c.syncSent(s, true) })
				}
				return sig.Err
			}
			return c.runSent(sig, digest, f)
		case wayCarried:
			return c.runCarried(sig, digest, f)
		}
		if err := c.agree(sig); err != nil {
			return err
		}
		if sig.Kind == Barrier {
			return nil // the check waited for every process
		}
	} else {
		if c.sendsAhead(sig) && c.nextSync() {
			return c.runSynced(sig, f)
		}
		if sig.Err != nil {
			return sig.Err
		}
	}
	return c.run(sig, f)
}

// The ways runChecked runs a call at coll_base_check ≥ 1.
const (
	wayAsk     = iota // not known yet (lastSig.way)
	wayAgree          // the check (agree), then the collective
	wayCarried        // the collective carries the check (runCarried)
	waySent           // the collective sends its call with its data (runSent)
)

// checkWay returns how runChecked runs sig, and sig's digest (unless it
// has an argument error). The way of the last call without an argument
// error is kept with its digest (lastSig): what the module answers
// (Carries, SendsCall) depends on the call alone.
func (c *Comm) checkWay(sig *Sig) (way uint8, digest uint64) {
	if sig.Err == nil && c.lastSig.ok && c.lastSig.way != wayAsk && sig.same(&c.lastSig.sig) {
		return c.lastSig.way, c.lastSig.digest
	}
	way = wayAgree
	if c.act.Carries != nil && !c.Inter() && c.act.Carries(c, *sig) {
		switch {
		case !c.Params.CheckAll && c.act.SendsCall != nil && c.act.SendsCall(c, *sig):
			way = waySent
		case sig.Err == nil:
			way = wayCarried
		}
	}
	if sig.Err != nil {
		return way, 0
	}
	digest = c.sigDigest(sig)
	c.lastSig.way = way
	return way, digest
}

// watcher is what a communicator tells of the waits of its blocking
// collectives (Watch).
type watcher struct {
	watch    func(kind Kind, root int, begin bool)
	watching bool // the running collective's module reports its waits
	wkind    Kind // the running collective's kind and root, while watching
	wroot    int
	waits    int // Waiting(true) calls not yet ended
}

// Watch makes Run tell f when a blocking collective of c waits for other
// processes (begin true) and when it stops (begin false), with the
// collective's kind and root: for the whole collective, or, when its
// module reports its waits (Actions.ReportsWaits), only while it waits
// beyond a short spin (mpitask shows a process in a collective while it
// waits there, as in a receive). f runs with c's lock held; call Watch
// before the first collective.
func (c *Comm) Watch(f func(kind Kind, root int, begin bool)) {
	c.mu.Lock()
	c.watch = f
	c.mu.Unlock()
}

// Waiting is what a module whose Actions have ReportsWaits calls when a
// collective begins (begin true) and ends a wait for other processes, or
// hands its work to functions that do not report their waits (lam_basic's
// over point-to-point); calls may nest. c.mu is held (the module runs
// within Run). A nil c is no communicator: nothing is told.
func (c *Comm) Waiting(begin bool) {
	if c == nil || !c.watching {
		return
	}
	if begin {
		c.waits++
		if c.waits == 1 {
			c.watch(c.wkind, c.wroot, true)
		}
		return
	}
	if c.waits > 0 {
		c.waits--
		if c.waits == 0 {
			c.watch(c.wkind, c.wroot, false)
		}
	}
}

// Empty reports whether a call of sig has nothing to do at all: it moves
// nothing (zeroSize), the process's own arguments are right, and nobody
// records how collectives ran. Run returns nil for it; a caller may skip
// its own bookkeeping of the call as well.
func (c *Comm) Empty(sig *Sig) bool {
	return sig.Err == nil && !c.rec.on.Load() && zeroSize(c, sig)
}

// run runs f with the tag of sig. c.mu is held.
func (c *Comm) run(sig *Sig, f func(a *Actions) error) error {
	if c.Inter() {
		// Both groups tag with the root's rank in its group, and the sum
		// of what a process sends and receives per block, which the two
		// sides see alike.
		t := *sig
		if t.Root == Root {
			t.Root = c.Rank()
		}
		t.Send, t.Recv = max(t.Send, 0), max(t.Recv, 0)
		return c.runTagged(sig, tagOf(t), f)
	}
	return c.runTagged(sig, tagOfCall(sig.Kind, sig.Root, sig.Op, sig.Send, 0), f)
}

// runTagged runs f for sig with its messages tagged tag. c.mu is held.
func (c *Comm) runTagged(sig *Sig, tag int32, f func(a *Actions) error) error {
	c.tag = tag
	c.fault = nil
	err := f(&c.act)
	if err == nil && c.fault != nil {
		err = c.fault
	}
	c.fault = nil
	if err != nil {
		var ce *Error // declared here: errors.As moves it to the heap
		if !errors.As(err, &ce) {
			err = &Error{Class: ErrOther, Msg: fmt.Sprintf("%s on %s: %v", sig.Kind, c.T.Name(), err), Err: err}
		}
	}
	return err
}

// Sub runs f on s, a sub-communicator c's module made (or c's Local), as
// part of the collective running on c: s's messages are tagged for kind
// and root, and what goes wrong on s is reported by c.
func (c *Comm) Sub(s *Comm, kind Kind, root int, f func(a *Actions) error) error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.setup(); err != nil {
		return err
	}
	if !s.exact { // a nonblocking collective's view keeps its tag
		s.tag = tagOf(Sig{Kind: kind, Root: root})
	}
	s.fault = nil
	err := f(&s.act)
	if s.fault != nil && c.fault == nil {
		c.fault = s.fault
	}
	s.fault = nil
	return err
}

// choose picks the module for c: the user's list (or every module), by
// priority; lam_basic when none of those listed can serve c.
func (c *Comm) choose() (Module, error) {
	var cands []bound
	for _, m := range ssi.Modules(ssi.Coll) {
		if cm, ok := m.(Module); ok {
			cands = append(cands, bound{cm, c})
		}
	}
	chosen, _, err := ssi.Select(context.Background(), ssi.Coll, c.settings, cands)
	if err != nil {
		var se *ssi.SelectError
		if errors.As(err, &se) && errors.Is(err, ssi.ErrNoModule) && len(se.Requested) > 0 {
			if m, ok := ssi.Lookup(ssi.Coll, BasicName); ok {
				if cm, ok := m.(Module); ok {
					return cm, nil
				}
			}
		}
		return nil, &Error{Class: ErrArg, Msg: fmt.Sprintf("coll: %v", err), Err: err}
	}
	return chosen.Module, nil
}
