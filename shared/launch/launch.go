// Package launch starts a job's processes across the universe, for
// lamexec (and, with the MPI wire-up on top, mpirun): it schedules the
// lines of a job (a command line's or an app schema's) as LAM does, asks
// the lamds to start them, forwards their standard streams, and reports
// how they ended, as the typed errors of errors.go.
//
// It takes plain values and a connected *lamclient.Client; reading the
// command line and mapping errors to LAM's exit codes is the tools' part
// (shared/lamcli).
package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/lamgo/lam/shared/appschema"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/nodespec"
	"github.com/lamgo/lam/shared/wire"
)

// Options say what to start and where its output goes.
type Options struct {
	// Lines is the job: the command line's one line, or an app schema's.
	Lines   []appschema.Line
	Wd      string // working directory of the lines that name none (-wd)
	ProgDir bool   // run in the directory of the program (-D)
	Source  string // load programs from this node (-s: n<id>, h or o)
	NoWait  bool   // do not wait for the processes (-nw)
	NoIO    bool   // do not forward standard streams (-f)
	Verbose bool   // report each process started (-v)
	// Env adds variables to every process (mpirun's LAM_MPI_* exports).
	Env []string
	// Stdin, if set, is forwarded to rank 0's standard input (mpirun).
	Stdin io.Reader
	// LookupEnv gives the values of -x NAME items (nil: none are found).
	LookupEnv func(string) (string, bool)
	// Stdout and Stderr receive the processes' forwarded streams and the
	// -v lines.
	Stdout, Stderr io.Writer
	// MaxPerNode caps the processes the job may start on one node (0: as
	// many as the local lamd's limits allow, see PerNodeLimit). A job over
	// the cap is refused before any process starts (*CapacityError).
	MaxPerNode int

	maxClients int // MPIOptions.MaxClients
}

// hooks are what mpirun adds to lamexec's way of running a job.
type hooks struct {
	// EnvFor adds variables to one rank's process, started from line app
	// (an index in Options.Lines).
	EnvFor func(rank, app int) []string
	// Started runs once every process runs (mpirun's wire-up), in its
	// own goroutine; its error fails the job.
	Started func(ctx context.Context, j *Job) error
	// Exited checks a process that exited with status 0; its error fails
	// the job (mpirun: a rank that never called MPI_Init or
	// MPI_Finalize). ctx is run's, not ended by the job's own failures.
	Exited func(ctx context.Context, p *Proc) error
	// Failed, if set, checks a process that exited with a non-zero status
	// or a signal; an error it returns is reported instead of the exit
	// (mpirun: the rank called MPI_Abort, whose report may arrive just
	// after the exit). ctx is as for Exited.
	Failed func(ctx context.Context, p *Proc) error
	// Describe names a process in messages ("1234 (n0)" by default, as
	// lamexec does).
	Describe func(p *Proc) string
	// Count, if set, learns the number of processes and the local node
	// before any starts (mpirun passes them to every rank).
	Count func(n int, self int32)
	// Finished, if set, runs once every process has ended (mpirun -sa,
	// -sf); failed says whether the job failed.
	Finished func(procs []*Proc, failed bool)
	// Tag, if set, prefixes every forwarded line of a process (mpirun
	// -tag-output).
	Tag func(p *Proc) string
	// MPI marks mpirun's jobs in the errors (ExitError.MPI).
	MPI bool
}

// Job is a started job.
type Job struct {
	ID     string
	Procs  []*Proc
	cl     *lamclient.Client
	cancel context.CancelFunc
}

// Proc is one process of a job.
type Proc struct {
	Rank    int
	App     int // its line in Options.Lines
	Node    int32
	PID     int32
	Program string
	// Addr is its node's IP address, as the node table gives it.
	Addr string
	// Exit is how the process ended (nil if that is unknown: the job was
	// stopped, or its node died).
	Exit *wire.Exited
	p    *lamclient.Process
}

// Client is the connection to the local lamd the job was started through.
func (j *Job) Client() *lamclient.Client { return j.cl }

// Kill ends every process of the job.
func (j *Job) Kill() { j.cancel() }

