package mpi

import (
	"bytes"
	"fmt"
	"runtime"
	"strconv"
	"sync/atomic"

	"github.com/lamgo/lam/libmpi/internal/comm"
	"github.com/lamgo/lam/libmpi/internal/core"
	"github.com/lamgo/lam/libmpi/internal/task"
	"github.com/lamgo/lam/shared/buildinfo"
)

// RequestGetStatus reports whether the request has completed, with its
// status if so, without freeing it or making it inactive
// (MPI_Request_get_status): Wait or Test still report it afterwards. A
// nil or inactive request has completed, with an empty status. A failed
// request's error is in the status and returned, and the error handler
// does not run (Wait or Test runs it).
func RequestGetStatus(r *Request) (Status, bool, error) {
	if r.inactive() {
		return emptyStatus, true, nil
	}
	if !st.engine.Test(r.r) {
		return Status{}, false, nil
	}
	s := r.status()
	return s, true, s.Err
}

// ReduceLocal applies op to in and inout element by element, leaving
// inout[i] = in[i] ∘ inout[i] (MPI_Reduce_local). inout must be at least
// as long as in; only its first len(in) elements are touched.
func ReduceLocal[T CollElem](in, inout []T, op *Op) error {
	o, _, err := collOp[T](op)
	if err != nil {
		return err
	}
	if len(inout) < len(in) {
		return errorf(ErrBuffer, "the inout buffer (%d elements) is shorter than in (%d)", len(inout), len(in))
	}
	if len(in) > 0 {
		o.Apply(raw(in), raw(inout[:len(in)]))
	}
	return nil
}

// mainGoroutine is the goroutine that called Init (0 before Init).
var mainGoroutine atomic.Uint64

// goroutineID is the running goroutine's number, as its stack trace's
// first line shows it.
func goroutineID() uint64 {
	var b [64]byte
	s := b[:runtime.Stack(b[:], false)]
	s = bytes.TrimPrefix(s, []byte("goroutine "))
	if i := bytes.IndexByte(s, ' '); i > 0 {
		s = s[:i]
	}
	id, _ := strconv.ParseUint(string(s), 10, 64)
	return id
}

// IsThreadMain reports whether the calling goroutine is the one that
// called Init or InitThread (MPI_Is_thread_main). Go has no thread
// identity a program sees: the goroutine stands for MPI's thread. Every
// goroutine may call every function (the level is ThreadMultiple), so a
// program needs this only to keep a structure written for
// ThreadFunneled.
func IsThreadMain() bool {
	id := mainGoroutine.Load()
	return id != 0 && id == goroutineID()
}

// pcontrol is the profiling level Pcontrol last set.
var pcontrol atomic.Int32

func init() { pcontrol.Store(1) }

// Pcontrol sets the profiling level (MPI_Pcontrol): 0 stops profiling, 1
// is the default, 2 asks for detail; other levels are a profiler's own.
// With no profiling library in place it only records the level
// (PcontrolLevel returns it) and does nothing else, as MPI says.
func Pcontrol(level int, args ...any) error {
	pcontrol.Store(int32(level))
	task.SetTracing(level > 0) // mpirun -toff: the program turns tracing on
	return nil
}

// PcontrolLevel is the level the last Pcontrol set (1 if none did).
func PcontrolLevel() int { return int(pcontrol.Load()) }

// GetLibraryVersion names the MPI library and its version
// (MPI_Get_library_version).
func GetLibraryVersion() string {
	return fmt.Sprintf("%s %s (MPI %d.%d, %s, %s)", buildinfo.Name, buildinfo.Version, Version, Subversion, runtime.Version(), buildinfo.Arch())
}

// Split types of SplitType.
const (
	// SplitTypeShared groups the processes that can share memory: those
	// on one node (MPI_COMM_TYPE_SHARED).
	SplitTypeShared = 1
)

// SplitType partitions the communicator by splitType, ordering each part
// by key then by rank in c (MPI_Comm_split_type). With SplitTypeShared
// each part is the processes of one node. A process giving Undefined
// gets nil. Collective over c.
func (c *Comm) SplitType(splitType, key int) (*Comm, error) {
	if err := c.check(); err != nil {
		return nil, World.fail(err)
	}
	switch splitType {
	case Undefined:
		return c.Split(Undefined, key)
	case SplitTypeShared:
		if c.inter != nil {
			return nil, c.fail(errorf(ErrComm, "SplitType of an intercommunicator is not supported"))
		}
		n, err := c.Split(int(st.nodes[st.rank]), key)
		if n != nil {
			n.name = c.name + " (split shared)"
		}
		return n, err
	}
	return nil, c.fail(errorf(ErrArg, "unknown split type %d", splitType))
}

// CreateGroup makes a communicator of the processes of g, a subgroup of
// c's group (MPI_Comm_create_group). Unlike Create it is collective over
// g only: processes outside g do not call it. Groups creating at once
// from one communicator must give different tags. A process outside g
// that calls it gets an ErrGroup error.
func (c *Comm) CreateGroup(g *Group, tag int) (*Comm, error) {
	if err := c.check(); err != nil {
		return nil, World.fail(err)
	}
	if g == nil {
		return nil, c.fail(errorf(ErrGroup, "nil group"))
	}
	if c.inter != nil {
		return nil, c.fail(errorf(ErrComm, "CreateGroup on an intercommunicator is not supported"))
	}
	if err := checkTag(tag, false); err != nil {
		return nil, c.fail(err)
	}
	if err := c.holds(g); err != nil {
		return nil, c.fail(err)
	}
	me := g.index(st.rank)
	if me == Undefined {
		return nil, c.fail(errorf(ErrGroup, "the calling process is not in the group"))
	}
	group := append([]int(nil), g.ranks...)
	ctx, err := st.comms.AgreeGroup(comm.Comm{Context: c.context, Group: group, Rank: me}, tag)
	if err != nil {
		return nil, c.fail(fromCore(err))
	}
	return c.derive(c.name+" (create group)", ctx, group), nil
}

// Idup duplicates the communicator as Dup does, and returns with it a
// request that is complete (MPI_Comm_idup): the duplicate is made before
// Idup returns, so it is usable at once, and waiting for the request
// returns at once.
func (c *Comm) Idup() (*Comm, *Request, error) {
	e, err := engine()
	if err != nil {
		return nil, nil, err
	}
	n, err := c.Dup()
	if err != nil {
		return nil, nil, err
	}
	r := e.NewGeneric()
	e.Finish(r, core.Status{Source: AnySource, Tag: AnyTag})
	return n, &Request{r: r, comm: c}, nil
}
