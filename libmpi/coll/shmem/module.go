// Package shmem is the shmem coll module (LAM 7.1's name): the collectives
// of a communicator whose processes all run on one node go through a
// shared-memory area instead of messages.
//
// The area is made when the communicator's first collective runs (the
// communicator's lowest rank creates it under the job's shared prefix,
// owner-only; the others map it; its name is removed as soon as every
// process has mapped it, so nothing is left behind whatever happens to the
// job). It holds, for each process, a line of flags and a pool of
// coll_base_shmem_num_segments buffers of
// coll_base_shmem_message_pool_size/num_segments bytes each way. A
// collective moves its data in rounds of one buffer: a process writes its
// part into its buffer and raises its flag; the others wait for the flag
// and read the part where it lies. Consecutive rounds use consecutive
// buffers, so a large message is pipelined: a writer reuses a buffer only
// once every process said it finished the round that last used it.
//
// Barrier, Bcast, Gather, Scatter, Allgather, Alltoall, Reduce and
// Allreduce are shmem's up to coll_base_shmem_large_size bytes per process
// (above it the shared-memory rpis copy lam_basic's messages once,
// straight between the processes); Bcast on more than two processes and
// Allgather up to coll_base_shmem_copy_size if that is more (these copy
// less through the area than over point-to-point); Reduce and Allreduce
// as Bcast, but on two processes up to coll_base_shmem_reduce_size; see
// large, largeCopy, largeOne and largeReduce);
// larger ones, and the other collectives, are lam_basic's. Above
// coll_base_shmem_direct_size, a Bcast, Gather, Scatter, Allgather or
// Alltoall instead copies its blocks straight between the processes'
// buffers in one round, once each (direct.go), where the kernel permits
// it; where the node is oversubscribed only larger Scatters, Alltoalls
// and Gathers on more than two processes do. Barrier, the argument check and small
// Allreduce are synchronising rounds: every process adds one to a count
// in the area and waits for the count of all. Reductions
// are computed in place in the area, each process combining one slice of
// every round (or, for small ones, every process the whole: one round
// trip), in a fixed order: lam_basic's grouping for the same process count
// and size when the op's result depends on grouping (floating point with
// coll_base_associative=0), so that results are the same bits whatever the
// module and the layout; any order otherwise.
//
// With coll_base_check on, a collective whose data move in one round
// carries the argument check in that round (coll.Actions.Carries): every
// process writes its part and the digest of its call, arrives at a
// synchronising round, and then compares the digests and reads; larger
// ones check first (Agree, a synchronising round). At coll_base_check=1 a
// Bcast, Gather or Scatter of one round (of one buffer, or of a span of
// them) sends its call with its data instead (coll.Actions.SendsCall,
// sentRound): the writers leave the
// digest of their call beside their data and return, and only the readers
// compare, as lam_basic's receivers do; nobody waits for a process that
// only writes.
//
// A waiting process polls, then yields the processor (sched_yield), then
// sleeps on the flag it waits for (a futex), counted among the flag's
// sleepers, so that a writer wakes exactly the processes waiting for what
// it wrote; when the node has more processes than processors it yields
// after a few polls, so that the peer it waits for, descheduled on its
// processor, runs at once. It calls runtime.Gosched only once per 256
// yields (each call wakes an idle thread of the Go scheduler: a futex and
// a context switch), unless the other "processes" are goroutines of its
// own (tests).
// It checks that the process it waits for is alive while it yields or
// sleeps, so a peer that dies makes the collective fail instead of hang.
//
// The nonblocking collectives post their calls on the area's board
// (board.go, coll.Board): shmem runs a small Ibarrier or Iallreduce
// there itself, and guards the others, which run as lam_basic's
// schedules.
package shmem

import (
	"context"
	"fmt"
	"strings"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/shared/buildinfo"
	"github.com/lamgo/lam/shared/ssi"
)

// Priority is shmem's default priority, LAM's.
const Priority = 50

// Module is the shmem module.
type Module struct{}

