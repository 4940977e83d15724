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
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/lamgo/lam/libmpi/internal/core"
	"github.com/lamgo/lam/libmpi/internal/wireup"
	"github.com/lamgo/lam/libmpi/rpi"
	_ "github.com/lamgo/lam/libmpi/rpi/all"
	// Every module of every framework, so that MPI_Init can tell a
	// misspelt SSI parameter from one of a module it does not use.
	_ "github.com/lamgo/lam/libmpi/coll/all"
	_ "github.com/lamgo/lam/libmpi/cr/all"
	_ "github.com/lamgo/lam/shared/boot/all"
	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/session"
	"github.com/lamgo/lam/shared/ssi"
	"github.com/lamgo/lam/shared/wire"
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
	engine      *core.Engine
	client      *lamclient.Client
	transport   rpi.Transport
	job         jobwire.JobID
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
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.initialized {
		return 0, errorf(ErrOther, "MPI_Init called twice")
	}
	if st.finalized {
		return 0, errorf(ErrOther, "MPI_Init called after MPI_Finalize")
	}
	if required < ThreadSingle || required > ThreadMultiple {
		return 0, errorf(ErrArg, "unknown thread level %d", required)
	}
	ctx, cancel := context.WithTimeout(context.Background(), initTimeout())
	defer cancel()
	var err error
	if os.Getenv(jobwire.EnvRank) == "" {
		err = initSingleton()
	} else {
		err = initJob(ctx)
	}
	if err != nil {
		return 0, err
	}
	st.initialized, st.thread = true, ThreadMultiple
	return ThreadMultiple, nil
}

func initTimeout() time.Duration {
	if d, err := ssi.ParseDuration(os.Getenv("LAM_MPI_SSI_mpi_init_timeout")); err == nil && d > 0 {
		return d
	}
	return 2 * time.Minute
}

// initSingleton makes a world of one process, for a program started
// without mpirun.
func initSingleton() error {
	st.engine = core.New(core.Config{Rank: 0, Links: make([]rpi.Link, 1)})
	st.rank, st.nodes = 0, []int32{0}
	World.init(0, []int{0}, 0)
	Self.init(2, []int{0}, 0)
	return nil
}

