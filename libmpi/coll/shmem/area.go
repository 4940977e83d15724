package shmem

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/coll/basic"
	"github.com/lamgo/lam/libmpi/internal/fence"
	"github.com/lamgo/lam/libmpi/internal/futex"
	"github.com/lamgo/lam/libmpi/internal/shmfile"
	"github.com/lamgo/lam/libmpi/internal/yield"
)

// An area's layout, in lines of 128 bytes (so that the adjacent-line
// prefetcher does not make two processes' flags share one):
//
//	header   magic, process count, buffer size, buffer count, a digest
//	         of the processes (their pids in rank order)
//	sync     two sync lines (more, past 12 processes), one for the
//	         synchronising rounds (Barrier, the argument check, small
//	         Allreduce) of odd numbers, one for the even: the count of
//	         arrivals at that line's rounds, its sleepers, every
//	         process's digest for the argument check, then, where they
//	         fit in the line's first 64 bytes, every process's input of
//	         a small reduction (syncData). The line every arrival writes
//	         carries the digests and those inputs, and a round's all lie
//	         in the 64 bytes whose count the arrival's atomic add takes
//	         (two processes, or three with inputs of 8 bytes), so
//	         reading them after the round costs no more transfers
//	         between caches. The lines are used in turn: a process has
//	         done with round k's once round k+1 completes.
//	posts    one line per process: the last round whose input it posted,
//	         the last whose reduced slice it posted, the two flags'
//	         sleepers
//	dones    one line per process: the last round it finished reading,
//	         and its sleepers
//	calls    per process: its lane, laneSlots lines, one per round
//	         (round s's is s mod laneSlots) of a collective that sends
//	         its call with its data (coll_base_check=1): the round's
//	         number once posted, the digest of the writer's call, the
//	         sleepers on that number, and up to laneBytes of the data
//	         (a small Bcast, Gather or Scatter moves its data there, the
//	         number, digest and data in one line a reader fetches at
//	         once); then laneSlots digests, the one of each call below,
//	         which only the writer reads; then laneSlots calls
//	         (coll.CallSize bytes each), written only when the call
//	         differs from the one kept in its slot
//	pools    per process, segs input buffers then segs output buffers
//	boards   per process, the board of the nonblocking collectives
//	         (board.go): boardSlots entry lines, their calls, a done line
//	outboard per process, bigSlots entries of bigBytes: the data of a
//	         board entry too large for its line (board.go)
//
// Every flag is a 64-bit round number with a count of the processes
// asleep on it beside it; a waiter sleeps on the flag's low 32 bits (a
// futex), and whoever raises the flag wakes it only if someone sleeps, so
// a write wakes exactly the processes waiting for that flag.
const (
	line      = 128
	magic     = 0x4c414d434f4c4c37 // "LAMCOLL7"
	offMagic  = 0
	offN      = 8
	offChunk  = 16
	offSegs   = 24
	offGroup  = 32
	offSync   = line
	offDigest = offSync + 16 // the digests' slots, in a sync line
	syncHalf  = 64           // the bytes of a sync line a round's count, digests and inputs share
	offReduce = 8            // within a post line
	offSleep  = 16           // within a post line: the sleepers of posted, then of reduced; of done in a done line

	// A lane line: the round number posted, the digest of the call, the
	// sleepers on the number, the data.
	laneSlots  = 256
	laneDigest = 8
	laneSleep  = 16
	laneData   = 24
	laneBytes  = line - laneData // the data a lane line holds
)

type geometry struct {
	n     int // processes
	chunk int // bytes per buffer, a multiple of the line
	segs  int // buffers per pool
}

func newGeometry(n int, cfg config) geometry {
	// At least 64 bytes per process, for Scatter's and Alltoall's pieces.
	chunk := max(cfg.pool/cfg.segs/line*line, (n*64+line-1)/line*line)
	return geometry{n: n, chunk: chunk, segs: cfg.segs}
}

func (g geometry) posts() int { return offSync + 2*g.syncStride() }

// syncStride is the bytes of a sync line (more than one line past 12
// processes): the count, its sleepers and n digests.
func (g geometry) syncStride() int { return (offDigest - offSync + 8*g.n + line - 1) / line * line }

// syncAt is the offset of synchronising round k's sync line.
func (g geometry) syncAt(k uint64) int { return offSync + int(k&1)*g.syncStride() }
func (g geometry) postAt(i int) int    { return g.posts() + i*line }
func (g geometry) doneAt(i int) int    { return g.posts() + (g.n+i)*line }

// laneBytesAll is the bytes of one process's lane, callFirst those of
// its lane and its calls' digests (where its calls begin), callStride
// those of its lane, digests and calls.
const (
	laneBytesAll = laneSlots * line
	callFirst    = laneBytesAll + (laneSlots*8+line-1)/line*line
	callStride   = callFirst + (laneSlots*coll.CallSize+line-1)/line*line
)

func (g geometry) callsAt(i int) int { return g.posts() + 2*g.n*line + i*callStride }
func (g geometry) pools() int        { return g.callsAt(g.n) }
func (g geometry) poolAt(i int) int  { return g.pools() + i*2*g.segs*g.chunk }
func (g geometry) size() int         { return g.bigAt(g.n) }

// flag is a round number in the area that one process raises and
// others wait for, with the count of those asleep on it.
type flag struct {
	v        *atomic.Uint64
	sleepers *atomic.Int32
}

// area is one process's view of a communicator's area.
type area struct {
	geometry
	mem       []byte
	me        int
	posted    []flag   // process → last round it posted input for
	reduced   []flag   // process → last round it posted a reduced slice for
	done      []flag   // process → last round it finished
	arrived   [2]flag  // arrivals at the synchronising rounds of even and odd numbers
	step      uint64   // the last data round begun (the same on every process)
	syncs     uint64   // the synchronising rounds begun (the same on every process)
	lastUse   []uint64 // buffer → the last round this process wrote it in
	lastLane  []uint64 // lane line → the last round this process posted in it
	seenDone  []uint64 // process → the last round it was seen to have finished
	largeSize int      // bytes per process above which lam_basic moves the data (0: none; see crowdedPair)
	copySize  int      // the same for Bcast and Allgather, if larger
	reduceSz  int      // the same for the reductions (when largeSize is not 0)
	// oversubscribed: the node's processes outnumber its processors
	// (coll.Sharer.Oversubscribed, the same on every process of it).
	oversubscribed bool
	// Direct rounds (direct.go): the size above which a call takes one,
	// whether the kernel lets the processes copy each other's memory,
	// the processes' ids, the word the others read to find out.
	directSize int
	direct     directState
	pids       []int
	probeWord  uint64

	// Pace: spinPolls polls and spinFor of polling, then yields for
	// yieldFor, then sleeps.
	spinPolls int
	spinFor   time.Duration
	yieldFor  time.Duration
	// siblings: the processes are goroutines of this one (tests), which
	// a waiter must let run (runtime.Gosched); a real process does not
	// call Gosched while it waits, for each call wakes an idle thread of
	// the Go scheduler, a futex system call and a context switch.
	siblings bool
	// relaxed: this process raises its flags with a plain store (package
	// fence): its waiters then pay for the order, before they sleep.
	relaxed   bool
	pidfds    []int // process → pidfd, -1 if none
	lastCheck time.Time

	// How the last collective ran, for code outside Go (LastRound): it
	// carried the argument check in one round; it sent its call with its
	// data; a reduction ran its rounds after a check of its own; a
	// reduction's grouping.
	lastOne, lastSent, lastLoop bool
	lastGroup                   grouping

	nb     *board     // its nonblocking collectives (board.go)
	comm   *coll.Comm // the communicator, told of long waits (Waiting)
	inputs [][]byte   // a reduction round's inputs, one per process
	regs   [][]byte   // a reduction's scratch registers
	name   string
}

func (a *area) u64(off int) *atomic.Uint64 { return (*atomic.Uint64)(unsafe.Pointer(&a.mem[off])) }

// bufs is n adjacent buffers of process i from its b-th, as one: its
// input buffers are 0 to segs-1, its output buffers (in the same order)
// segs to 2·segs-1.
func (a *area) bufs(i, b, n int) []byte {
	off := a.poolAt(i) + b*a.chunk
	end := off + n*a.chunk
	return a.mem[off:end:end]
}

// buf is round s's buffer's index in a pool.
func (a *area) buf(s uint64) int { return int(s % uint64(a.segs)) }

// in and out are process i's input and output buffers of round s.
func (a *area) in(i int, s uint64) []byte  { return a.bufs(i, a.buf(s), 1) }
func (a *area) out(i int, s uint64) []byte { return a.bufs(i, a.segs+a.buf(s), 1) }

