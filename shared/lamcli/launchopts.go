package lamcli

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"syscall"

	"github.com/lamgo/lam/shared/appschema"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/launch"
	"github.com/lamgo/lam/shared/msg"
	"github.com/lamgo/lam/shared/nodespec"
)

// LaunchOptions are the options of the tools that start programs (lamexec,
// mpirun), for embedding in their grammars:
//
//	lamcli.LaunchOptions `embed:""`
type LaunchOptions struct {
	NP      *int     `name:"np" help:"Number of processes."`
	C       *int     `short:"c" help:"Same as -np."`
	Wd      string   `name:"wd" xor:"dir" help:"Working directory of the processes."`
	Export  []string `short:"x" sep:"none" help:"Export environment variables: NAME or NAME=value, comma-separated; may be repeated."`
	NoWait  bool     `name:"nw" xor:"wait" help:"Do not wait for the processes."`
	Wait    bool     `short:"w" xor:"wait" help:"Wait for the processes (the default)."`
	ProgDir bool     `short:"D" xor:"dir" help:"Run in the directory of the program."`
	NoIO    bool     `short:"f" help:"Do not forward standard streams."`
	Verbose bool     `short:"v" help:"Report each process started."`
	Source  string   `short:"s" help:"Load the program from this node (n<id>, h or o) instead of each node's PATH."`
	Pty     bool     `name:"pty" xor:"pty" help:"No effect: output is forwarded through pipes, line by line."`
	NoPty   bool     `name:"npty" xor:"pty" help:"No effect (LAM's default for lamexec)."`
	Args    []string `arg:"" optional:"" passthrough:"all" help:"Where specifications, then the program and its arguments; or an app schema."`

	removeSchema bool // mpirun -rmschema: remove the app schema once read
}

// LaunchSyntax is the command line of a tool with LaunchOptions and the
// single-dash long options of extra: options, where specifications, then
// the program and its own arguments.
func LaunchSyntax(extra map[string]int) Syntax {
	return Syntax{
		Long:    Longs(map[string]int{"np": 1, "c": 1, "wd": 1, "x": 1, "nw": 0, "w": 0, "D": 0, "f": 0, "v": 0, "s": 1, "pty": 0, "npty": 0}, extra),
		Program: true,
		IsSpec:  nodespec.Is,
	}
}

// Longs merges tables of single-dash long options.
func Longs(tables ...map[string]int) map[string]int {
	m := map[string]int{}
	for _, t := range tables {
		maps.Copy(m, t)
	}
	return m
}

// Launch reads the job from the command line, connects to the local lamd
// and runs the job with run (launch.Run, or mpirun's launch.RunMPI), then
// maps launch's errors to LAM's messages and exit codes.
func (o *LaunchOptions) Launch(ctx context.Context, env *Env, run func(context.Context, *lamclient.Client, launch.Options) error) error {
	return o.launchLines(ctx, env, nil, run)
}

// launchLines is Launch with the job's lines given (nil: the command
// line's).
func (o *LaunchOptions) launchLines(ctx context.Context, env *Env, lines []appschema.Line, run func(context.Context, *lamclient.Client, launch.Options) error) error {
	np, err := o.count()
	if err != nil {
		return err
	}
	perNode, err := env.SSI.Int(launch.ParamMaxPerNode)
	if err != nil {
		return err
	}
	cl, err := env.Daemon(ctx, "", "")
	if err != nil {
		return err
	}
	defer cl.Close()
	if lines == nil {
		if lines, err = o.lines(env, np); err != nil {
			return err
		}
	}
	err = run(ctx, cl, launch.Options{
		Lines: lines, Wd: o.Wd, ProgDir: o.ProgDir, Source: o.Source, MaxPerNode: perNode,
		NoWait: o.NoWait, NoIO: o.NoIO, Verbose: o.Verbose,
		LookupEnv: env.LookupEnv, Stdout: env.Stdout, Stderr: env.Stderr,
	})
	return LaunchExit(env, err)
}

// count returns the value of -np or -c (0: neither was given), checked
// as an app schema's: at least 1, at most what a job may hold.
func (o *LaunchOptions) count() (int, error) {
	opt, p := "-np", o.NP
	switch {
	case o.NP != nil && o.C != nil:
		return 0, Usagef("give -np or -c, not both")
	case o.C != nil:
		opt, p = "-c", o.C
	case p == nil:
		return 0, nil
	}
	switch n := *p; {
	case n < 1:
		return 0, Usagef("%s needs a positive integer, not %d", opt, n)
	case n > appschema.MaxProcs:
		return 0, Usagef("%s %d: more than %d processes", opt, n, appschema.MaxProcs)
	default:
		return n, nil
	}
}

