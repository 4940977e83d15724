// Package rpi is the rpi framework (LAM's Request Progression Interface):
// an rpi module connects the processes of a job and moves bytes between
// them. The MPI core on top owns the protocol (envelopes, eager and
// rendezvous transfers, acknowledgements) and the one matching engine, so
// every module gets the same MPI semantics.
//
// A module registers itself from its package's init with Register. MPI_Init
// selects one module for the job (every rank must choose the same), opens
// it, publishes its address through mpirun, and connects to every peer.
package rpi

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lamgo/lam/shared/ssi"
)

// Peer is another process of the job, as the wire-up tells it.
type Peer struct {
	Rank int    // rank in the world
	Node int32  // its node
	Addr string // what its module published
}

// Job is what a module needs to connect a process to its peers.
type Job struct {
	Rank     int // this process's world rank
	Size     int
	Node     int32
	Host     string // this node's address, as its peers reach it
	Settings *ssi.Settings
	// Timeout bounds connection setup.
	Timeout time.Duration
	// OOB is the run-time environment's out-of-band channel (the lamds;
	// the lamd module sends through it); nil for a process started
	// without mpirun.
	OOB OOB
	// PID is this process's pid, which addresses it for the lamds.
	PID int
	// Shared is a path prefix, unique to the job, for what its processes
	// on a node share (shared-memory segments); "" outside a job.
	Shared string
}

// OOB is the run-time environment's out-of-band channel: small messages
// between the processes of a job, addressed by node and pid and sorted by
// a type, which travel through the lamds (LAM's nsend and nrecv). The
// wire-up gives a module the job's channel in Job.OOB.
type OOB interface {
	// Send sends msg, of type typ, to process pid on node. An error that
	// wraps ErrOOBFull means the channel takes nothing now (try again
	// later), not that it failed.
	Send(ctx context.Context, node int32, pid int, typ int32, msg []byte) error
	// Recv waits for the next message of type typ to this process.
	Recv(ctx context.Context, typ int32) ([]byte, error)
}

// OOBStreamer is implemented by out-of-band channels that can give a
// process a stream of its own for the messages of one type: they arrive
// on a descriptor the process polls, and leave without waiting for the
// channel's answer (the lamd rpi's path).
type OOBStreamer interface {
	OOBStream(ctx context.Context, typ int32) (OOBStream, error)
}

// OOBStream is a process's stream of out-of-band messages of one type.
// It never blocks, and holds nothing it has not handed on but the rest of
// a message begun.
type OOBStream interface {
	// Fd is readable when a message came, and writable when the channel
	// takes more.
	Fd() int
	// Post sends head then data to process pid on node and reports
	// whether the channel took all of it. When it took part, Pending is
	// true until Flush has handed on the rest (the message must not be
	// posted again), and Post takes nothing meanwhile; when it took
	// nothing, try again later.
	Post(node int32, pid int, head, data []byte) (bool, error)
	Pending() bool
	// Flush hands on what it can of the rest of a message begun, and
	// reports whether none is left.
	Flush() (bool, error)
	// Next returns the next message that came, or ok false; data stays
	// valid until the next call. A message the channel could not deliver
	// is an error.
	Next() (data []byte, ok bool, err error)
	// Close hands on the rest of a message begun (for at most timeout),
	// then closes.
	Close(timeout time.Duration) error
}

// ErrOOBFull is wrapped by an OOB's Send when the channel is full for now.
var ErrOOBFull = errors.New("out-of-band channel full")

// Module is an rpi module.
type Module interface {
	ssi.Module
	// Open prepares the module for a job and returns its transport, which
	// has published nothing yet.
	Open(ctx context.Context, job *Job) (Transport, error)
}

// Transport is an opened rpi module.
type Transport interface {
	// Addr is the address peers reach this process at; mpirun passes it
	// to every rank.
	Addr() string
	// Connect makes one link to every peer (peers[i].Rank == i; this
	// process's own entry is ignored and its link left nil). A peer whose
	// Addr is empty is skipped too (a module serving some peers through
	// another). Links authenticate with the job's secret.
	Connect(ctx context.Context, peers []Peer, secret []byte) ([]Link, error)
	// Short is the largest message sent eagerly; longer ones use the
	// rendezvous protocol.
	Short() int
	// Close releases the transport (links are closed separately).
	Close() error
}

// Link is a FIFO byte stream to one peer, used without blocking: Read and
// Write move what they can at once and return 0 (not an error) when
// nothing can move now.
type Link interface {
	Read(p []byte) (int, error)
	Write(p []byte) (int, error)
	// Fd is a descriptor that poll(2) reports readable or writable when
	// the link can move bytes, or -1 if the link must be polled by calls.
	Fd() int
	Close() error
}

// VectorWriter is implemented by links that can write two buffers in one
// system call (a frame's header and its body).
type VectorWriter interface {
	Write2(a, b []byte) (int, error)
}

// The optional interfaces below let a module tell the MPI core more than
// the byte streams do. The core asks for them with type assertions.

