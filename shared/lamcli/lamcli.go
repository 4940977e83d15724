// Package lamcli is the command-line layer every tool shares: LAM's
// single-dash long options on top of kong, -ssi, per-tool help from the
// message catalog, LAM's exit codes, the banner and the refusal to run as
// root unless asked (--allow-run-as-root, LAM_ALLOW_RUN_AS_ROOT=1).
//
// A tool's main is a grammar struct with a Run(context.Context,
// *lamcli.Env) error method and one line:
//
//	func main() { lamcli.Main(tool, &cmd{}) }
package lamcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/lamgo/lam/shared/buildinfo"
	"github.com/lamgo/lam/shared/install"
	"github.com/lamgo/lam/shared/msg"
	"github.com/lamgo/lam/shared/ssi"
)

// Tool describes one command.
type Tool struct {
	Name   string
	Syntax Syntax
	// HelpExit is the exit code after -h (LAM: 0 for most tools, 226 for
	// laminfo and lamd).
	HelpExit int
	// NoDaemonExit is the exit code when no lamd answers (LAM: 253 or 215
	// depending on the tool); 0 means ExitNoDaemon.
	NoDaemonExit int
	// RootOK lets the tool run as root without being asked: tools that
	// only read (laminfo, recon) and the daemons lamboot starts (hboot,
	// lamd), which lamboot's own check covers. Every other tool refuses
	// root, as LAM did, unless AllowRootVar is 1 or the command line
	// holds AllowRootOption.
	RootOK bool
	// NoRootWarning is the old name of RootOK, from when root was only
	// warned about; it still means RootOK.
	//
	// Deprecated: use RootOK.
	NoRootWarning bool
}

// AllowRootVar and AllowRootOption let a tool run as root (Open MPI's
// habit; LAM could only be built that way). A tool allowed by the option
// adds AllowRootVar=1 to Env.Environ, so that the tools it starts are
// allowed too.
const (
	AllowRootVar    = "LAM_ALLOW_RUN_AS_ROOT"
	AllowRootOption = "--allow-run-as-root"
)

// ExitDenyRoot is LAM's exit code when it refuses root: EACCES.
const ExitDenyRoot = 13

// Env is what a command runs with. Tests build one with their own streams
// and environment.
type Env struct {
	Tool    *Tool
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	Environ []string // os.Environ() form
	Euid    int
	// SSI resolves SSI parameters from -ssi options and LAM_MPI_SSI_*.
	SSI   *ssi.Settings
	Log   *slog.Logger
	Paths install.Paths
}

// Getenv looks a variable up in Environ.
func (e *Env) Getenv(key string) string {
	v, _ := e.LookupEnv(key)
	return v
}

