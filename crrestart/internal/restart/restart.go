// Package restart is crrestart (and lamrestart): it reads a checkpoint
// set (shared/crset), rebuilds the job's lines for the current universe
// and runs them as mpirun does (lamcli.MPIRunOptions.RunLines), every
// rank started with jobwire.EnvRestart naming the set.
package restart

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/lamgo/lam/shared/appschema"
	"github.com/lamgo/lam/shared/crset"
	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/launch"
	"github.com/lamgo/lam/shared/ssi"
)

// ParamRestartArgs is LAM's cr_restart_args: the mpirun command line
// lamrestart runs (LAM's self module).
const ParamRestartArgs = launch.ParamCRRestartArgs

// ExitBadSet is the exit code for a set that cannot be restarted.
const ExitBadSet = 1

// Tool is the tool's description, under name (crrestart or lamrestart).
func Tool(name string) *lamcli.Tool {
	return &lamcli.Tool{Name: name, NoDaemonExit: lamcli.ExitNoKernel,
		Syntax: lamcli.Syntax{Long: map[string]int{"ssi": 2, "sa": 0, "sf": 0, "tag-output": 0, "v": 0, "cr-period": 1}}}
}

// Cmd is the command line.
type Cmd struct {
	lamcli.SSIOption `embed:""`
	StatusAll        bool     `name:"sa" xor:"status" help:"Report the exit status of every process."`
	StatusFail       bool     `name:"sf" xor:"status" help:"Report the exit status of every process on failure."`
	TagOutput        bool     `name:"tag-output" help:"Prefix every line of output with [rank]."`
	Verbose          bool     `short:"v" help:"Report each process started."`
	CRPeriod         string   `name:"cr-period" help:"Checkpoint the restarted job this often."`
	Args             []string `arg:"" optional:"" help:"The checkpoint set, or a job's directory of sets."`
}

// Run restarts the job.
func (c *Cmd) Run(ctx context.Context, env *lamcli.Env) error {
	if v, _ := env.SSI.Value(string(ssi.CR)); v != "" && v != "self" {
		return lamcli.Exit(ExitBadSet, fmt.Errorf("cr module %q is not available: LAM/Go restarts with the self module", v))
	}
	if len(c.Args) == 0 {
		if args := env.SSI.String(ParamRestartArgs); args != "" {
			return rerun(ctx, env, args)
		}
		return lamcli.Usage()
	}
	if len(c.Args) > 1 {
		return lamcli.Usagef("one checkpoint set at a time: %s", strings.Join(c.Args, " "))
	}
	dir, d, err := crset.Resolve(c.Args[0])
	if err != nil {
		return lamcli.Exit(ExitBadSet, fmt.Errorf("cannot restart: %w", err))
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return err
	}
	env.SSI = ssi.NewSettings(Settings(c.SSI, d), env.Environ)
	if d.Wd != "" {
		// As mpirun's default: the job's directory if there is one, else
		// this one (each node falls back to $HOME).
		_ = os.Chdir(d.Wd)
	}
	o := &lamcli.MPIRunOptions{StatusAll: c.StatusAll, StatusFail: c.StatusFail, StatusPrefix: "mpirun:",
		TagOutput: c.TagOutput, NoExport: true, CRPeriod: c.CRPeriod}
	o.Verbose = c.Verbose
	o.ProgDir = d.ProgDir
	return o.RunLines(ctx, env, Lines(d, dir, env.Environ))
}

// Settings are the restarted job's SSI parameters: the command line's
// first (a key's first value wins), then the job's own as the set
// recorded them (its -ssi options and the LAM_MPI_SSI_* it exported).
func Settings(cmdline []ssi.Arg, d *crset.Desc) []ssi.Arg {
	out := append([]ssi.Arg(nil), cmdline...)
	seen := map[string]bool{}
	for _, a := range cmdline {
		seen[a.Key] = true
	}
	add := func(k, v string) {
		if k != "" && !seen[k] {
			seen[k] = true
			out = append(out, ssi.Arg{Key: k, Value: v})
		}
	}
	for _, kv := range d.SSI {
		k, v, _ := strings.Cut(kv, "=")
		add(k, v)
	}
	for _, kv := range d.Env {
		if rest, ok := strings.CutPrefix(kv, ssi.EnvPrefix); ok {
			k, v, _ := strings.Cut(rest, "=")
			add(k, v)
		}
	}
	return out
}

