// Package mpi is MPI for Go programs, on the LAM/Go run-time environment.
//
// A program calls Init, uses the World communicator, and calls Finalize:
//
//	if err := mpi.Init(); err != nil { ... }
//	defer mpi.Finalize()
//	rank, size := mpi.World.Rank(), mpi.World.Size()
//	if rank == 0 {
//		mpi.Send(mpi.World, []float64{3.14}, 1, 0)
//	} else if rank == 1 {
//		buf := make([]float64, 1)
//		mpi.Recv(mpi.World, buf, 0, 0)
//	}
//
// Started by mpirun, the processes of a job find each other through the
// lamds; started alone, a program is a world of one process.
//
// Point-to-point functions are generic over the element type of the
// buffer (Go has no generic methods, so they take the communicator as
// their first argument). Errors are values carrying MPI error classes;
// a communicator's error handler decides whether an error aborts the job
// (the default, as MPI says) or is returned.
package mpi

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	_ "github.com/lamgo/lam/libmpi/coll/all" // the collective modules a communicator chooses from
	_ "github.com/lamgo/lam/libmpi/cr/all"   // the checkpoint modules a job chooses from
	"github.com/lamgo/lam/libmpi/internal/comm"
	"github.com/lamgo/lam/libmpi/internal/core"
	"github.com/lamgo/lam/libmpi/internal/wireup"
)

// Version and Subversion are the MPI standard version implemented.
const (
	Version    = 1
	Subversion = 2
)

// Thread levels.
const (
	ThreadSingle = iota
	ThreadFunneled
	ThreadSerialized
	ThreadMultiple
)

// Wildcards and special ranks.
const (
	AnySource = core.AnySource
	AnyTag    = core.AnyTag
	ProcNull  = core.ProcNull
	// Undefined is returned by GetCount when the byte count is not a
	// whole number of elements.
	Undefined = -32766
	// TagUB is the largest tag.
	TagUB = 1<<31 - 1
)

// The predefined communicators. They are usable between Init and Finalize.
var (
	World = &Comm{name: "MPI_COMM_WORLD"}
	Self  = &Comm{name: "MPI_COMM_SELF"}
)

type state struct {
	mu          sync.Mutex
	initialized bool
	finalized   bool
	proc        *wireup.Process
	engine      *core.Engine
	comms       *comm.Layer
	rank        int
	nodes       []int32 // world rank → node, for the coll modules
	thread      int
	start       time.Time
}

var st = state{start: time.Now()}

// Init initialises MPI (MPI_Init).
func Init() error {
	_, err := InitThread(ThreadSingle)
	return err
}

// InitThread initialises MPI asking for a thread level and returns the
// level provided: always ThreadMultiple, since every function is safe for
// concurrent use.
func InitThread(required int) (int, error) {
	level, restart, err := initThread(required)
	if err != nil {
		return level, err
	}
	World.setupColl()
	Self.setupColl()
	if restart != nil {
		// A restarted process: the program reads its state back
		// (cr.go), with MPI usable.
		if err := restart(); err != nil {
			return 0, errorf(ErrOther, "MPI_Init: the program's restart callback: %w", err)
		}
	}
	crReady()
	return level, nil
}

func initThread(required int) (int, func() error, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.initialized {
		return 0, nil, errorf(ErrOther, "MPI_Init called twice")
	}
	if st.finalized {
		return 0, nil, errorf(ErrOther, "MPI_Init called after MPI_Finalize")
	}
	if required < ThreadSingle || required > ThreadMultiple {
		return 0, nil, errorf(ErrArg, "unknown thread level %d", required)
	}
	p, err := wireup.Start(context.Background())
	if err != nil {
		return 0, nil, errorf(classOf(err), "MPI_Init: %w", err)
	}
	st.proc, st.engine, st.comms = p, p.Engine, comm.New(p.Engine)
	st.rank, st.nodes = p.Rank, p.Nodes
	group := make([]int, p.Size)
	for i := range group {
		group[i] = i
	}
	World.init(comm.WorldContext, group, p.Rank)
	Self.init(comm.SelfContext, []int{p.Rank}, 0)
	restart, err := crStart(p)
	if err != nil {
		return 0, nil, errorf(ErrOther, "MPI_Init: restart: %w", err)
	}
	st.initialized, st.thread = true, ThreadMultiple
	mainGoroutine.Store(goroutineID())
	return ThreadMultiple, restart, nil
}

// Finalize ends MPI (MPI_Finalize): it delivers what is still queued,
// closes the connections and tells mpirun this process finished.
func Finalize() error {
	selfErr := finalizeSelf() // Self's attributes go first (attr.go)
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.initialized || st.finalized {
		return errorf(ErrOther, "MPI_Finalize without MPI_Init, or twice")
	}
	st.finalized = true
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := st.proc.Finalize(ctx); err != nil {
		return errorf(classOf(err), "finalize: %w", err)
	}
	return selfErr
}

// Initialized reports whether Init has been called.
func Initialized() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.initialized
}

// Finalized reports whether Finalize has been called.
func Finalized() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.finalized
}

// QueryThread returns the thread level provided by InitThread.
func QueryThread() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.thread
}

// Abort ends every process of the job with code (MPI_Abort).
func Abort(c *Comm, code int) {
	abort(c, code, fmt.Sprintf("MPI_Abort(%d)", code), -1)
}

// abort tells mpirun, then exits with code. dead is the rank whose death
// made this process give up (-1: none): mpirun then reports that rank's
// end as the job's failure, which came first.
func abort(c *Comm, code int, why string, dead int) {
	if st.proc != nil { // before Init there is no job to tell
		st.proc.Abort(code, why, dead)
	}
	if code == 0 {
		code = 1
	}
	os.Exit(code & 0xff)
}

// Wtime is seconds since an arbitrary time in the past.
func Wtime() float64 { return time.Since(st.start).Seconds() }

// Wtick is Wtime's resolution in seconds.
func Wtick() float64 { return 1e-9 }

// ProcessorName is MPI_Get_processor_name.
func ProcessorName() string {
	h, _ := os.Hostname()
	return h
}

// GetVersion returns the MPI version and subversion.
func GetVersion() (int, int) { return Version, Subversion }

func engine() (*core.Engine, error) {
	if st.engine == nil {
		return nil, errorf(ErrOther, "MPI is not initialised")
	}
	return st.engine, nil
}