// Run starts the job through cl and waits for it (lamexec). The first
// failure is returned as one of the errors of errors.go, or as an error
// of cl's.
func Run(ctx context.Context, cl *lamclient.Client, o Options) error {
	return run(ctx, cl, o, hooks{})
}

func run(ctx context.Context, cl *lamclient.Client, o Options, cfg hooks) error {
	if len(o.Lines) == 0 {
		return &UsageError{Err: errors.New("no program to run")}
	}
	table, err := cl.Nodes(ctx)
	if err != nil {
		return err
	}
	nodes := lamclient.SpecNodes(table)
	lines := o.Lines
	procs, err := appschema.Schedule(lines, nodes)
	if err != nil {
		var ne *nodespec.NodeError
		if errors.As(err, &ne) {
			where := fmt.Sprintf("n%d", ne.ID)
			if ne.CPU {
				where = fmt.Sprintf("c%d", ne.ID)
			}
			return &StartError{Program: lines[0].Program, Node: where, Err: err}
		}
		if errors.Is(err, nodespec.ErrBadNode) {
			return err
		}
		return &UsageError{Err: err}
	}
	if len(procs) == 0 {
		return fmt.Errorf("no node to run on (every node has schedule=no?)")
	}
	capa, err := capacity(o, int(cl.LamdPID()))
	if err != nil {
		return err
	}
	if err := checkCapacity(procs, nodes, capa); err != nil {
		return err
	}
	cwd, _ := os.Getwd()
	if err := checkDirs(procs, nodes, table.Self, o, cwd); err != nil {
		return err
	}
	if cfg.Count != nil {
		cfg.Count(len(procs), table.Self)
	}
	jobID := fmt.Sprintf("%d:%d", table.Self, os.Getpid())
	loaded := map[string][]byte{} // programs read with -s, by source node and name
	out := &output{stdout: o.Stdout, stderr: o.Stderr}
	var started []*Proc
	outer := ctx // Exited and Failed wait on the caller's context only
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for _, pr := range procs {
		l := pr.Line
		exports, err := exportEnv(o.LookupEnv, l.Export)
		if err != nil {
			return &UsageError{Err: err}
		}
		m := &wire.Spawn{Node: int32(pr.Node), Job: jobID, Argv: append([]string{l.Program}, l.Args...),
			Env: append(append([]string(nil), o.Env...), exports...)}
		if cfg.EnvFor != nil {
			m.Env = append(m.Env, cfg.EnvFor(pr.Rank, lineOf(lines, l))...)
		}
		if o.Stdin != nil && pr.Rank == 0 {
			m.Flags |= wire.SpawnStdin
		}
		if src := firstOf(l.Source, o.Source); src != "" {
			path, err := load(ctx, cl, nodes, loaded, src, l.Program, pr)
			if err != nil {
				stop(cancel, started)
				return fmt.Errorf("cannot load %s from %s: %w", l.Program, src, err)
			}
			m.Argv[0], m.Flags = path, m.Flags|wire.SpawnRemoveProgram
		}
		var try bool
		if m.Dir, try = workDir(l, o, cwd); try {
			m.Flags |= wire.SpawnTryDir
		}
		if o.NoWait {
			m.Flags |= wire.SpawnNoWait
		}
		p, err := cl.Spawn(ctx, m)
		if err != nil {
			stop(cancel, started)
			se := &StartError{Program: l.Program, Node: nodespec.Format(pr.Node, nodes), Err: err, Rank: pr.Rank, Started: len(started)}
			if !try && missingDir(err) {
				se.Dir = m.Dir
			}
			return se
		}
		proc := &Proc{Rank: pr.Rank, App: lineOf(lines, l), Node: p.Node, PID: p.PID, Program: l.Program, Addr: nodeAddr(table, p.Node), p: p}
		started = append(started, proc)
		if o.Verbose {
			fmt.Fprintf(o.Stdout, "%d %s running on %s\n", p.PID, l.Program, nodespec.Format(pr.Node, nodes))
		}
	}
	if o.NoWait {
		return nil
	}
	job := &Job{ID: jobID, Procs: started, cl: cl, cancel: cancel}
	if o.Stdin != nil && len(started) > 0 {
		go forwardStdin(o.Stdin, started[0].p)
	}
	var startErr chan error
	if cfg.Started != nil {
		startErr = make(chan error, 1)
		go func() { startErr <- cfg.Started(ctx, job) }()
	}
	err = wait(outer, ctx, cancel, started, out, o.NoIO, cfg, startErr)
	if cfg.Finished != nil {
		cfg.Finished(started, err != nil)
	}
	return err
}