// LaunchExit maps an error of package launch to LAM's message and exit
// code.
func LaunchExit(env *Env, err error) error {
	var (
		ue *launch.UsageError
		se *launch.StartError
		xe *launch.ExitError
		ae *launch.AbortError
		me *launch.MPIError
		ie *launch.InterruptedError
		ni *launch.NoInitError
		nf *launch.NoFinalizeError
		nc *launch.NoCRError
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ue):
		return Usagef("%v", ue.Err)
	case errors.As(err, &se):
		var errno syscall.Errno
		code := int(lamclient.Code(se.Err))
		switch {
		case code != 0:
		case errors.Is(se.Err, nodespec.ErrBadNode):
			code = ExitBadNode
		case errors.As(se.Err, &errno) && errno > 0 && errno < 256:
			code = int(errno) // LAM exits with the errno: ENOENT 2, ENOTDIR 20
		default:
			code = 1
		}
		return Exit(code, err)
	case errors.As(err, &xe) && xe.MPI:
		msg.Show(env.Stderr, "mpirun", "abnormal-exit", xe.Failed())
		return ExitQuiet(xe.Code())
	case errors.As(err, &xe):
		// lamexec prints a process's failure on standard output, without
		// the tool's name, and exits 255 for one killed by a signal, as
		// LAM 7.1.4 does.
		fmt.Fprintln(env.Stdout, xe)
		if xe.Signal != 0 {
			return ExitQuiet(ExitSignaled)
		}
		return ExitQuiet(xe.Code())
	case errors.As(err, &ni):
		msg.Show(env.Stderr, "mpirun", "no-init", fmt.Sprint(ni.Node))
		return ExitQuiet(launch.ExitNoInit)
	case errors.As(err, &nf):
		msg.Show(env.Stderr, "mpirun", "no-finalize", fmt.Sprint(nf.PID), nf.NodeName(), "0")
		return ExitQuiet(1)
	case errors.As(err, &nc):
		msg.Show(env.Stderr, "mpirun", "no-cr-support", fmt.Sprint(nc.Rank), fmt.Sprintf("n%d", nc.Node), nc.Why)
		return ExitQuiet(1)
	case errors.As(err, &ae):
		return Exit(ae.ExitCode(), err)
	case errors.As(err, &me):
		return Exit(1, err)
	case errors.As(err, &ie):
		code := 130
		if sig := (*InterruptError)(nil); errors.As(ie.Cause, &sig) {
			code = sig.ExitCode()
		}
		return Exit(code, err)
	case errors.Is(err, nodespec.ErrBadNode):
		return Exit(ExitBadNode, err)
	}
	return RemoteExit(err)
}

// lines builds the job's lines: the command line's, or an app schema's
// when the only argument names one.
func (o *LaunchOptions) lines(env *Env, np int) ([]appschema.Line, error) {
	specs, rest := o.split()
	var where []nodespec.Spec
	for _, a := range specs {
		s, err := nodespec.Parse(a)
		if err != nil {
			return nil, Usagef("%v", err)
		}
		where = append(where, s)
	}
	if len(rest) == 0 {
		return nil, Usage() // LAM: the usage text alone
	}
	if len(where) == 0 && np == 0 && len(rest) == 1 {
		if st, err := os.Stat(rest[0]); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 == 0 {
			if o.Source != "" {
				return nil, Usagef("-s cannot be used with an app schema (give -s on its lines)")
			}
			f, err := os.Open(rest[0])
			if err != nil {
				return nil, err
			}
			defer f.Close()
			lines, err := appschema.Parse(f, rest[0])
			if err != nil {
				return nil, err
			}
			if o.removeSchema {
				removeSchemaFile(env, rest[0])
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
			return nil, Usagef("-x %s: %v", x, err)
		}
		exports = append(exports, items...)
	}
	return []appschema.Line{{Where: where, NP: np, Wd: o.Wd, Export: exports, Program: rest[0], Args: rest[1:]}}, nil
}

// split divides the positional arguments into the where specifications
// and the program with its arguments (or the app schema).
func (o *LaunchOptions) split() (specs, rest []string) {
	args := o.Args
	if len(args) > 0 && args[0] == "--" {
		args = args[1:] // Rewrite's end of the options, before the specifications
	}
	i := 0
	for i < len(args) && nodespec.Is(args[i]) {
		i++
	}
	rest = args[i:]
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:] // the end of the options, before the program
	}
	return args[:i], rest
}