// lane is process i's lane line of round s.
func (a *area) lane(i int, s uint64) int { return a.callsAt(i) + int(s%laneSlots)*line }

// posting is process i's lane flag of round s: the round's number, once
// its data and call are there.
func (a *area) posting(i int, s uint64) flag {
	off := a.lane(i, s)
	return a.flagAt(off, off+laneSleep)
}

// laneDigest is the digest of process i's call of round s, in its lane
// line; laneData the data the line holds.
func (a *area) laneDigest(i int, s uint64) *atomic.Uint64 {
	return a.u64(a.lane(i, s) + laneDigest)
}

func (a *area) laneData(i int, s uint64) []byte {
	off := a.lane(i, s) + laneData
	return a.mem[off : off+laneBytes : off+laneBytes]
}

// callDigest and call are process i's call of round s (coll_base_check=1)
// and its digest: written with the lane line by the process that claimed
// it, so kept as long as the line is; the call only when the digest there
// is another (the digest is read only by the writer).
func (a *area) callDigest(i int, s uint64) *atomic.Uint64 {
	return a.u64(a.callsAt(i) + laneBytesAll + 8*int(s%laneSlots))
}

func (a *area) call(i int, s uint64) []byte {
	off := a.callsAt(i) + callFirst + int(s%laneSlots)*coll.CallSize
	return a.mem[off : off+coll.CallSize : off+coll.CallSize]
}

// minOp is the element-wise minimum of int64s, for the agreement of Init.
var minOp = coll.Op{Size: 8, Commutative: true, Exact: true, Apply: func(in, inout []byte) {
	x := unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(in))), len(in)/8)
	y := unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(inout))), len(inout)/8)
	for i := range y {
		y[i] = min(x[i], y[i])
	}
}}

// attach makes (rank 0) or maps (the others) the area, and agrees with
// the other processes that every one of them has it. It returns nil and no
// error when some process could not (shmem then leaves the communicator to
// lam_basic); an error means the communicator's messages failed.
func attach(c *coll.Comm, cfg config) (*area, error) {
	sh := c.T.(coll.Sharer)
	path := sh.SharedPath()
	n, me := c.Size(), c.Rank()
	g := newGeometry(n, cfg)
	group := uint64(0xcbf29ce484222325)
	for r := range n {
		group = (group ^ uint64(sh.PID(r))) * 0x100000001b3
	}
	fns := basic.Functions(c)
	var mem []byte
	var why error
	flag := coll.Buffer(8)
	if me == 0 {
		// A name left by a communicator of this job that had the same
		// context and died before removing it is stale.
		unix.Unlink(path)
		if mem, why = shmfile.Create(path, g.size()); why == nil {
			a := &area{mem: mem}
			a.u64(offN).Store(uint64(n))
			a.u64(offChunk).Store(uint64(g.chunk))
			a.u64(offSegs).Store(uint64(g.segs))
			a.u64(offGroup).Store(group)
			a.u64(offMagic).Store(magic)
			flag[0] = 1
		}
	}
	if err := fns.Bcast(c, flag, 0); err != nil {
		unmap(mem, path, me == 0)
		return nil, err
	}
	if me != 0 && flag[0] == 1 {
		if mem, why = shmfile.Open(path, g.size()); why == nil {
			a := &area{mem: mem}
			if a.u64(offMagic).Load() != magic || a.u64(offN).Load() != uint64(n) ||
				a.u64(offChunk).Load() != uint64(g.chunk) || a.u64(offSegs).Load() != uint64(g.segs) {
				why = fmt.Errorf("shared area %s was made for another geometry (do the processes disagree on %s or %s?)", path, ParamPoolSize, ParamSegments)
			} else if a.u64(offGroup).Load() != group {
				why = fmt.Errorf("shared area %s was made for other processes", path)
			}
		}
	} else if me != 0 {
		why = errors.New("the communicator's lowest rank could not make the area")
	}
	ok, all := coll.Buffer(8), coll.Buffer(8)
	if why == nil {
		ok[0] = 1
	}
	err := fns.Allreduce(c, ok, all, &minOp)
	if me == 0 && mem != nil {
		unix.Unlink(path) // every process has mapped it, or gave up
	}
	if err != nil || all[0] != 1 {
		unmap(mem, "", false)
		if err == nil {
			if why == nil {
				why = errors.New("another process could not map the area")
			}
			slog.Debug("coll shmem: leaving the communicator to lam_basic", "comm", c.T.Name(), "err", why)
		}
		return nil, err
	}
	return newArea(c, g, cfg, mem, sh), nil
}

