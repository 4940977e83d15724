package lamcli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/msg"
)

var mpirunSyntax = Syntax{
	Long:    map[string]int{"np": 1, "ssi": 2, "wd": 1, "nw": 0, "nx": 0, "sessionprefix": 1, "c2c": 0, "sa": 0, "param": 2, "c": 1, "v": 0},
	Program: true,
	IsSpec:  func(s string) bool { return s == "N" || s == "C" || strings.HasPrefix(s, "n0") },
}

func TestRewrite(t *testing.T) {
	tests := []struct {
		name string
		in   string
		syn  Syntax
		want string
		err  bool
	}{
		{"np", "-np 4 ./ring", mpirunSyntax, "--np=4 -- ./ring", false},
		{"ssi", "-ssi rpi tcp -ssi rpi_tcp_short 1024 -v C ./prog -np 9", mpirunSyntax, "--ssi=rpi=tcp --ssi=rpi_tcp_short=1024 -v -- C ./prog -np 9", false},
		{"gnu ssi", "--ssi rpi tcp N prog", mpirunSyntax, "--ssi=rpi=tcp -- N prog", false},
		{"gnu ssi equals kept", "--ssi=rpi=tcp prog", mpirunSyntax, "--ssi=rpi=tcp -- prog", false},
		{"gnu long with value", "--np 2 prog", mpirunSyntax, "--np 2 -- prog", false},
		{"value starting with dash", "-wd -odd prog", mpirunSyntax, "--wd=-odd -- prog", false},
		{"zero-arity", "-nw -nx n0 prog a", mpirunSyntax, "--nw --nx -- n0 prog a", false},
		{"exact beats letters", "-c2c prog", mpirunSyntax, "--c2c -- prog", false},
		{"short flags kept", "-v -c 3 prog", mpirunSyntax, "-v -c 3 -- prog", false},
		{"explicit dashes", "-np 2 -- prog -np 3", mpirunSyntax, "--np=2 -- prog -np 3", false},
		{"no program mode", "-c n0 n1", Syntax{Long: map[string]int{}}, "-c n0 n1", false},
		{"ssi value with spaces", `-ssi boot_rsh_agent ssh_-x`, Syntax{Long: map[string]int{"ssi": 2}}, "--ssi=boot_rsh_agent=ssh_-x", false},
		{"empty", "", mpirunSyntax, "", false},
		{"unknown option", "-frob -np 2 ./hello", mpirunSyntax, "", true},
		{"unknown gnu option", "--frob -np 2 ./hello", mpirunSyntax, "", true},
		{"unknown letters", "-vz ./hello", mpirunSyntax, "", true},
		{"unknown after a spec", "N -frob ./hello", mpirunSyntax, "", true},
		{"help kept", "-h -np 2 ./hello", mpirunSyntax, "-h --np=2 -- ./hello", false},
		{"gnu help kept", "--help", mpirunSyntax, "--help", false},
		{"short flags left to kong without a program", "-vz n0", Syntax{Long: map[string]int{}}, "-vz n0", false},
	}
	// A missing value is LAM's "Invalid argument", exit 22, for mpirun and
	// lamexec; a usage error for the other tools.
	for _, in := range []string{"-np", "-ssi rpi", "--ssi rpi"} {
		var ee *ExitError
		if _, err := Rewrite(strings.Fields(in), mpirunSyntax); !errors.As(err, &ee) || ee.Code != 22 || ee.Err.Error() != "Invalid argument" {
			t.Errorf("Rewrite(%q): %v; want exit 22, Invalid argument", in, err)
		}
	}
	if _, err := Rewrite([]string{"-ssi", "rpi"}, Syntax{Long: map[string]int{"ssi": 2}}); !errors.Is(err, ErrUsage) {
		t.Errorf("Rewrite(-ssi rpi) without a program: %v; want a usage error", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Rewrite(strings.Fields(tt.in), tt.syn)
			if tt.err {
				if err == nil || !errors.Is(err, ErrUsage) {
					t.Fatalf("Rewrite(%q) = %q, %v; want a usage error", tt.in, got, err)
				}
				return
			}
			if err != nil || strings.Join(got, " ") != tt.want {
				t.Errorf("Rewrite(%q) = %q, %v; want %q", tt.in, strings.Join(got, " "), err, tt.want)
			}
		})
	}
}

func FuzzRewrite(f *testing.F) {
	f.Add("-np 4 -ssi rpi tcp C ./a -x")
	f.Add("--ssi=a=b -- x")
	f.Add("n0 -v N -np 2 prog n1")
	f.Fuzz(func(t *testing.T, line string) {
		in := strings.Fields(line)
		out, err := Rewrite(in, mpirunSyntax)
		if err != nil {
			return
		}
		if len(out) > len(in)+1 {
			t.Fatalf("Rewrite grew %q to %q", in, out)
		}
		// The program and its arguments are passed through untouched,
		// after the where specifications, which keep their order.
		if i := slices.Index(out, "--"); i >= 0 {
			tail := out[i+1:]
			j := 0
			for j < len(tail) && mpirunSyntax.IsSpec(tail[j]) {
				j++
			}
			prog := tail[j:]
			if len(prog) > len(in) || !slices.Equal(prog, in[len(in)-len(prog):]) {
				t.Fatalf("Rewrite(%q) = %q changed the program part", in, out)
			}
			if !subsequence(tail[:j], in[:len(in)-len(prog)]) {
				t.Fatalf("Rewrite(%q) = %q reordered the specifications", in, out)
			}
		}
	})
}

