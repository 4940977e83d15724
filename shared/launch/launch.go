// Package launch starts a job's processes across the universe, for
// lamexec (and, with the MPI wire-up on top, mpirun): it reads the where
// specifications or an app schema, schedules the processes as LAM does,
// asks the lamds to start them, forwards their standard streams, and
// reports how they ended.
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

	"github.com/lamgo/lam/shared/appschema"
	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/nodespec"
	"github.com/lamgo/lam/shared/wire"
)

// IsSpec recognises where specifications on a command line.
func IsSpec(s string) bool { return nodespec.Is(s) }

// Options are the command-line options lamexec and mpirun share.
type Options struct {
	NP      int      `name:"np" help:"Number of processes."`
	C       int      `short:"c" help:"Same as -np."`
	Wd      string   `name:"wd" help:"Working directory of the processes."`
	Export  []string `short:"x" sep:"none" help:"Export environment variables: NAME or NAME=value, comma-separated; may be repeated."`
	NoWait  bool     `name:"nw" xor:"wait" help:"Do not wait for the processes."`
	Wait    bool     `short:"w" xor:"wait" help:"Wait for the processes (the default)."`
	ProgDir bool     `short:"D" help:"Run in the directory of the program."`
	NoIO    bool     `short:"f" help:"Do not forward standard streams."`
	Verbose bool     `short:"v" help:"Report each process started."`
	Source  string   `short:"s" help:"Load the program from this node (n<id>, h or o) instead of each node's PATH."`
	Args    []string `arg:"" optional:"" passthrough:"all" help:"Where specifications, then the program and its arguments; or an app schema."`
}

// Config is what differs between the tools.
type Config struct {
	Tool string
	// Env adds variables to every process (mpirun's LAM_MPI_* exports).
	Env []string
	// EnvFor adds variables to one rank's process.
	EnvFor func(rank int) []string
	// Started runs once every process runs (mpirun's wire-up), in its
	// own goroutine; its error fails the job.
	Started func(ctx context.Context, j *Job) error
	// Exited checks a process that exited with status 0; its error fails
	// the job (mpirun: a rank that never called MPI_Init or
	// MPI_Finalize).
	Exited func(p *Proc) error
	// Failed, if set, checks a process that exited with a non-zero status
	// or a signal; an error it returns is reported instead of the exit
	// (mpirun: the rank called MPI_Abort, whose report may arrive just
	// after the exit).
	Failed func(p *Proc) error
	// Describe names a process in messages ("1234 (n0)" by default, as
	// lamexec does).
	Describe func(p *Proc) string
	// Stdin forwards this process's standard input to rank 0.
	Stdin io.Reader
	// Count, if set, learns the number of processes and the local node
	// before any starts (mpirun passes them to every rank).
	Count func(n int, self int32)
	// Finished, if set, runs once every process has ended (mpirun -sa,
	// -sf); failed says whether the job failed.
	Finished func(procs []*Proc, failed bool)
	// Tag, if set, prefixes every forwarded line of a process (mpirun
	// -tag-output).
	Tag func(p *Proc) string
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
	Node    int32
	PID     int32
	Program string
	// Exit is how the process ended (nil if that is unknown: the job was
	// stopped, or its node died).
	Exit *wire.Exited
	p    *lamclient.Process
}

// Client is the connection to the local lamd the job was started through.
func (j *Job) Client() *lamclient.Client { return j.cl }

// Kill ends every process of the job.
func (j *Job) Kill() { j.cancel() }