func init() {
	coll.Register(Module{})
	ssi.RegisterParams(ssi.Coll, "base",
		ssi.Param{Name: "shmem_message_pool_size", Default: "1048576", Type: ssi.Size,
			Help: "Bytes of buffers each process has in a shmem communicator's shared-memory area (more than 1024)"},
		ssi.Param{Name: "shmem_num_segments", Default: "16", Type: ssi.Int,
			Help: "Number of buffers the shmem pool is cut into: a writer may run that many rounds of one buffer ahead of its readers, and a collective past one buffer moves an eighth of the pool per round (1 to 256)"},
		ssi.Param{Name: "shmem_large_size", Default: "65536", Type: ssi.Size,
			Help: "Bytes per process (a block of Scatter and Alltoall; a Bcast's message and a Gather's block on two processes; at least this for Bcast, Gather and Allgather: coll_base_shmem_copy_size; Reduce and Allreduce: coll_base_shmem_reduce_size) above which shmem leaves the collective to lam_basic, whose messages the shared-memory rpis copy once, straight between the processes, above rpi_usysv_single_copy; two processes among more than their processors take the copy size; 0: never. A call above coll_base_shmem_direct_size takes a direct round instead"},
		ssi.Param{Name: "shmem_copy_size", Default: "1048576", Type: ssi.Size,
			Help: "Bytes per process (Bcast's message and a Gather's block on more than two processes, a block of Allgather) above which shmem leaves these to lam_basic, if more than coll_base_shmem_large_size and that is not 0; these copy less through the area than point to point"},
		ssi.Param{Name: "shmem_reduce_size", Default: "65536", Type: ssi.Size,
			Help: "Bytes per process of a Reduce's or Allreduce's input above which shmem leaves it to lam_basic on a communicator of two processes (reduce-scatter by recursive halving: one exchange, with no round of the area to wait for); with more processes, and if coll_base_shmem_copy_size is less, the copy size applies; never if coll_base_shmem_large_size is 0"},
		ssi.Param{Name: "shmem_direct_size", Default: "16384", Type: ssi.Size,
			Help: "Bytes per process (a Bcast's message, a block of Gather, Scatter, Allgather and Alltoall, not an Alltoall in place) above which shmem copies the blocks straight between the processes' buffers, once each (process_vm_readv and process_vm_writev), where the kernel permits; where the node's processes outnumber its processors only Scatter and Alltoall above 32 KiB and Gather above 128 KiB, on more than two processes; 0: never"},
	)
}

// The parameters' full names.
var (
	ParamPoolSize = ssi.FullName(ssi.Coll, "base", "shmem_message_pool_size")
	ParamSegments = ssi.FullName(ssi.Coll, "base", "shmem_num_segments")
	ParamLarge    = ssi.FullName(ssi.Coll, "base", "shmem_large_size")
	ParamCopy     = ssi.FullName(ssi.Coll, "base", "shmem_copy_size")
	ParamReduce   = ssi.FullName(ssi.Coll, "base", "shmem_reduce_size")
	ParamDirect   = ssi.FullName(ssi.Coll, "base", "shmem_direct_size")
)

// SSI describes the module.
func (Module) SSI() ssi.Info {
	return ssi.Info{Framework: ssi.Coll, Name: "shmem", API: ssi.APIVersion[ssi.Coll], Version: buildinfo.ModuleVersion, Priority: Priority}
}

// Query: shmem can run in any job; whether it serves a communicator
// depends on the job and on where its processes are (QueryComm).
func (Module) Query(context.Context, *ssi.Settings) (int, error) { return Priority, nil }

// QueryComm: shmem serves an intracommunicator of two or more processes
// that all run on this node, when the transport can name a shared area.
//
// A job that asked for checkpoints (-ssi cr self) does without shmem, as
// LAM's did: its collectives move data through the shared area, not the
// links a checkpoint quiesces and drains, so the ranks of such a job could
// go on collecting while their peers write their state, and the states of
// one checkpoint would not belong to one moment. lam_basic and smp,
// written on point-to-point, stop with the links.
func (Module) QueryComm(c *coll.Comm) (int, error) {
	if cr := ssi.Requested(c.Settings(), ssi.CR); len(cr) > 0 {
		return -1, fmt.Errorf("shmem does not take part in checkpoints (the job asked for cr %s)", strings.Join(cr, ","))
	}
	if c.Inter() {
		return -1, fmt.Errorf("shmem serves intracommunicators only")
	}
	n := c.Size()
	if n < 2 {
		return -1, fmt.Errorf("%s has one process", c.T.Name())
	}
	if !c.OneNode() {
		return -1, fmt.Errorf("%s spans several nodes", c.T.Name())
	}
	sh, ok := c.T.(coll.Sharer)
	if !ok || sh.SharedPath() == "" {
		return -1, fmt.Errorf("%s: no shared-memory area can be named outside a job", c.T.Name())
	}
	return Priority, nil
}