// lineOf is the index of l in lines (Schedule's procs point into them).
func lineOf(lines []appschema.Line, l *appschema.Line) int {
	for i := range lines {
		if &lines[i] == l {
			return i
		}
	}
	return -1
}

// workDir is the directory a line's processes start in, and whether it is
// only tried (LAM's default: this directory if the node has it, else
// $HOME there).
func workDir(l *appschema.Line, o Options, cwd string) (dir string, try bool) {
	switch {
	case l.Wd != "":
		return l.Wd, false
	case o.Wd != "":
		return o.Wd, false
	case o.ProgDir && strings.Contains(l.Program, "/"):
		return filepath.Dir(l.Program), false
	}
	return cwd, true
}

// missingDir reports whether a lamd refused a spawn because its working
// directory is missing: the lamd says "no directory <dir>" with the code
// of a missing file.
func missingDir(err error) bool {
	return lamclient.Code(err) == wire.CodeNoEntry && strings.Contains(err.Error(), ": no directory ")
}

// checkDirs checks, before any process starts, the working directories
// the processes on this node must start in (an absolute -wd, a schema
// line's -wd, -D's), as the lamd would: a relative one is the lamd's
// business. Those of other nodes are checked by their lamds, whose
// refusal names the directory.
func checkDirs(procs []appschema.Proc, nodes []nodespec.Node, self int32, o Options, cwd string) error {
	checked := map[string]bool{}
	for _, pr := range procs {
		dir, try := workDir(pr.Line, o, cwd)
		if try || int32(pr.Node) != self || !filepath.IsAbs(dir) || checked[dir] {
			continue
		}
		checked[dir] = true
		st, err := os.Stat(dir)
		if err == nil && !st.IsDir() {
			err = &os.PathError{Op: "chdir", Path: dir, Err: syscall.ENOTDIR}
		}
		if err != nil {
			return &StartError{Program: pr.Line.Program, Node: nodespec.Format(pr.Node, nodes), Err: err, Dir: dir, Rank: pr.Rank}
		}
	}
	return nil
}

// checkCapacity refuses a job that puts more processes on a node than
// the cap.
func checkCapacity(procs []appschema.Proc, nodes []nodespec.Node, c Capacity) error {
	perNode := map[int]int{}
	for _, pr := range procs {
		perNode[pr.Node]++
	}
	worst, want := -1, 0
	for n, k := range perNode {
		if k > c.PerNode && (k > want || k == want && n < worst) {
			worst, want = n, k
		}
	}
	if worst < 0 {
		return nil
	}
	return &CapacityError{Node: nodespec.Format(worst, nodes), Want: want, Capacity: c}
}

// stop ends a job that failed to start: cancel ends its context, and each
// process already started is cancelled, which makes its lamd kill it.
func stop(cancel context.CancelFunc, started []*Proc) {
	cancel()
	for _, p := range started {
		// With the context ended, Wait cancels the process's stream
		// (unless its exit is already there).
		p.p.Wait(canceled, nil)
	}
}

// canceled is a context that has ended.
var canceled = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// forwardStdin copies r to a process's standard input, then closes it.
func forwardStdin(r io.Reader, p *lamclient.Process) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 && p.Stdin(buf[:n], false) != nil {
			return
		}
		if err != nil {
			p.Stdin(nil, true)
			return
		}
	}
}

// errReserved holds the first failure's place while it is examined.
var errReserved = errors.New("a failure is being examined")