// Run is lamexec: start the job and wait for it.
func Run(ctx context.Context, env *lamcli.Env, o *Options, cfg Config) error {
	if o.NP != 0 && o.C != 0 {
		return lamcli.Usagef("give -np or -c, not both")
	}
	np := max(o.NP, o.C)
	if np < 0 {
		return lamcli.Usagef("-np needs a positive count")
	}
	cl, err := env.Daemon(ctx, "", "")
	if err != nil {
		return err
	}
	defer cl.Close()
	lines, err := readLines(o, np)
	if err != nil {
		return err
	}
	table, err := cl.Nodes(ctx)
	if err != nil {
		return lamcli.RemoteExit(err)
	}
	nodes := lamcli.SpecNodes(table)
	procs, err := appschema.Schedule(lines, nodes)
	if err != nil {
		var ne *nodespec.NodeError
		if errors.As(err, &ne) {
			where := fmt.Sprintf("n%d", ne.ID)
			if ne.CPU {
				where = fmt.Sprintf("c%d", ne.ID)
			}
			return lamcli.Exit(lamcli.ExitBadNode, fmt.Errorf("cannot start %s on %s: invalid node", lines[0].Program, where))
		}
		if errors.Is(err, nodespec.ErrBadNode) {
			return lamcli.Exit(lamcli.ExitBadNode, err)
		}
		return lamcli.Usagef("%v", err)
	}
	if len(procs) == 0 {
		return fmt.Errorf("no node to run on (every node has schedule=no?)")
	}
	if cfg.Count != nil {
		cfg.Count(len(procs), table.Self)
	}
	cwd, _ := os.Getwd()
	jobID := fmt.Sprintf("%d:%d", table.Self, os.Getpid())
	loaded := map[string][]byte{} // programs read with -s, by source node and name
	out := &output{stdout: env.Stdout, stderr: env.Stderr}
	var started []*Proc
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for _, pr := range procs {
		l := pr.Line
		exports, err := exportEnv(env, l.Export)
		if err != nil {
			return lamcli.Usagef("%v", err)
		}
		m := &wire.Spawn{Node: int32(pr.Node), Job: jobID, Argv: append([]string{l.Program}, l.Args...),
			Env: append(append([]string(nil), cfg.Env...), exports...)}
		if cfg.EnvFor != nil {
			m.Env = append(m.Env, cfg.EnvFor(pr.Rank)...)
		}
		if cfg.Stdin != nil && pr.Rank == 0 {
			m.Flags |= wire.SpawnStdin
		}
		if src := firstOf(l.Source, o.Source); src != "" {
			path, err := load(ctx, cl, nodes, loaded, src, l.Program, pr)
			if err != nil {
				cancel()
				return lamcli.RemoteExit(fmt.Errorf("cannot load %s from %s: %w", l.Program, src, err))
			}
			m.Argv[0], m.Flags = path, m.Flags|wire.SpawnRemoveProgram
		}
		switch {
		case l.Wd != "":
			m.Dir = l.Wd
		case o.Wd != "":
			m.Dir = o.Wd
		case o.ProgDir && strings.Contains(l.Program, "/"):
			m.Dir = filepath.Dir(l.Program)
		default:
			// LAM's default: try this directory, else $HOME there.
			m.Dir, m.Flags = cwd, m.Flags|wire.SpawnTryDir
		}
		if o.NoWait {
			m.Flags |= wire.SpawnNoWait
		}
		p, err := cl.Spawn(ctx, m)
		if err != nil {
			cancel() // the lamds kill what started
			name := nodespec.Format(pr.Node, nodes)
			why := err.Error()
			if code := lamclient.Code(err); code == wire.CodeNoEntry {
				why = "No such file or directory"
			} else if code == wire.CodeBadNode {
				why = "invalid node"
			}
			code := lamclient.Code(err)
			if code == 0 {
				code = 1
			}
			return lamcli.Exit(int(code), fmt.Errorf("cannot start %s on %s: %s", l.Program, name, why))
		}
		proc := &Proc{Rank: pr.Rank, Node: p.Node, PID: p.PID, Program: l.Program, p: p}
		started = append(started, proc)
		if o.Verbose {
			fmt.Fprintf(env.Stdout, "%d %s running on %s\n", p.PID, l.Program, nodespec.Format(pr.Node, nodes))
		}
	}
	if o.NoWait {
		return nil
	}
	job := &Job{ID: jobID, Procs: started, cl: cl, cancel: cancel}
	if cfg.Stdin != nil && len(started) > 0 {
		go forwardStdin(cfg.Stdin, started[0].p)
	}
	var startErr chan error
	if cfg.Started != nil {
		startErr = make(chan error, 1)
		go func() { startErr <- cfg.Started(ctx, job) }()
	}
	err = wait(ctx, cancel, env, started, out, o.NoIO, cfg, startErr)
	if cfg.Finished != nil {
		cfg.Finished(started, err != nil)
	}
	return err
}

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
// reported and its status returned, and the others are killed.
func wait(ctx context.Context, cancel context.CancelFunc, env *lamcli.Env, procs []*Proc, out *output, noIO bool, cfg Config, startErr chan error) error {
	var (
		mu    sync.Mutex
		first error
		bare  string // LAM prints a process's failure without the tool's name
		wg    sync.WaitGroup
	)
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
					instead = cfg.Failed(pr)
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
				first = lamcli.Exit(130, fmt.Errorf("interrupted; the processes were killed"))
			case err != nil:
				first = lamcli.RemoteExit(fmt.Errorf("%d (n%d): %w", pr.p.PID, pr.p.Node, err))
			case instead != nil:
				first = instead
			case ex.Signal != 0:
				first = lamcli.ExitQuiet(int(ex.Signal))
				bare = fmt.Sprintf("%s exited due to signal %d", describe(cfg, pr), ex.Signal)
			case ex.Status != 0:
				first = lamcli.ExitQuiet(int(ex.Status))
				bare = fmt.Sprintf("%s exited with status %d", describe(cfg, pr), ex.Status)
			case cfg.Exited != nil:
				if err := cfg.Exited(pr); err != nil {
					first = lamcli.Exit(1, err)
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
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					cancel()
				}
			case <-ctx.Done():
			}
		}()
	}
	wg.Wait()
	if bare != "" {
		fmt.Fprintln(env.Stderr, bare)
	}
	return first
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