// maxSegs is the most buffers a pool may be cut into: how far ahead of
// its readers a process may write (a rooted collective's root, when each
// call fits a buffer) is that many rounds.
const maxSegs = 256

// config is the module's parameters.
type config struct {
	pool, segs int
	large      int // 0: no limit
	copy       int // Bcast's and Allgather's limit, if larger
	reduce     int // the reductions' limit
	direct     int // direct rounds above it (0: none)
}

func readConfig(s *ssi.Settings) (config, error) {
	pool, err := s.Size(ParamPoolSize)
	if err != nil {
		return config{}, err
	}
	segs, err := s.Int(ParamSegments)
	if err != nil {
		return config{}, err
	}
	large, err := s.Size(ParamLarge)
	if err != nil {
		return config{}, err
	}
	cp, err := s.Size(ParamCopy)
	if err != nil {
		return config{}, err
	}
	red, err := s.Size(ParamReduce)
	if err != nil {
		return config{}, err
	}
	direct, err := s.Size(ParamDirect)
	if err != nil {
		return config{}, err
	}
	switch {
	case direct < 0 || direct > 1<<40:
		return config{}, fmt.Errorf("%s=%d: must be 0 to 1 TiB", ParamDirect, direct)
	case large < 0 || large > 1<<40:
		return config{}, fmt.Errorf("%s=%d: must be 0 to 1 TiB", ParamLarge, large)
	case cp < 0 || cp > 1<<40:
		return config{}, fmt.Errorf("%s=%d: must be 0 to 1 TiB", ParamCopy, cp)
	case red < 0 || red > 1<<40:
		return config{}, fmt.Errorf("%s=%d: must be 0 to 1 TiB", ParamReduce, red)
	case pool <= 1024 || pool > 1<<30:
		return config{}, fmt.Errorf("%s=%d: must be more than 1024 and at most 1 GiB", ParamPoolSize, pool)
	case segs < 1 || segs > maxSegs:
		return config{}, fmt.Errorf("%s=%d: must be 1 to %d", ParamSegments, segs, maxSegs)
	}
	return config{pool: int(pool), segs: segs, large: int(large), copy: int(cp), reduce: int(red), direct: int(direct)}, nil
}

// Init makes or maps the communicator's area. If that fails on any
// process, every process falls back to lam_basic's functions.
func (Module) Init(c *coll.Comm) (*coll.Actions, error) {
	cfg, err := readConfig(c.Settings())
	if err != nil {
		return nil, fmt.Errorf("shmem: %w", err)
	}
	a, err := attach(c, cfg)
	if err != nil {
		return nil, fmt.Errorf("shmem: %w", err)
	}
	if a == nil {
		return &coll.Actions{}, nil // lam_basic's
	}
	// Whether the processes may copy each other's memory is agreed now,
	// while every one of them is here: the direct rounds and the board's
	// lent entries need the answer, and a nonblocking start may not wait
	// for the others to find it (direct.go).
	if a.directSize > 0 && a.n > 1 {
		if err := a.probe(); err != nil {
			a.close()
			return nil, fmt.Errorf("shmem: %w", err)
		}
	}
	c.Data = a
	return &coll.Actions{
		Barrier:   barrier,
		Bcast:     bcast,
		Gather:    gather,
		Scatter:   scatter,
		Allgather: allgather,
		Alltoall:  alltoall,
		Reduce:    reduce,
		Allreduce: allreduce,
		Agree:     agree,
		Carries:   carries,
		SendsCall: sendsCall,
		// A process whose own arguments were wrong still takes its round.
		SentOwnError: sentOwnError,
		// A writer claims its buffer before it writes (the done flags):
		// no acknowledgements needed, and the C fast path, which runs
		// these rounds without the framework, could not count them.
		SentBounded: true,
		// Its collectives say when they wait (area.awaitSlow) or hand
		// the work to lam_basic (viaBasic).
		ReportsWaits: 1<<coll.Barrier | 1<<coll.Bcast | 1<<coll.Gather | 1<<coll.Scatter | 1<<coll.Allgather |
			1<<coll.Alltoall | 1<<coll.Reduce | 1<<coll.Allreduce,
	}, nil
}

// Finalize unmaps the area.
func (Module) Finalize(c *coll.Comm) error {
	a, ok := c.Data.(*area)
	if !ok {
		return nil
	}
	c.Data = nil
	return a.close()
}