// LookupEnv looks a variable up in Environ; the last entry wins, as in
// the process environment.
func (e *Env) LookupEnv(key string) (string, bool) {
	for i := len(e.Environ) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(e.Environ[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// Warnf prints "tool: warning: …" on stderr.
func (e *Env) Warnf(format string, args ...any) {
	fmt.Fprintf(e.Stderr, "%s: warning: %s\n", e.Tool.Name, fmt.Sprintf(format, args...))
}

// Command is a tool's grammar. Run's context ends when the user
// interrupts the tool (SIGINT, SIGTERM); its cause is then an
// *InterruptError.
type Command interface {
	Run(ctx context.Context, env *Env) error
}

// OSEnv returns an Env for the real process.
func OSEnv() *Env {
	return &Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Environ: os.Environ(), Euid: os.Geteuid()}
}

// Main runs the tool on the process's arguments and exits. The context it
// passes to the command ends on SIGINT or SIGTERM.
func Main(t *Tool, cmd Command) {
	ctx, stop := SignalContext(context.Background())
	code := Run(ctx, t, cmd, os.Args[1:], OSEnv())
	stop()
	os.Exit(code)
}

// Banner writes the banner in LAM's shape: a blank line, the project and
// its version, a blank line.
func Banner(w io.Writer) {
	fmt.Fprintf(w, "\n%s %s - LAM/MPI for today, in Go\n\n", buildinfo.Name, buildinfo.Version)
}

// IsHelp reports whether the command line asks for help before any
// program name.
func isHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// Run parses args, runs cmd with ctx and returns the exit code. It never
// exits the process, so tests can call it.
func Run(ctx context.Context, t *Tool, cmd Command, args []string, env *Env) int {
	env.Tool = t
	if env.Log == nil {
		env.Log = slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	if env.Stdin == nil {
		env.Stdin = strings.NewReader("")
	}
	env.Paths = install.Find(env.Getenv)
	args, allowRoot := takeAllowRoot(args, t.Syntax)
	rewritten, err := Rewrite(args, t.Syntax)
	helpScan := rewritten
	if t.Syntax.Raw {
		// A raw command line reads its own; -h counts among the leading
		// options only, not as the argument of a program it runs.
		helpScan = args
		for i, a := range args {
			if !strings.HasPrefix(a, "-") {
				helpScan = args[:i]
				break
			}
		}
	}
	if err == nil && isHelp(helpScan) {
		msg.Show(env.Stderr, t.Name, "usage")
		return t.HelpExit
	}
	if err != nil {
		return finish(ctx, t, env, err)
	}
	parser, err := kong.New(cmd,
		kong.Name(t.Name),
		kong.NoDefaultHelp(),
		kong.Writers(env.Stdout, env.Stderr),
		kong.Exit(func(int) {}),
		// LAM takes the word after an option as its value even if it
		// starts with "-" (hboot -I "-H addr -P port ...").
		kong.WithHyphenPrefixedParameters(true),
	)
	if err != nil {
		fmt.Fprintf(env.Stderr, "%s: internal error: %v\n", t.Name, err)
		return 1
	}
	if _, err := parser.Parse(rewritten); err != nil {
		return finish(ctx, t, env, fmt.Errorf("%w: %v", ErrUsage, err))
	}
	var sargs []ssi.Arg
	if c, ok := cmd.(ssiCarrier); ok {
		sargs = c.ssiArgs()
		warnDuplicates(env, sargs)
	}
	env.SSI = ssi.NewSettings(sargs, env.Environ)
	if allowRoot {
		env.allowRoot()
	}
	if !t.RootOK && !t.NoRootWarning {
		if err := env.checkRoot(); err != nil {
			return finish(ctx, t, env, err)
		}
	}
	return finish(ctx, t, env, cmd.Run(ctx, env))
}

// allowRoot records that the command line allowed root, for this tool
// and the tools it starts.
func (e *Env) allowRoot() { e.Environ = append(e.Environ, AllowRootVar+"="+"1") }

// checkRoot refuses root, unless allowed, with LAM's deny-root text.
func (e *Env) checkRoot() error {
	if e.Euid != 0 || e.Getenv(AllowRootVar) == "1" {
		return nil
	}
	msg.Show(e.Stderr, e.Tool.Name, "deny-root", e.Tool.Name)
	return ExitQuiet(ExitDenyRoot)
}

// takeAllowRoot removes AllowRootOption (or its single-dash form) from
// the tool's own options: before the first "--" and, for tools that run a
// program, before the first word that is neither an option nor a node
// specification; for a Raw tool only at the start of the line.
func takeAllowRoot(args []string, s Syntax) ([]string, bool) {
	allow := false
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == AllowRootOption || a == AllowRootOption[1:] {
			allow = true
			continue
		}
		if s.Raw || a == "--" || (s.Program && !strings.HasPrefix(a, "-") && (s.IsSpec == nil || !s.IsSpec(a)) && !isOptionValue(args, i, s)) {
			return append(out, args[i:]...), allow
		}
		out = append(out, a)
	}
	return out, allow
}

// isOptionValue reports whether args[i] is the value of an option before
// it (-np 4, -ssi rpi tcp).
func isOptionValue(args []string, i int, s Syntax) bool {
	for back := 1; back <= 2 && i-back >= 0; back++ {
		name := strings.TrimLeft(args[i-back], "-")
		if n, ok := s.Long[name]; ok && strings.HasPrefix(args[i-back], "-") && n >= back {
			return true
		}
	}
	return false
}

func warnDuplicates(env *Env, args []ssi.Arg) {
	seen := map[string]bool{}
	warned := false
	for _, a := range args {
		if !seen[a.Key] {
			seen[a.Key] = true
			continue
		}
		if !warned {
			fmt.Fprintln(env.Stderr, msg.Text(env.Tool.Name, "duplicate-ssi", env.Tool.Name))
			warned = true
		}
		fmt.Fprintln(env.Stderr, msg.Text(env.Tool.Name, "ignored-ssi", env.Tool.Name, a.Key, a.Value))
	}
}

// WarnUnknownParams warns about every SSI parameter set on the command line
// or in the environment that no registered module uses. Only programs that
// link every module may call it (laminfo, MPI processes).
func WarnUnknownParams(env *Env) {
	for _, k := range env.SSI.Unknown() {
		src := "-ssi"
		if _, s := env.SSI.Value(k); s == ssi.FromEnvironment {
			src = ssi.EnvVar(k)
		}
		fmt.Fprintln(env.Stderr, msg.Text(env.Tool.Name, "unknown-ssi-param", env.Tool.Name, k, src))
	}
}

// finish maps an error to LAM's exit code, printing it once.
func finish(ctx context.Context, t *Tool, env *Env, err error) int {
	if err == nil {
		return 0
	}
	var (
		ee *ExitError
		ie *InterruptError
	)
	switch {
	case errors.As(err, &ee):
		if !ee.Quiet && ee.Err != nil {
			fmt.Fprintf(env.Stderr, "%s: %v\n", t.Name, ee.Err)
		}
		return ee.Code
	case errors.Is(err, ErrUsage):
		// LAM prints its framed usage alone when the command line cannot
		// be read at all (Usage); a detail it has (Usagef) comes first.
		if detail, ok := strings.CutPrefix(err.Error(), ErrUsage.Error()+": "); ok {
			fmt.Fprintf(env.Stderr, "%s: %v\n", t.Name, detail)
		}
		msg.Show(env.Stderr, t.Name, "usage")
		return ExitUsage
	case errors.Is(err, ErrNoDaemon):
		msg.Show(env.Stderr, t.Name, "no-lamd", t.Name, err.Error())
		if t.NoDaemonExit != 0 {
			return t.NoDaemonExit
		}
		return ExitNoDaemon
	case errors.Is(err, ErrNotImplemented):
		detail := strings.TrimPrefix(err.Error(), ErrNotImplemented.Error()+": ")
		msg.Show(env.Stderr, t.Name, "not-implemented", t.Name, detail)
		return ExitNotImplemented
	case errors.As(err, &ie):
		fmt.Fprintf(env.Stderr, "%s: %v\n", t.Name, err)
		return ie.ExitCode()
	case errors.Is(err, context.Canceled) && errors.As(context.Cause(ctx), &ie):
		fmt.Fprintf(env.Stderr, "%s: %v\n", t.Name, ie)
		return ie.ExitCode()
	}
	fmt.Fprintf(env.Stderr, "%s: %v\n", t.Name, err)
	return 1
}