func initJob(ctx context.Context) error {
	rank, err1 := strconv.Atoi(os.Getenv(jobwire.EnvRank))
	size, err2 := strconv.Atoi(os.Getenv(jobwire.EnvWorld))
	job, err3 := jobwire.ParseJobID(os.Getenv(jobwire.EnvJob))
	if err := errors.Join(err1, err2, err3); err != nil || rank < 0 || size < 1 || rank >= size {
		return errorf(ErrOther, "bad job environment (%s=%q %s=%q): %v", jobwire.EnvRank, os.Getenv(jobwire.EnvRank),
			jobwire.EnvWorld, os.Getenv(jobwire.EnvWorld), err)
	}
	dir, err := session.Resolve(session.Options{})
	if err != nil {
		return errorf(ErrOther, "session: %v", err)
	}
	cl, err := lamclient.Dial(ctx, dir, os.Args[0], wire.RoleMPI)
	if err != nil {
		return errorf(ErrOther, "cannot reach the local lamd: %v", err)
	}
	settings := ssi.NewSettings(nil, os.Environ())
	if rank == 0 {
		for _, k := range settings.Unknown() {
			fmt.Fprintf(os.Stderr, "MPI: warning: no module uses SSI parameter %q; is it misspelt?\n", k)
		}
	}
	ok := false
	defer func() {
		if !ok {
			cl.Close()
		}
	}()
	nodes, err := cl.Nodes(ctx)
	if err != nil {
		return errorf(ErrOther, "node table: %v", err)
	}
	host := ""
	for _, n := range nodes.Nodes {
		if n.ID == nodes.Self {
			host = n.Addr
		}
	}
	mod, _, err := rpi.Select(ctx, settings)
	if err != nil {
		return errorf(ErrOther, "%v", err)
	}
	info := mod.SSI()
	rpiName := info.Name + " " + info.Version.String()
	t, err := mod.Open(ctx, &rpi.Job{Rank: rank, Size: size, Node: nodes.Self, Host: host, Settings: settings,
		Timeout: initTimeout(), OOB: wireup.NewOOB(cl, os.Getpid()), PID: os.Getpid(),
		Shared: filepath.Join(jobwire.ShmDir, jobwire.SegmentPrefix(os.Getuid(), job))})
	if err != nil {
		return errorf(ErrOther, "rpi %s: %v", info.Name, err)
	}
	defer func() {
		if !ok {
			t.Close()
		}
	}()
	pid := os.Getpid()
	in := &jobwire.Init{Rank: int32(rank), PID: int32(pid), Node: nodes.Self, RPI: rpiName, Addr: t.Addr()}
	if err := cl.Send(ctx, job.Node, job.PID, jobwire.TypeInit, in.Encode()); err != nil {
		return errorf(ErrOther, "report to mpirun: %v", err)
	}
	m, err := cl.Recv(ctx, jobwire.RankEvent(pid), jobwire.TypeTable)
	if err != nil {
		return errorf(ErrOther, "waiting for mpirun's process table: %v", err)
	}
	table, err := jobwire.DecodeTable(m.Data)
	if err != nil || len(table.Procs) != size {
		return errorf(ErrOther, "bad process table from mpirun: %v", err)
	}
	if table.RPI != rpiName {
		return errorf(ErrOther, "every process must use the same rpi module: this one chose %s, the job %s", rpiName, table.RPI)
	}
	peers := make([]rpi.Peer, size)
	st.nodes = make([]int32, size)
	onNode := 0
	for i, p := range table.Procs {
		peers[i] = rpi.Peer{Rank: i, Node: p.Node, Addr: p.Addr}
		st.nodes[i] = p.Node
		if p.Node == nodes.Self {
			onNode++
		}
	}
	links, err := t.Connect(ctx, peers, table.Secret)
	if err != nil {
		return errorf(ErrOther, "connect to the other processes: %v", err)
	}
	cfg := core.Config{Rank: rank, Links: links, Short: t.Short()}
	cfg.Pace = core.DefaultPace
	if p, ok := t.(rpi.Pacer); ok {
		cfg.Pace = p.Pace()
	}
	if onNode > runtime.NumCPU() {
		cfg.Pace = cfg.Pace.Oversubscribed()
	}
	cfg.Waiter, _ = t.(rpi.Waiter)
	st.engine = core.New(cfg)
	st.client, st.transport, st.job, st.rank = cl, t, job, rank
	group := make([]int, size)
	for i := range group {
		group[i] = i
	}
	World.init(0, group, rank)
	Self.init(2, []int{rank}, 0)
	ok = true
	return nil
}

// Finalize ends MPI (MPI_Finalize): it delivers what is still queued,
// closes the connections and tells mpirun this process finished.
func Finalize() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.initialized || st.finalized {
		return errorf(ErrOther, "MPI_Finalize without MPI_Init, or twice")
	}
	st.finalized = true
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := st.engine.Close(ctx)
	if st.transport != nil {
		st.transport.Close()
	}
	if st.client != nil {
		if serr := st.client.Send(ctx, st.job.Node, st.job.PID, jobwire.TypeFinalize, jobwire.EncodeRank(int32(st.rank))); serr != nil && err == nil {
			err = serr
		}
		st.client.Close()
	}
	if err != nil {
		return errorf(ErrOther, "finalize: %v", err)
	}
	return nil
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
	abort(c, code, fmt.Sprintf("MPI_Abort(%d)", code))
}

func abort(c *Comm, code int, why string) {
	if st.client != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		st.client.Send(ctx, st.job.Node, st.job.PID, jobwire.TypeAbort, (&jobwire.Abort{Rank: int32(st.rank), Code: int32(code), Msg: why}).Encode())
		cancel()
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
