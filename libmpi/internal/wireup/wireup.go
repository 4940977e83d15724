package wireup

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/lamgo/lam/libmpi/internal/core"
	"github.com/lamgo/lam/libmpi/rpi"
	_ "github.com/lamgo/lam/libmpi/rpi/all" // the transports a job chooses from
	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/session"
	"github.com/lamgo/lam/shared/ssi"
	"github.com/lamgo/lam/shared/wire"
)

// Process is this process's place in its job, once wired up.
type Process struct {
	Engine   *core.Engine
	Rank     int
	Size     int
	Nodes    []int32 // world rank → node, for the coll modules
	Settings *ssi.Settings
	// AppNum is the index of the process's line in its job's application
	// schema (MPI_APPNUM), -1 when mpirun did not say (a process started
	// alone).
	AppNum int
	// Shared is the job's path prefix for shared-memory areas ("" for a
	// process started alone), PIDs the world ranks' process ids.
	Shared string
	PIDs   []int32
	// Oversubscribed says that the job's processes on this machine (this
	// node, and the nodes that share its processors: namespaces or
	// containers of one kernel) outnumber the processors they may run on
	// (cpus.go): waiters then yield at once instead of spinning.
	Oversubscribed bool

	client    *lamclient.Client // nil for a world of one
	watch     *lamdWatch        // ends the process if client closes under it
	transport rpi.Transport
	job       jobwire.JobID
	oob       rpi.OOB
	cr        *crState // checkpoints (cr.go)
}

// Start wires this process up: into the job mpirun started it in, or, for
// a program started alone, into a world of one. ctx bounds the wire-up on
// top of the init timeout parameter.
func Start(ctx context.Context) (*Process, error) {
	settings := ssi.NewSettings(nil, os.Environ())
	if os.Getenv(jobwire.EnvRank) == "" {
		return singleton(settings), nil
	}
	return join(ctx, settings)
}

// singleton makes a world of one process.
func singleton(settings *ssi.Settings) *Process {
	return &Process{Engine: core.New(core.Config{Rank: 0, Links: make([]rpi.Link, 1)}), Size: 1, Nodes: []int32{0}, Settings: settings, AppNum: -1}
}

// join wires the process into its job: it reports to mpirun through the
// lamds where its rpi module can be reached, gets the job's process table
// back, and connects to every peer.
func join(ctx context.Context, settings *ssi.Settings) (*Process, error) {
	rank, err1 := strconv.Atoi(os.Getenv(jobwire.EnvRank))
	size, err2 := strconv.Atoi(os.Getenv(jobwire.EnvWorld))
	job, err3 := jobwire.ParseJobID(os.Getenv(jobwire.EnvJob))
	if err := errors.Join(err1, err2, err3); err != nil || rank < 0 || size < 1 || rank >= size {
		if err == nil {
			err = errors.New("rank out of range")
		}
		return nil, fmt.Errorf("bad job environment (%s=%q %s=%q): %w", jobwire.EnvRank, os.Getenv(jobwire.EnvRank),
			jobwire.EnvWorld, os.Getenv(jobwire.EnvWorld), err)
	}
	timeout, err := Timeout(settings)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	dir, err := session.Resolve(session.Options{})
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	cl, err := lamclient.Dial(ctx, dir, os.Args[0], wire.RoleMPI)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the local lamd: %w", err)
	}
	// From here on the process does not outlive its lamd, even while the
	// wire-up waits for its peers.
	watch := watchLamd(cl, rank, cl.Node(), os.Stderr, os.Exit)
	if rank == 0 {
		warnUnknown(settings)
	}
	ok := false
	defer func() {
		if !ok {
			watch.stop()
			cl.Close()
		}
	}()
	nodes, err := cl.Nodes(ctx)
	if err != nil {
		return nil, fmt.Errorf("node table: %w", err)
	}
	host := ""
	for _, n := range nodes.Nodes {
		if n.ID == nodes.Self {
			host = n.Addr
		}
	}
	mod, _, err := rpi.Select(ctx, settings)
	if err != nil {
		return nil, err
	}
	info := mod.SSI()
	rpiName := info.Name + " " + info.Version.String()
	pid := os.Getpid()
	oob := NewOOB(cl, pid)
	shared := filepath.Join(jobwire.ShmDir, jobwire.SegmentPrefix(os.Getuid(), job))
	t, err := mod.Open(ctx, &rpi.Job{Rank: rank, Size: size, Node: nodes.Self, Host: host, Settings: settings,
		Timeout: timeout, OOB: oob, PID: pid, Shared: shared})
	if err != nil {
		return nil, fmt.Errorf("rpi %s: %w", info.Name, err)
	}
	defer func() {
		if !ok {
			t.Close()
		}
	}()
	crs, err := crSetup(ctx, settings, info.Name, t)
	if err != nil {
		return nil, err
	}
	in := &jobwire.Init{Rank: int32(rank), PID: int32(pid), Node: nodes.Self, RPI: rpiName, Addr: t.Addr(), NoCR: crs.noCR, Where: here()}
	if err := cl.Send(ctx, job.Node, job.PID, jobwire.TypeInit, in.Encode()); err != nil {
		return nil, fmt.Errorf("report to mpirun: %w", err)
	}
	data, err := oob.Recv(ctx, jobwire.TypeTable)
	if err != nil {
		return nil, fmt.Errorf("waiting for mpirun's process table: %w", err)
	}
	table, err := jobwire.DecodeTable(data)
	if err == nil && len(table.Procs) != size {
		err = fmt.Errorf("%d processes in a world of %d", len(table.Procs), size)
	}
	if err != nil {
		return nil, fmt.Errorf("bad process table from mpirun: %w", err)
	}
	if table.RPI != rpiName {
		return nil, fmt.Errorf("every process must use the same rpi module: this one chose %s, the job %s", rpiName, table.RPI)
	}
	peers := make([]rpi.Peer, size)
	p := &Process{Rank: rank, Size: size, Nodes: make([]int32, size), Settings: settings, AppNum: appNum(), client: cl, watch: watch, transport: t, job: job,
		oob: oob, cr: crs, Shared: shared, PIDs: make([]int32, size)}
	crs.procs, crs.in = table.Procs, make(chan drainMsg, 64)
	for i, pr := range table.Procs {
		peers[i] = rpi.Peer{Rank: i, Node: pr.Node, Addr: pr.Addr}
		p.Nodes[i] = pr.Node
		p.PIDs[i] = pr.PID
	}
	p.Oversubscribed = oversubscribed(table.Procs, rank)
	links, err := t.Connect(ctx, peers, table.Secret)
	if err != nil {
		return nil, fmt.Errorf("connect to the other processes: %w", err)
	}
	cfg := core.Config{Rank: rank, Links: links, Short: t.Short(), Pace: core.DefaultPace}
	if pc, ok := t.(rpi.Pacer); ok {
		cfg.Pace = pc.Pace()
	}
	if p.Oversubscribed {
		cfg.Pace = cfg.Pace.Oversubscribed()
	}
	cfg.Waiter, _ = t.(rpi.Waiter)
	p.Engine = core.New(cfg)
	startTrace()
	go p.answer()
	go p.serveCR()
	ok = true
	return p, nil
}