// wait forwards output and waits for every process; the first failure is
// returned, and the others are killed. ctx is the job's, outer the
// caller's.
func wait(outer, ctx context.Context, cancel context.CancelFunc, procs []*Proc, out *output, noIO bool, cfg hooks, startErr chan error) error {
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
		ended = newEnds()
	)
	byRank := map[int]*Proc{}
	for _, pr := range procs {
		byRank[pr.Rank] = pr
	}
	// settle is the failure reported for failed, which holds the first
	// place: the end of the rank whose death it reports, if that rank
	// failed (blame).
	settle := func(failed error) error {
		return blame(outer, failed, deadPeerGrace, func(ctx context.Context, rank int) error {
			pr := byRank[rank]
			e, ok := ended.await(ctx, rank)
			if pr == nil || !ok || e.err != nil || e.ex.Signal == 0 && e.ex.Status == 0 {
				return nil
			}
			if cfg.Failed != nil {
				if err := cfg.Failed(outer, pr); err != nil {
					return err
				}
			}
			return exitError(cfg, pr, e.ex)
		})
	}
	for _, pr := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sink func(uint8, []byte)
			if !noIO {
				sink = out.write
				if cfg.Tag != nil {
					tag := []byte(cfg.Tag(pr))
					sink = func(s uint8, d []byte) { out.write(s, append(append([]byte(nil), tag...), d...)) }
				}
			}
			ex, err := pr.p.Wait(ctx, sink)
			ended.record(pr.Rank, ex, err)
			var instead error
			mine := false // this failure holds the first place
			if err == nil && (ex.Signal != 0 || ex.Status != 0) && cfg.Failed != nil {
				// The first failure keeps its place while Failed
				// looks closer: what it waits for may come after
				// reports of the others (their MPI_Abort on seeing
				// this process die).
				mu.Lock()
				if mine = first == nil; mine {
					first = errReserved
				}
				pr.Exit = ex
				mu.Unlock()
				if mine {
					if instead = cfg.Failed(outer, pr); instead != nil {
						instead = settle(instead)
					}
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if mine {
				first = nil
			}
			pr.Exit = ex
			if first != nil {
				return
			}
			switch {
			case err != nil && ctx.Err() != nil:
				first = &InterruptedError{Cause: context.Cause(ctx)}
			case err != nil:
				first = lost(procs, pr, err)
			case instead != nil:
				first = instead
			case ex.Signal != 0 || ex.Status != 0:
				first = exitError(cfg, pr, ex)
			case cfg.Exited != nil:
				if err := cfg.Exited(outer, pr); err != nil {
					first = err
				} else {
					return
				}
			default:
				return
			}
			cancel() // stop the others: the lamds kill them
		}()
	}
	if startErr != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case err := <-startErr:
				if ae := (*AbortError)(nil); errors.As(err, &ae) {
					// The rank that aborted exits right after its
					// report: let its exit, and the last output it
					// wrote, arrive before the others are stopped.
					select {
					case <-ctx.Done():
					case <-time.After(abortGrace):
					}
				}
				if err == nil {
					return
				}
				mu.Lock()
				mine := first == nil
				if mine {
					first = errReserved
				}
				mu.Unlock()
				if !mine {
					// Whoever holds the first place stops the job
					// (or has).
					return
				}
				err = settle(err)
				mu.Lock()
				first = err
				mu.Unlock()
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	wg.Wait()
	return first
}

// exitError is pr's failing exit ex as the job's failure.
func exitError(cfg hooks, pr *Proc, ex *wire.Exited) error {
	return &ExitError{Proc: describe(cfg, pr), Status: int(ex.Status), Signal: int(ex.Signal),
		PID: pr.PID, Node: pr.Node, Addr: pr.Addr, MPI: cfg.MPI}
}

// blame is the failure a job reports when failed is the first examined.
// LAM reports the process that failed first: a rank's MPI_Abort called
// because another rank died (AbortError.Dead: an MPI call failed on the
// dead rank's broken link) came after that death, though its report may
// reach mpirun before the dead rank's exit (the two travel apart through
// the lamds). So such an abort waits, at most grace in all, for end to
// give the dead rank's failure, and reports it instead (following a
// chain of such aborts); end returns nil if that rank did not fail or did
// not end before ctx ended. Any other failure is reported at once.
func blame(ctx context.Context, failed error, grace time.Duration, end func(ctx context.Context, rank int) error) error {
	ctx, cancel := context.WithTimeout(ctx, grace)
	defer cancel()
	seen := map[int]bool{}
	for {
		var ae *AbortError
		if !errors.As(failed, &ae) || ae.Dead < 0 || ae.Dead == ae.Rank || seen[ae.Dead] {
			return failed
		}
		seen[ae.Rank], seen[ae.Dead] = true, true
		peer := end(ctx, ae.Dead)
		if peer == nil {
			return failed
		}
		failed = peer
	}
}