func unmap(mem []byte, path string, remove bool) {
	if mem != nil {
		unix.Munmap(mem)
	}
	if remove {
		unix.Unlink(path)
	}
}

func newArea(c *coll.Comm, g geometry, cfg config, mem []byte, sh coll.Sharer) *area {
	n, me := g.n, c.Rank()
	a := &area{geometry: g, mem: mem, me: me, comm: c, lastUse: make([]uint64, g.segs), lastLane: make([]uint64, laneSlots), seenDone: make([]uint64, g.n), name: c.T.Name(), largeSize: cfg.large, copySize: cfg.copy, reduceSz: cfg.reduce, directSize: cfg.direct,
		posted: make([]flag, n), reduced: make([]flag, n), done: make([]flag, n),
		pidfds: make([]int, n), pids: make([]int, n), inputs: make([][]byte, n), relaxed: fence.Ready()}
	a.syncFlags()
	a.nb = newBoard(a)
	for i := range n {
		a.posted[i] = a.flagAt(g.postAt(i), g.postAt(i)+offSleep)
		a.reduced[i] = a.flagAt(g.postAt(i)+offReduce, g.postAt(i)+offSleep+4)
		a.done[i] = a.flagAt(g.doneAt(i), g.doneAt(i)+offSleep)
		a.pidfds[i] = -1
		pid := sh.PID(i)
		a.pids[i] = pid
		if i != me && pid == os.Getpid() {
			a.siblings = true
		} else if i != me && pid > 0 {
			if fd, err := unix.PidfdOpen(pid, 0); err == nil {
				unix.CloseOnExec(fd)
				a.pidfds[i] = fd
			}
		}
	}
	// A process that shares the node's processors with more of its job
	// than there are processors yields at once (sched_yield), so that a
	// peer it waits for that was descheduled on its processor runs now:
	// a yield hands the processor over in a microsecond or two where a
	// sleep and a wake-up cost tens (two system calls and a scheduling
	// round each way), and in a collective every process waits for
	// others. Others spin a while first. Both sleep after yieldFor.
	// 256 polls, a PAUSE between two, take about 5 µs here (4096 without
	// PAUSE took about 3).
	a.spinPolls, a.spinFor, a.yieldFor = 256, 200*time.Microsecond, 10*time.Millisecond
	if sh.Oversubscribed() {
		a.spinPolls, a.spinFor = 16, 0
		a.oversubscribed = true
	}
	return a
}

// syncFlags sets the arrival counts of the two sync lines up.
func (a *area) syncFlags() {
	for p := range a.arrived {
		off := a.syncAt(uint64(p))
		a.arrived[p] = a.flagAt(off, off+8)
	}
}

// crowdedPair: two processes of a node whose processes outnumber its
// processors, as each node of 2×2 hosts on this machine: large and
// largeOne keep their data in the area up to the copy size.
func (a *area) crowdedPair() bool { return a.oversubscribed && a.n == 2 }

// flagAt is the flag at offset off whose sleepers are counted at offset
// sleepers.
func (a *area) flagAt(off, sleepers int) flag {
	return flag{v: a.u64(off), sleepers: (*atomic.Int32)(unsafe.Pointer(&a.mem[sleepers]))}
}

func (a *area) close() error {
	for i, fd := range a.pidfds {
		if fd >= 0 {
			unix.Close(fd)
			a.pidfds[i] = -1
		}
	}
	if a.mem == nil {
		return nil
	}
	if a.nb != nil {
		a.nb.close()
	}
	err := unix.Munmap(a.mem)
	a.mem = nil
	if err != nil {
		return fmt.Errorf("shmem: unmap %s's area: %w", a.name, err)
	}
	return nil
}

// next begins a data round.
func (a *area) next() uint64 {
	a.step++
	return a.step
}

// spanBufs is how many adjacent buffers a round of a collective that
// needs several rounds takes (Bcast, Gather, Scatter, Allgather and
// Alltoall past one buffer): an eighth of the pool, so that a process
// may still write eight such rounds ahead of its readers, as it may
// write segs rounds of one buffer ahead. More, smaller buffers let a
// small collective's writer run further ahead (a rooted one's root
// returns at once while a buffer is free); spans keep the large ones'
// rounds as large as the pool's eighth.
func (g geometry) spanBufs() int { return max(1, g.segs/8) }