// Finalize delivers what is still queued (bounded by ctx), closes the
// links and tells mpirun this process finished. From here on, the lamd
// going away is no longer fatal.
func (p *Process) Finalize(ctx context.Context) error {
	p.watch.stop()
	err := p.Engine.Close(ctx)
	if p.transport != nil {
		p.transport.Close()
	}
	err = errors.Join(err, p.sendTrace(ctx))
	if p.client != nil {
		if serr := p.client.Send(ctx, p.job.Node, p.job.PID, jobwire.TypeFinalize, jobwire.EncodeRank(int32(p.Rank))); serr != nil {
			err = errors.Join(err, fmt.Errorf("report to mpirun: %w", serr))
		}
		p.client.Close()
	}
	return err
}

// Abort asks mpirun to end the job with code, saying why; the caller then
// exits. dead is the rank whose death is why (-1: none). A world of one
// has nobody to tell.
func (p *Process) Abort(code int, why string, dead int) {
	if p == nil || p.client == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p.client.Send(ctx, p.job.Node, p.job.PID, jobwire.TypeAbort, (&jobwire.Abort{Rank: int32(p.Rank), Code: int32(code), Msg: why, Dead: int32(dead)}).Encode())
}

// warnUnknown warns about SSI parameters that no module uses.
func warnUnknown(settings *ssi.Settings) {
	for _, k := range settings.Unknown() {
		fmt.Fprintf(os.Stderr, "MPI: warning: no module uses SSI parameter %q; is it misspelt?\n", k)
	}
}

// Timeout bounds the wire-up: the parameter rpi_base_init_timeout.
func Timeout(settings *ssi.Settings) (time.Duration, error) {
	d, err := settings.Duration(rpi.InitTimeout)
	if err == nil && d <= 0 {
		v, src := settings.Value(rpi.InitTimeout)
		err = &ssi.ParamError{Name: rpi.InitTimeout, Value: v, Source: src, Err: errors.New("must be positive")}
	}
	return d, err
}

// appNum is the line index mpirun gave the process, or -1 (none, or not
// a line index).
func appNum() int {
	n, err := strconv.Atoi(os.Getenv(jobwire.EnvAppNum))
	if err != nil || n < 0 {
		return -1
	}
	return n
}
