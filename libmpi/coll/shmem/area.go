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
	"github.com/lamgo/lam/libmpi/internal/futex"
	"github.com/lamgo/lam/libmpi/internal/shmfile"
)

// An area's layout, in lines of 128 bytes (so that the adjacent-line
// prefetcher does not make two processes' flags share one):
//
//	header   magic, process count, buffer size, buffer count, a digest
//	         of the processes (their pids in rank order)
//	bell     the futex sleepers wait on
//	posts    one line per process: the last round whose input it posted,
//	         the last whose reduced slice it posted, and two digests of
//	         the argument check (used in turn)
//	dones    one line per process: the last round it finished reading
//	pools    per process, segs input buffers then segs output buffers
const (
	line      = 128
	magic     = 0x4c414d434f4c4c31 // "LAMCOLL1"
	offMagic  = 0
	offN      = 8
	offChunk  = 16
	offSegs   = 24
	offGroup  = 32
	offBell   = line
	offPosts  = 2 * line
	offReduce = 8  // within a post line
	offDigest = 16 // within a post line: two digests of the argument check
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

func (g geometry) postAt(i int) int { return offPosts + i*line }
func (g geometry) doneAt(i int) int { return offPosts + (g.n+i)*line }
func (g geometry) poolAt(i int) int { return offPosts + 2*g.n*line + i*2*g.segs*g.chunk }
func (g geometry) size() int        { return g.poolAt(g.n) }

// area is one process's view of a communicator's area.
type area struct {
	geometry
	mem        []byte
	me         int
	posted     []*atomic.Uint64 // process → last round it posted input for
	reduced    []*atomic.Uint64 // process → last round it posted a reduced slice for
	done       []*atomic.Uint64 // process → last round it finished
	bell       futex.Bell
	step       uint64    // the last round begun (the same on every process)
	lastUse    []uint64  // buffer → the last round this process wrote it in
	lastDigest [2]uint64 // digest slot → the last round this process wrote it in

	// Pace: spinPolls polls and spinFor of polling, then yields for
	// yieldFor, then sleeps.
	spinPolls int
	spinFor   time.Duration
	yieldFor  time.Duration
	pidfds    []int // process → pidfd, -1 if none
	lastCheck time.Time

	inputs [][]byte // a reduction round's inputs, one per process
	regs   [][]byte // a reduction's scratch registers
	name   string
}

func (a *area) u64(off int) *atomic.Uint64 { return (*atomic.Uint64)(unsafe.Pointer(&a.mem[off])) }

// in and out are process i's input and output buffers of round s.
func (a *area) in(i int, s uint64) []byte {
	off := a.poolAt(i) + int(s%uint64(a.segs))*a.chunk
	return a.mem[off : off+a.chunk : off+a.chunk]
}

func (a *area) out(i int, s uint64) []byte {
	off := a.poolAt(i) + (a.segs+int(s%uint64(a.segs)))*a.chunk
	return a.mem[off : off+a.chunk : off+a.chunk]
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
	return newArea(c, g, mem, sh), nil
}

func unmap(mem []byte, path string, remove bool) {
	if mem != nil {
		unix.Munmap(mem)
	}
	if remove {
		unix.Unlink(path)
	}
}

func newArea(c *coll.Comm, g geometry, mem []byte, sh coll.Sharer) *area {
	n, me := g.n, c.Rank()
	a := &area{geometry: g, mem: mem, me: me, lastUse: make([]uint64, g.segs), name: c.T.Name(),
		posted: make([]*atomic.Uint64, n), reduced: make([]*atomic.Uint64, n), done: make([]*atomic.Uint64, n),
		pidfds: make([]int, n), inputs: make([][]byte, n)}
	a.bell = futex.At(unsafe.Pointer(&mem[offBell]))
	for i := range n {
		a.posted[i] = a.u64(g.postAt(i))
		a.reduced[i] = a.u64(g.postAt(i) + offReduce)
		a.done[i] = a.u64(g.doneAt(i))
		a.pidfds[i] = -1
		if pid := sh.PID(i); i != me && pid > 0 && pid != os.Getpid() {
			if fd, err := unix.PidfdOpen(pid, 0); err == nil {
				unix.CloseOnExec(fd)
				a.pidfds[i] = fd
			}
		}
	}
	// Processes that share the node's processors with more of their job
	// than there are processors poll once and yield from the start: a
	// spinning waiter would hold the processor the one it waits for needs.
	// Others spin a while first (a yield may cost a scheduling round
	// when the machine is busy with other work).
	a.spinPolls, a.spinFor, a.yieldFor = 4096, 200*time.Microsecond, 10*time.Millisecond
	if max(n, sh.NodeProcs()) > runtime.NumCPU() {
		a.spinPolls, a.spinFor, a.yieldFor = 1, 0, 20*time.Millisecond
	}
	return a
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
	err := unix.Munmap(a.mem)
	a.mem = nil
	if err != nil {
		return fmt.Errorf("shmem: unmap %s's area: %w", a.name, err)
	}
	return nil
}

// next begins a round.
func (a *area) next() uint64 {
	a.step++
	return a.step
}

// claim waits until this process may write its buffers of round s: every
// process finished the round that last used them.
func (a *area) claim(s uint64) error {
	b := int(s % uint64(a.segs))
	if u := a.lastUse[b]; u > 0 {
		for q := range a.n {
			if q != a.me {
				if err := a.await(a.done[q], u, q); err != nil {
					return err
				}
			}
		}
	}
	a.lastUse[b] = s
	return nil
}

// digest is process i's digest slot for round s.
func (a *area) digest(i int, s uint64) *atomic.Uint64 {
	return a.u64(a.postAt(i) + offDigest + 8*int(s&1))
}

// publish raises a flag of this process to round s and wakes sleepers.
func (a *area) publish(f *atomic.Uint64, s uint64) {
	f.Store(s)
	a.bell.Ring()
}

// await waits until process who's flag f reaches round s.
func (a *area) await(f *atomic.Uint64, s uint64, who int) error {
	if f.Load() >= s {
		return nil
	}
	return a.awaitSlow(f, s, who)
}

func (a *area) awaitSlow(f *atomic.Uint64, s uint64, who int) error {
	for i := 0; i < a.spinPolls; i++ {
		if f.Load() >= s {
			return nil
		}
	}
	start := time.Now()
	for a.spinFor > 0 && time.Since(start) < a.spinFor {
		for range 1024 {
			if f.Load() >= s {
				return nil
			}
		}
		runtime.Gosched() // cheap when the process has nothing else to run
	}
	sleeping := false
	for i := 0; ; i++ {
		if f.Load() >= s {
			return nil
		}
		if sleeping || i&255 == 255 {
			now := time.Now()
			if err := a.alive(who, now); err != nil {
				return err
			}
			sleeping = sleeping || now.Sub(start) >= a.yieldFor
		}
		if !sleeping {
			// To the other processes, and to this one's other
			// goroutines (a test's "processes" are goroutines).
			unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
			runtime.Gosched()
			continue
		}
		tok := a.bell.Arm()
		if f.Load() >= s {
			a.bell.Disarm()
			return nil
		}
		a.bell.Sleep(tok, 10*time.Millisecond)
		a.bell.Disarm()
	}
}

// ErrPeerGone is what a collective returns when a process it waits for
// died.
var ErrPeerGone = errors.New("a process of the communicator died")

// alive checks, at most every 50 ms, that process who has not died.
func (a *area) alive(who int, now time.Time) error {
	if now.Sub(a.lastCheck) < 50*time.Millisecond {
		return nil
	}
	a.lastCheck = now
	fd := a.pidfds[who]
	if fd < 0 {
		return nil
	}
	pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	if n, err := unix.Poll(pfd, 0); err == nil && n > 0 {
		return &coll.Error{Class: coll.ErrProcFailed, Msg: fmt.Sprintf("%s: rank %d died during a collective", a.name, who), Err: ErrPeerGone}
	}
	return nil
}