// spanBytes is the bytes of a span.
func (g geometry) spanBytes() int { return g.spanBufs() * g.chunk }

// bufsFor is how many buffers a Bcast's, Gather's or Scatter's round
// takes for a call that moves size bytes through a writer's pool (a
// Scatter's n pieces together): as many as the call needs, one at least,
// spanBufs at most (a larger call takes rounds of a span). A call that
// fits in a span takes only the buffers it needs, so that calls of a few
// buffers are as many in flight as the pool holds of them, not eight.
// Every process of a call computes the same from the call's size.
func (g geometry) bufsFor(size int) int {
	return min(g.spanBufs(), max(1, (size+g.chunk-1)/g.chunk))
}

// nextSpan begins a data round of k adjacent buffers: it takes as many
// round numbers, the first of them that of a buffer with k-1 more after
// it in the pool (the numbers skipped over name no round), and returns
// the first and the last. The round is the last's: a writer posts it,
// readers finish it. Every process takes the same numbers for the same k.
func (a *area) nextSpan(k int) (first, last uint64) {
	first = a.step + 1
	if r := first % uint64(a.segs); r+uint64(k) > uint64(a.segs) {
		first += uint64(a.segs) - r
	}
	a.step = first + uint64(k) - 1
	return first, a.step
}

// claimSpan claims the k buffers of the span that begins at round first.
func (a *area) claimSpan(first uint64, k int) error {
	for j := range uint64(k) {
		if err := a.claim(first + j); err != nil {
			return err
		}
	}
	return nil
}

// claim waits until this process may write its buffers of round s: every
// process finished the round that last used them.
func (a *area) claim(s uint64) error { return a.claimOf(a.lastUse, a.buf(s), s) }

// claimLane is claim for this process's lane line of round s.
func (a *area) claimLane(s uint64) error { return a.claimOf(a.lastLane, int(s%laneSlots), s) }

// claimOf waits until every process finished round last[b], then makes s
// that round.
func (a *area) claimOf(last []uint64, b int, s uint64) error {
	if u := last[b]; u > 0 {
		for q := range a.n {
			if q != a.me && a.seenDone[q] < u {
				if err := a.await(a.done[q], u, q); err != nil {
					return err
				}
				// Usually several rounds ahead: the next claims need
				// not read the other process's line again.
				a.seenDone[q] = a.done[q].v.Load()
			}
		}
	}
	last[b] = s
	return nil
}

// digest is process i's digest slot for synchronising round k, in the
// round's sync line. A slot is written again two synchronising rounds
// later, when every process has arrived at the round between and so read
// it.
func (a *area) digest(i int, k uint64) *atomic.Uint64 {
	return a.u64(a.syncAt(k) + offDigest - offSync + 8*i)
}

// syncFits reports whether a process's input of size bytes fits in its
// slot of the synchronising line beside the digests (a small reduction
// at 2 or 3 processes).
func (g geometry) syncFits(size int) bool { return size <= g.syncSlot() }

// syncSlot is the bytes of one process's input slot in a sync line: the
// room left after the digests in the line's first 64 bytes (syncHalf),
// cut in one slot per process, whole words; 0 where there is no room (4
// processes or more). The slots lie where they do whatever the size of a
// call, so that a call's input never reaches into another's slot.
func (g geometry) syncSlot() int { return max(0, (syncHalf-(offDigest-offSync)-8*g.n)/g.n/8*8) }

// syncData is process i's input of synchronising round k in the round's
// sync line (syncFits), written before it arrives at the round and read
// once the round is complete; the slot is written again two rounds
// later, as a digest is.
func (a *area) syncData(i int, k uint64, size int) []byte {
	off := a.syncAt(k) + offDigest - offSync + 8*a.n + i*a.syncSlot()
	return a.mem[off : off+size : off+size]
}

// sync is a synchronising round: this process arrives (at the count of
// the round's sync line, which counts the rounds of its parity), and
// waits until every process has. It returns the round's number. Whoever
// arrives last wakes the sleepers; a process has done with whatever it
// wrote for round k-1 once round k completes.
func (a *area) sync() (uint64, error) {
	a.syncs++
	k := a.syncs
	f := a.arrived[k&1]
	all := (k + 1) / 2 * uint64(a.n)
	if f.v.Add(1) == all {
		f.wake()
		return k, nil
	}
	return k, a.await(f, all, -1)
}