type toy struct {
	SSIOption `embed:""`
	Verbose   bool     `short:"v"`
	Count     int      `short:"c"`
	NP        int      `name:"np"`
	Param     Pairs    `name:"param"`
	Args      []string `arg:"" optional:""`
	fail      error
	ran       *Env
}

func (c *toy) Run(ctx context.Context, env *Env) error {
	c.ran = env
	return c.fail
}

var toyTool = &Tool{Name: "toy", Syntax: Syntax{Long: map[string]int{"np": 1, "ssi": 2, "param": 2}}, HelpExit: 0, NoDaemonExit: 215}

func run(t *testing.T, c *toy, euid int, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	env := &Env{Stdout: &o, Stderr: &e, Environ: []string{"LAM_MPI_SSI_rpi_tcp_short=5"}, Euid: euid}
	code = Run(context.Background(), toyTool, c, args, env)
	return code, o.String(), e.String()
}

func TestRunParses(t *testing.T) {
	c := &toy{}
	code, _, stderr := run(t, c, 1000, "-v", "-c", "3", "-np", "2", "-ssi", "rpi", "tcp", "-param", "rpi", "all", "-ssi", "rpi", "usysv", "x", "y")
	if code != 0 || c.ran == nil {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
	if !c.Verbose || c.Count != 3 || c.NP != 2 || !slices.Equal(c.Args, []string{"x", "y"}) {
		t.Errorf("parsed %+v", c)
	}
	if len(c.Param) != 1 || c.Param[0] != (Pair{"rpi", "all"}) {
		t.Errorf("param %+v", c.Param)
	}
	if got := c.ran.SSI.String("rpi"); got != "tcp" {
		t.Errorf("rpi = %q; the first -ssi value must win", got)
	}
	if !strings.Contains(stderr, "toy: Warning: duplicate -ssi arguments found\ntoy: Ignoring \"-ssi rpi usysv\"\n") {
		t.Errorf("no duplicate warning in %q", stderr)
	}
	if c.ran.SSI.String("rpi_tcp_short") != "5" {
		t.Error("environment not used for SSI settings")
	}
	if strings.Contains(stderr, "root") {
		t.Errorf("root warning for a normal user: %q", stderr)
	}
}

func TestRunExits(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		fail   error
		euid   int
		code   int
		stderr []string
	}{
		{name: "help", args: []string{"-h"}, code: 0, stderr: []string{msg.Rule}},
		{name: "help long", args: []string{"--help"}, code: 0},
		{name: "bad flag", args: []string{"-z"}, code: ExitUsage, stderr: []string{"toy: ", "unknown flag"}},
		{name: "missing value", args: []string{"-np"}, code: ExitUsage, stderr: []string{msg.Rule + "\n"}},
		{name: "bad int", args: []string{"-c", "x"}, code: ExitUsage},
		{name: "usage from run", fail: Usagef("need a node"), code: ExitUsage, stderr: []string{"toy: need a node"}},
		{name: "exit error", fail: Exit(229, errors.New("invalid node n9")), code: 229, stderr: []string{"toy: invalid node n9"}},
		{name: "quiet exit", fail: ExitQuiet(3), code: 3},
		{name: "no daemon", fail: fmt.Errorf("dial: %w", ErrNoDaemon), code: 215, stderr: []string{"lamboot"}},
		{name: "not implemented", fail: ErrNotImplemented, code: ExitNotImplemented, stderr: []string{"not implemented yet"}},
		{name: "plain error", fail: errors.New("boom"), code: 1, stderr: []string{"toy: boom"}},
		{name: "root refused", euid: 0, code: ExitDenyRoot, stderr: []string{msg.Rule + "\nIt is a Very Bad Idea to run this program as root.\n", "--allow-run-as-root"}},
		{name: "root allowed by option", euid: 0, args: []string{"--allow-run-as-root", "-v"}, code: 0},
		{name: "root allowed by single-dash option", euid: 0, args: []string{"-allow-run-as-root"}, code: 0},
		{name: "root help", euid: 0, args: []string{"-h"}, code: 0, stderr: []string{"toy:usage"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			euid := tt.euid
			if !strings.HasPrefix(tt.name, "root") {
				euid = 1000
			}
			code, _, stderr := run(t, &toy{fail: tt.fail}, euid, tt.args...)
			if code != tt.code {
				t.Errorf("code = %d, want %d (stderr %q)", code, tt.code, stderr)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr %q lacks %q", stderr, s)
				}
			}
			if strings.HasPrefix(tt.name, "root allowed") && stderr != "" {
				t.Errorf("allowed root printed %q", stderr)
			}
			if tt.name == "missing value" && !strings.HasPrefix(stderr, msg.Rule) {
				t.Errorf("a line before the framed usage: %q", stderr)
			}
		})
	}
}