// Waiter is implemented by transports whose links have no descriptor
// (Fd() < 0) but can wake a process that sleeps: a peer that writes to, or
// reads from, one of this process's links after Arm wakes Sleep.
type Waiter interface {
	// Arm announces that the caller is about to sleep. The caller then
	// looks at its links once more and sleeps only if nothing moved.
	Arm() (token uint32)
	// Sleep sleeps until a peer moved bytes after Arm, or timeout.
	Sleep(token uint32, timeout time.Duration)
	// Disarm ends what Arm started; every Arm is paired with a Disarm.
	Disarm()
	// Wake ends this process's Sleep early; other goroutines call it
	// (one that watches the process's descriptors meanwhile).
	Wake()
}

// Pacer is implemented by transports that say how a waiting process paces
// itself: it polls its links at least SpinPolls times and for Spin, then
// yields the processor between polls (to other processes too, with
// sched_yield, when YieldOS) for Yield, then sleeps. A negative Yield
// yields forever and never sleeps.
type Pacer interface {
	Pace() Pace
}

// Pace is how a waiter paces itself; see Pacer.
type Pace struct {
	SpinPolls int
	Spin      time.Duration
	Yield     time.Duration
	YieldOS   bool
	// AtOnce: the waiter polls its links SpinPolls times in all (not as
	// many batches of polls) and then sleeps, keeping its Go processor
	// while it sleeps when GOMAXPROCS > 1: for links whose bytes another
	// process on the node must move first (the lamd), where every poll
	// and every scheduler wake-up takes processor time from it.
	AtOnce bool
	// Shared says the pace is Oversubscribed's: a call that looks
	// without waiting (Test) and keeps finding nothing yields too.
	Shared bool
}

// Oversubscribed is the pace for a process that shares the node's
// processors with more processes of its job than there are processors: a
// spinning waiter would hold the processor the process it waits for needs,
// so it polls once and yields to other processes between polls from the
// start (as Open MPI does when oversubscribed), then sleeps as before.
func (p Pace) Oversubscribed() Pace {
	if p.Yield >= 0 {
		p.Yield += p.Spin
	}
	p.SpinPolls, p.Spin, p.YieldOS, p.Shared = 1, 0, true, true
	return p
}

// RemoteReader is implemented by links to a peer whose memory this
// process may read directly (cross-memory attach): a long message then
// moves in one copy, from the sender's buffer straight into the
// receiver's.
type RemoteReader interface {
	// ReadRemote copies len(dst) bytes from address addr of the peer.
	ReadRemote(dst []byte, addr uint64) error
	// SingleCopy is the length above which a message is read directly;
	// shorter ones are faster through the link.
	SingleCopy() int
}

// Exposer is implemented by links whose RemoteReader reads only memory
// the peer has registered for it (a fabric's remote memory access, which
// needs a key besides the address). The core asks the sending side's link
// to expose a long message's buffer before it sends the address; the link
// sends what the peer needs (the key) ahead of it in the stream.
type Exposer interface {
	// Expose makes buf readable by the peer until Unexpose; false: not
	// now (the message then goes through the link).
	Expose(buf []byte) bool
	// Unexpose ends an Expose of buf: the peer no longer reads it.
	Unexpose(buf []byte)
}

// CostlyPoller is implemented by links without a descriptor whose poll
// costs about what a descriptor's system call does (a crossing into C and
// a fabric provider's progress: ofi's). In a job that also has links
// polled by a load from memory (usysv's), the core reads such links, as it
// reads descriptors, only every few passes while they are idle, so that
// the latency between peers on the node does not pay for them.
type CostlyPoller interface {
	CostlyPoll() bool
}

// Peeker is implemented by links that can show a small write in place,
// so that the core reads a frame where it arrived instead of copying it
// out first.
type Peeker interface {
	// Peek returns the bytes of the link's next write if they can be read
	// in place (nil if not: use Read), and whether anything at all is
	// ready to read. The bytes stay valid until Consume.
	Peek() (p []byte, ready bool, err error)
	// Consume releases the bytes the last Peek returned.
	Consume()
}

// RemoteWriter is implemented by links that can also copy into the
// peer's memory: a long message then moves in two halves at once, the
// receiver reading one and the sender writing the other.
type RemoteWriter interface {
	// WriteRemote copies src to address addr of the peer.
	WriteRemote(src []byte, addr uint64) error
}

// Shorter is implemented by links whose eager limit differs from their
// transport's (a shared-memory module's links to peers on other nodes).
type Shorter interface {
	Short() int
}

// InitTimeout is the full name of the parameter that bounds a process's
// wire-up in MPI_Init: reaching the lamd, the exchange with mpirun and the
// connections to every peer.
const InitTimeout = "rpi_base_init_timeout"

func init() {
	ssi.RegisterParams(ssi.RPI, "base",
		ssi.Param{Name: "init_timeout", Default: "120", Type: ssi.Duration,
			Help: "How long MPI_Init may take to join the job and connect to every process (seconds, or e.g. 500ms)"})
}

// Register registers an rpi module from its package's init.
func Register(m Module) { ssi.Register(m) }

// Select chooses the job's module as the priorities and -ssi rpi say.
func Select(ctx context.Context, s *ssi.Settings) (Module, ssi.Report, error) {
	var mods []Module
	for _, m := range ssi.Modules(ssi.RPI) {
		if rm, ok := m.(Module); ok {
			mods = append(mods, rm)
		}
	}
	m, rep, err := ssi.Select(ctx, ssi.RPI, s, mods)
	if err != nil {
		return nil, rep, fmt.Errorf("rpi: %w", err)
	}
	return m, rep, nil
}