// ends records how a job's processes ended, by rank, for a failure that
// waits for another's (blame).
type ends struct {
	mu      sync.Mutex
	changed chan struct{} // closed, and replaced, on every record
	by      map[int]end
}

// end is how one process ended: its exit, or the error that ended the
// wait for it.
type end struct {
	ex  *wire.Exited
	err error
}

func newEnds() *ends {
	return &ends{changed: make(chan struct{}), by: map[int]end{}}
}

func (e *ends) record(rank int, ex *wire.Exited, err error) {
	if ex == nil && err == nil {
		err = errors.New("no exit status")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.by[rank] = end{ex: ex, err: err}
	close(e.changed)
	e.changed = make(chan struct{})
}

// await returns how rank ended, waiting until it has or ctx ends (ok
// false).
func (e *ends) await(ctx context.Context, rank int) (end, bool) {
	for {
		e.mu.Lock()
		got, ok := e.by[rank]
		changed := e.changed
		e.mu.Unlock()
		if ok {
			return got, true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return end{}, false
		}
	}
}

// lost names the processes lost with pr's failure: every process, when the
// connection to the local lamd is gone; else those on pr's node.
func lost(procs []*Proc, pr *Proc, err error) error {
	var gone []*Proc
	for _, p := range procs {
		if errors.Is(err, lamclient.ErrClosed) || p.Node == pr.Node {
			gone = append(gone, p)
		}
	}
	return &LostError{Procs: gone, Err: err}
}

// output writes forwarded lines, a whole line at a time.
type output struct {
	mu             sync.Mutex
	stdout, stderr io.Writer
}

func (o *output) write(stream uint8, data []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if stream == wire.Stderr {
		o.stderr.Write(data)
	} else {
		o.stdout.Write(data)
	}
}

// exportEnv turns -x items into environment entries: NAME takes this
// process's value, NAME=value defines it.
func exportEnv(lookup func(string) (string, bool), items []string) ([]string, error) {
	var out []string
	for _, it := range items {
		if k, _, ok := strings.Cut(it, "="); ok {
			if k == "" {
				return nil, fmt.Errorf("empty variable name in %q", it)
			}
			out = append(out, it)
			continue
		}
		if lookup == nil {
			continue
		}
		if v, ok := lookup(it); ok {
			out = append(out, it+"="+v)
		}
	}
	return out, nil
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// load reads program from the source node (once) and stores a copy on the
// process's node (mpirun -s), returning its path there. Each process gets
// its own copy, deleted when it exits.
func load(ctx context.Context, cl *lamclient.Client, nodes []nodespec.Node, cache map[string][]byte, src, program string, pr appschema.Proc) (string, error) {
	spec, err := nodespec.Parse(src)
	if err != nil {
		return "", err
	}
	ids, err := nodespec.Resolve([]nodespec.Spec{spec}, nodes)
	if err != nil || len(ids) != 1 {
		return "", fmt.Errorf("-s needs exactly one node: %v", err)
	}
	key := fmt.Sprintf("%d %s", ids[0], program)
	data, ok := cache[key]
	if !ok {
		err := cl.GetFile(ctx, int32(ids[0]), program, func(b []byte) error {
			if len(data)+len(b) > wire.MaxFile {
				return fmt.Errorf("%s is larger than %d bytes", program, wire.MaxFile)
			}
			data = append(data, b...)
			return nil
		})
		if err != nil {
			return "", err
		}
		cache[key] = data
	}
	name := fmt.Sprintf("%d-%d-%s", os.Getpid(), pr.Rank, filepath.Base(program))
	return cl.PutFile(ctx, int32(pr.Node), name, data)
}

func describe(cfg hooks, p *Proc) string {
	if cfg.Describe != nil {
		return cfg.Describe(p)
	}
	return fmt.Sprintf("%d (n%d)", p.PID, p.Node)
}

// nodeAddr is the IP address of node in table ("" if it is not there).
func nodeAddr(table *wire.Nodes, node int32) string {
	for _, n := range table.Nodes {
		if n.ID == node {
			return n.Addr
		}
	}
	return ""
}