// publish raises flag f of this process to round s and wakes its
// sleepers.
func (a *area) publish(f flag, s uint64) {
	if fence.Raise(a.relaxed, f.v, s, f.sleepers) > 0 {
		futex.WakeAll(futex.Low32(f.v))
	}
}

// wake wakes the processes asleep on f, if any.
func (f flag) wake() {
	if f.sleepers.Load() > 0 {
		futex.WakeAll(futex.Low32(f.v))
	}
}

// await waits until flag f reaches s; who is the process that raises
// it (-1: any).
func (a *area) await(f flag, s uint64, who int) error {
	if f.v.Load() >= s {
		return nil
	}
	return a.awaitSlow(f, s, who)
}

func (a *area) awaitSlow(f flag, s uint64, who int) error {
	if a.spin(f, s) {
		return nil
	}
	// Waiting longer than a short spin: the collective is shown as
	// waiting (mpitask) until the flag rises.
	a.comm.Waiting(true)
	err := a.awaitLong(f, s, who, &a.lastCheck, 0)
	a.comm.Waiting(false)
	return err
}

// spin polls flag f for the first spin (spinPolls polls, a PAUSE
// between two) and reports whether it reached s.
func (a *area) spin(f flag, s uint64) bool {
	for i := 0; i < a.spinPolls; i++ {
		if f.v.Load() >= s {
			return true
		}
		fence.Pause()
	}
	return f.v.Load() >= s
}

// awaitLong is await after its first spin: polls for spinFor, yields for
// yieldFor, then sleeps; lastCheck is the time of the last look at the
// processes' lives (alive). With a limit, it returns after that long
// asleep whether or not the flag rose (the caller looks again).
func (a *area) awaitLong(f flag, s uint64, who int, lastCheck *time.Time, limit time.Duration) error {
	start := time.Now()
	for a.spinFor > 0 && time.Since(start) < a.spinFor {
		for range 1024 {
			if f.v.Load() >= s {
				return nil
			}
			fence.Pause()
		}
		a.letSiblingsRun()
	}
	for i := 0; a.yieldFor > 0; i++ {
		if f.v.Load() >= s {
			return nil
		}
		if i&255 == 255 {
			now := time.Now()
			if err := a.alive(who, now, lastCheck); err != nil {
				return err
			}
			if now.Sub(start) >= a.yieldFor {
				break
			}
			// Now and then to this process's other goroutines (another
			// thread's collective, with GOMAXPROCS=1): one wake-up of a
			// scheduler thread per 256 yields; never from C, where
			// Gosched costs far more (package yield).
			yield.Goroutines()
		}
		yield.OSKeep()
		a.letSiblingsRun()
	}
	nap := 10 * time.Millisecond
	if limit > 0 {
		nap = min(nap, limit)
	}
	for {
		// Counted among the sleepers before the last look, so that a
		// writer that raises the flag after it sees the count.
		f.sleepers.Add(1)
		fence.Others() // a writer's plain store of the flag is seen now, or it sees the count
		v := f.v.Load()
		if v >= s {
			f.sleepers.Add(-1)
			return nil
		}
		futex.Sleep(futex.Low32(f.v), uint32(v), nap)
		f.sleepers.Add(-1)
		if f.v.Load() >= s {
			return nil
		}
		if err := a.alive(who, time.Now(), lastCheck); err != nil {
			return err
		}
		if limit > 0 {
			return nil
		}
	}
}

// letSiblingsRun lets the goroutines that stand for the other processes
// in a test run.
func (a *area) letSiblingsRun() {
	if a.siblings {
		runtime.Gosched()
	}
}

// ErrPeerGone is what a collective returns when a process it waits for
// died.
var ErrPeerGone = errors.New("a process of the communicator died")

// alive checks, at most every 50 ms (since *lastCheck), that process
// who (every other process if who is -1) has not died.
func (a *area) alive(who int, now time.Time, lastCheck *time.Time) error {
	if now.Sub(*lastCheck) < 50*time.Millisecond {
		return nil
	}
	*lastCheck = now
	for q, fd := range a.pidfds {
		if fd < 0 || (who >= 0 && q != who) {
			continue
		}
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if n, err := unix.Poll(pfd, 0); err == nil && n > 0 {
			return &coll.Error{Class: coll.ErrProcFailed, Msg: fmt.Sprintf("%s: rank %d died during a collective", a.name, q), Err: ErrPeerGone}
		}
	}
	return nil
}