// LAM_ALLOW_RUN_AS_ROOT=1 lets root run a tool, silently; the option
// passes the permission on to the tools it starts; a tool that may run as
// root (RootOK) never refuses.
func TestRootAllowed(t *testing.T) {
	var o, e bytes.Buffer
	c := &toy{}
	env := &Env{Stdout: &o, Stderr: &e, Environ: []string{AllowRootVar + "=1"}, Euid: 0}
	if code := Run(context.Background(), toyTool, c, nil, env); code != 0 || e.String() != "" {
		t.Errorf("%s=1: exit %d, stderr %q", AllowRootVar, code, e.String())
	}
	c, e = &toy{}, bytes.Buffer{}
	env = &Env{Stdout: &o, Stderr: &e, Euid: 0}
	if code := Run(context.Background(), toyTool, c, []string{AllowRootOption, "-v"}, env); code != 0 || !c.Verbose || c.ran.Getenv(AllowRootVar) != "1" {
		t.Errorf("%s: exit %d, stderr %q, env %q", AllowRootOption, code, e.String(), env.Environ)
	}
	reader := &Tool{Name: "reader", RootOK: true}
	if code := Run(context.Background(), reader, &toy{}, nil, &Env{Stdout: &o, Stderr: &e, Euid: 0}); code != 0 {
		t.Errorf("RootOK tool refused root: %d", code)
	}
	// The program's own --allow-run-as-root is the program's.
	args, allow := takeAllowRoot([]string{"-np", "2", "./a", "--allow-run-as-root"}, mpirunSyntax)
	if allow || len(args) != 4 {
		t.Errorf("takeAllowRoot took the program's option: %q %v", args, allow)
	}
	args, allow = takeAllowRoot([]string{"-ssi", "rpi", "tcp", "N", "--allow-run-as-root", "./a"}, mpirunSyntax)
	if !allow || strings.Join(args, " ") != "-ssi rpi tcp N ./a" {
		t.Errorf("takeAllowRoot = %q %v", args, allow)
	}
}

func TestBanner(t *testing.T) {
	var b bytes.Buffer
	Banner(&b)
	lines := strings.Split(b.String(), "\n")
	if len(lines) != 4 || lines[0] != "" || lines[2] != "" || !strings.HasPrefix(lines[1], "LAM/Go ") {
		t.Errorf("banner %q is not blank, name+version, blank", b.String())
	}
}

func TestStub(t *testing.T) {
	tool, cmd := Stub("lamfoo", "issue 99", 0)
	var o, e bytes.Buffer
	if code := Run(context.Background(), tool, cmd, []string{"-np", "4", "N", "./x", "-y"}, &Env{Stdout: &o, Stderr: &e}); code != ExitNotImplemented {
		t.Errorf("stub exit %d, want %d", code, ExitNotImplemented)
	}
	if !strings.Contains(e.String(), "lamfoo is not implemented yet") || !strings.Contains(e.String(), "issue 99") || o.Len() != 0 {
		t.Errorf("stub output: stdout %q stderr %q", o.String(), e.String())
	}
	e.Reset()
	if code := Run(context.Background(), tool, cmd, []string{"-h"}, &Env{Stdout: &o, Stderr: &e}); code != 0 || !strings.Contains(e.String(), msg.Rule) {
		t.Errorf("stub -h: exit %d, stderr %q", code, e.String())
	}
}

// An interrupted tool exits as a shell reports a command the signal ended,
// whether it returns the context's error or an error wrapping the cause.
func TestInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(&InterruptError{Signal: syscall.SIGINT})
	for _, fail := range []error{
		fmt.Errorf("waiting: %w", context.Canceled),
		fmt.Errorf("boot: %w", context.Cause(ctx)),
	} {
		var o, e bytes.Buffer
		env := &Env{Stdout: &o, Stderr: &e, Euid: 1000}
		if code := Run(ctx, toyTool, &toy{fail: fail}, nil, env); code != 130 {
			t.Errorf("%v: exit %d, want 130", fail, code)
		}
		if !strings.HasPrefix(e.String(), "toy: ") || !strings.Contains(e.String(), "interrupted (SIGINT)") {
			t.Errorf("%v: stderr %q", fail, e.String())
		}
	}
	if got := (&InterruptError{Signal: syscall.SIGTERM}).ExitCode(); got != 143 {
		t.Errorf("SIGTERM exit %d, want 143", got)
	}
}

// SignalContext ends its context with the signal as the cause.
func TestSignalContext(t *testing.T) {
	ctx, stop := SignalContext(context.Background())
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("no cancellation after SIGINT")
	}
	var ie *InterruptError
	if !errors.As(context.Cause(ctx), &ie) || ie.Signal != syscall.SIGINT {
		t.Errorf("cause %v", context.Cause(ctx))
	}
}