// readLines builds the job's lines: the command line's, or an app
// schema's when the only argument names one.
func readLines(o *Options, np int) ([]appschema.Line, error) {
	var where []nodespec.Spec
	args := o.Args
	i := 0
	for ; i < len(args) && IsSpec(args[i]); i++ {
		s, err := nodespec.Parse(args[i])
		if err != nil {
			return nil, lamcli.Usagef("%v", err)
		}
		where = append(where, s)
	}
	rest := args[i:]
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:] // the end of the options, before the program
	}
	if len(rest) == 0 {
		return nil, lamcli.Usagef("no program to run")
	}
	if len(where) == 0 && np == 0 && len(rest) == 1 {
		if st, err := os.Stat(rest[0]); err == nil && st.Mode().IsRegular() && !executable(st.Mode()) {
			f, err := os.Open(rest[0])
			if err != nil {
				return nil, err
			}
			defer f.Close()
			lines, err := appschema.Parse(f, rest[0])
			if err != nil {
				return nil, err
			}
			if len(lines) == 0 {
				return nil, fmt.Errorf("%s: the app schema starts no program", rest[0])
			}
			return lines, nil
		}
	}
	var exports []string
	for _, x := range o.Export {
		items, err := appschema.SplitExport(x)
		if err != nil {
			return nil, lamcli.Usagef("-x %s: %v", x, err)
		}
		exports = append(exports, items...)
	}
	return []appschema.Line{{Where: where, NP: np, Wd: o.Wd, Export: exports, Program: rest[0], Args: rest[1:]}}, nil
}

func executable(m os.FileMode) bool { return m&0o111 != 0 }

// exportEnv turns -x items into environment entries: NAME takes this
// process's value, NAME=value defines it.
func exportEnv(env *lamcli.Env, items []string) ([]string, error) {
	var out []string
	for _, it := range items {
		if k, _, ok := strings.Cut(it, "="); ok {
			if k == "" {
				return nil, fmt.Errorf("empty variable name in %q", it)
			}
			out = append(out, it)
			continue
		}
		if v, ok := env.LookupEnv(it); ok {
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

func describe(cfg Config, p *Proc) string {
	if cfg.Describe != nil {
		return cfg.Describe(p)
	}
	return fmt.Sprintf("%d (n%d)", p.PID, p.Node)
}