// sessionPrefix begins the variables that say which universe a process
// belongs to: the restarted job takes them from crrestart's environment,
// not from the set.
const sessionPrefix = "LAM_MPI_SESSION_"

// Lines are the job's lines for the current universe: each app with the
// number of ranks it had, placed as mpirun places -np (no where
// specification: the universe may not have those nodes; no -s), with
// its arguments, directory and environment (environ's LAM_MPI_SESSION_*
// for the set's), and EnvRestart naming the set. Apps keep their order,
// so every rank keeps its program.
func Lines(d *crset.Desc, dir string, environ []string) []appschema.Line {
	var common []string
	for _, kv := range d.Env {
		if !strings.HasPrefix(kv, ssi.EnvPrefix) && !strings.HasPrefix(kv, sessionPrefix) && !strings.HasPrefix(kv, jobwire.EnvRestart+"=") {
			common = append(common, kv)
		}
	}
	for _, kv := range launch.LAMEnviron(environ) {
		if strings.HasPrefix(kv, sessionPrefix) {
			common = append(common, kv)
		}
	}
	lines := make([]appschema.Line, 0, len(d.Apps))
	for _, a := range d.Apps {
		var export []string
		for _, kv := range a.Export {
			if !strings.HasPrefix(kv, jobwire.EnvRestart+"=") {
				export = append(export, kv)
			}
		}
		export = append(append(export, common...), jobwire.EnvRestart+"="+dir)
		lines = append(lines, appschema.Line{NP: a.NP, Wd: a.Wd, Export: export, Program: a.Program, Args: a.Args})
	}
	return lines
}

// rerun is lamrestart with LAM's cr_restart_args: mpirun (beside this
// program) runs those arguments; its exit status is ours.
func rerun(ctx context.Context, env *lamcli.Env, line string) error {
	args, err := Split(line)
	if err != nil {
		return lamcli.Usagef("%s: %v", ParamRestartArgs, err)
	}
	if len(args) == 0 {
		return lamcli.Usagef("%s is empty", ParamRestartArgs)
	}
	mpirun := "mpirun"
	if exe, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(exe), "mpirun"); fileExists(p) {
			mpirun = p
		}
	}
	cmd := exec.CommandContext(ctx, mpirun, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = env.Stdin, env.Stdout, env.Stderr
	cmd.Env = env.Environ
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return lamcli.ExitQuiet(ee.ExitCode())
	}
	return err
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// Split divides a command line into words: blanks (space, tab, newline)
// separate them, '...' and "..." quote (no escapes inside single quotes;
// \ escapes the next byte elsewhere). Other bytes are kept as they are.
func Split(s string) ([]string, error) {
	var (
		out   []string
		cur   []byte
		inTok bool
		quote byte
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur = append(cur, c)
			}
		case c == '\\':
			if i+1 == len(s) {
				return nil, errors.New("a trailing backslash")
			}
			i++
			cur = append(cur, s[i])
			inTok = true
		case quote == '"':
			if c == '"' {
				quote = 0
			} else {
				cur = append(cur, c)
			}
		case c == '\'' || c == '"':
			quote, inTok = c, true
		case isBlank(c):
			if inTok {
				out = append(out, string(cur))
				cur = cur[:0]
				inTok = false
			}
		default:
			cur = append(cur, c)
			inTok = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("an unclosed %c quote", quote)
	}
	if inTok {
		out = append(out, string(cur))
	}
	return out, nil
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }
