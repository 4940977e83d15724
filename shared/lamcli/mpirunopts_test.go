package lamcli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/msg"
)

// mpirunProbe parses mpirun's command line and records what it means
// instead of starting a job.
type mpirunProbe struct {
	MPIRunOptions `embed:""`
	env           *Env
}

func (p *mpirunProbe) Run(ctx context.Context, env *Env) error {
	p.MPIRunOptions.warn(env)
	p.env = env
	return nil
}

// lamexecProbe is the same for lamexec.
type lamexecProbe struct {
	LaunchOptions `embed:""`
	env           *Env
}

func (p *lamexecProbe) Run(ctx context.Context, env *Env) error {
	p.env = env
	return nil
}

// meaning is what a launcher's command line says, in a form a table can
// hold: "np=3 where=n0 prog=./hello args=a,b" and the flags set.
func meaning(o *LaunchOptions) string {
	var f []string
	np, _ := o.count()
	if np != 0 {
		f = append(f, fmt.Sprintf("np=%d", np))
	}
	specs, rest := o.split()
	if len(specs) > 0 {
		f = append(f, "where="+strings.Join(specs, ","))
	}
	if len(rest) > 0 {
		f = append(f, "prog="+rest[0])
	}
	if len(rest) > 1 {
		f = append(f, "args="+strings.Join(rest[1:], ","))
	}
	if o.Wd != "" {
		f = append(f, "wd="+o.Wd)
	}
	if len(o.Export) > 0 {
		f = append(f, "x="+strings.Join(o.Export, ";"))
	}
	if o.Source != "" {
		f = append(f, "s="+o.Source)
	}
	for _, b := range []struct {
		on   bool
		name string
	}{{o.NoWait, "nw"}, {o.ProgDir, "D"}, {o.NoIO, "f"}, {o.Verbose, "v"}} {
		if b.on {
			f = append(f, b.name)
		}
	}
	return strings.Join(f, " ")
}

func (o *MPIRunOptions) meaning(env *Env) string {
	f := []string{meaning(&o.LaunchOptions)}
	if rpi := env.SSI.String("rpi"); rpi != "" {
		f = append(f, "rpi="+rpi)
	}
	if t := o.TraceEnv(); t != "" {
		f = append(f, jobwire.EnvTrace+"="+t)
	}
	for _, b := range []struct {
		on   bool
		name string
	}{{o.NoExport, "nx"}, {o.StatusAll, "sa"}, {o.StatusFail, "sf"}, {o.VeryVerbose, "vv"}, {o.RmSchema, "rmschema"}} {
		if b.on {
			f = append(f, b.name)
		}
	}
	if o.StatusPrefix != "mpirun:" {
		f = append(f, "p="+o.StatusPrefix)
	}
	return strings.TrimSpace(strings.Join(f, " "))
}

// LAM's mpirun command lines (facts §2.1, §3.12, LAM's own usage
// examples) and what LAM makes of them. stderr lists what must be printed
// (LAM's deprecation warnings); code is the exit code when the line is
// refused.
var mpirunLines = []struct {
	line   string
	want   string
	stderr []string
	code   int
}{
	// Options anywhere before the program.
	{line: "n0 -np 3 ./hello", want: "np=3 where=n0 prog=./hello"},
	{line: "C -ssi rpi tcp ./hello", want: "where=C prog=./hello rpi=tcp"},
	{line: "N -x FOO=1 ./hello", want: "where=N prog=./hello x=FOO=1"},
	{line: "-np 4 ./ring", want: "np=4 prog=./ring"},
	{line: "n0-7 prog1", want: "where=n0-7 prog=prog1"},
	{line: "n0 N prog3", want: "where=n0,N prog=prog3"},
	{line: "C prog4 arg1 arg2", want: "where=C prog=prog4 args=arg1,arg2"},
	{line: "c0 C prog5", want: "where=c0,C prog=prog5"},
	{line: "N -np 16 prog", want: "np=16 where=N prog=prog"},
	{line: "n0 -wd /tmp c1 -v prog", want: "where=n0,c1 prog=prog wd=/tmp v"},
	{line: "-np 2 prog -np 5 -ssi rpi lamd", want: "np=2 prog=prog args=-np,5,-ssi,rpi,lamd"},
	{line: "-np 2 -- prog -v", want: "np=2 prog=prog args=-v"},
	{line: "N -- prog", want: "where=N prog=prog"},
	{line: "-c 2 h prog", want: "np=2 where=h prog=prog"},
	{line: "myapp.schema", want: "prog=myapp.schema"},
	{line: "-x A,B=v\\,w -x C N prog", want: "where=N prog=prog x=A,B=v\\,w;C"},
	{line: "-s n1 -D N prog", want: "where=N prog=prog s=n1 D"},
	{line: "-nw -f -nx N prog", want: "where=N prog=prog nw f nx"},
	{line: "-sa -p job: N prog", want: "where=N prog=prog sa p=job:"},
	{line: "-sf N prog", want: "where=N prog=prog sf"},
	// LAM's undocumented and no-op options are read as options, never as
	// letters ("-sigs" is not "-s igs") nor as the program.
	{line: "-sigs N prog", want: "where=N prog=prog"},
	{line: "-nsigs -ger -l -pty N prog", want: "where=N prog=prog"},
	{line: "-nger -npty -O -b N prog", want: "where=N prog=prog"},
	{line: "-t N prog", want: "where=N prog=prog LAMTRACE=on"},
	{line: "-ton N prog", want: "where=N prog=prog LAMTRACE=on"},
	{line: "-toff N prog", want: "where=N prog=prog LAMTRACE=off"},
	{line: "-t -toff N prog", want: "where=N prog=prog LAMTRACE=on"},
	{line: "-vv N prog", want: "where=N prog=prog vv"},
	{line: "-rmschema app", want: "prog=app rmschema"},
	{line: "-tv N prog", want: "where=N prog=prog", stderr: []string{"-tv ignored"}},
	{line: "-client 0 host:9000 N prog", want: "where=N prog=prog", stderr: []string{"IMPI"}},
	{line: "-server 2 N prog", want: "where=N prog=prog", stderr: []string{"IMPI"}},
	{line: "-lamd N prog", want: "where=N prog=prog rpi=lamd", stderr: []string{
		"mpirun: Warning: the \"-lamd\" option is deprecated.\nmpirun: Use \"-ssi rpi lamd\" instead.\n"}},
	{line: "-c2c N prog", want: "where=N prog=prog rpi=tcp", stderr: []string{
		"mpirun: Warning: the \"-c2c\" option is deprecated.\n", "mpirun: Assuming \"-ssi rpi tcp\".\n"}},
	// LAM's -lamd wins over a -ssi rpi, which is ignored with a warning.
	{line: "-lamd -ssi rpi tcp N prog", want: "where=N prog=prog rpi=lamd", stderr: []string{"mpirun: Warning: duplicate -ssi arguments found\nmpirun: Ignoring \"-ssi rpi tcp\"\n"}},
	{line: "-ssi rpi tcp -ssi rpi usysv N prog", want: "where=N prog=prog rpi=tcp", stderr: []string{"mpirun: Warning: duplicate -ssi arguments found\nmpirun: Ignoring \"-ssi rpi usysv\"\n"}},
	{line: "--allow-run-as-root N prog", want: "where=N prog=prog"},
	// Refused as LAM refuses them: mutually exclusive options, unknown
	// options, an option without its value, nothing to run.
	{line: "-np 2 -c 2 prog", code: ExitUsage},
	{line: "-lamd -c2c N prog", code: ExitUsage},
	{line: "-ton -toff N prog", code: ExitUsage},
	{line: "-sigs -nsigs N prog", code: ExitUsage},
	{line: "-ger -nger N prog", code: ExitUsage},
	{line: "-pty -npty N prog", code: ExitUsage},
	{line: "-sa -sf N prog", code: ExitUsage},
	{line: "-w -nw N prog", code: ExitUsage},
	{line: "-wd /tmp -D N prog", code: ExitUsage},
	// LAM 7.1.4 prints its framed usage alone for an unknown option, and
	// "mpirun: Invalid argument" (exit 22) for a missing value
	// (shared/integration/testdata/lam-7.1.4).
	{line: "-frob N prog", code: ExitUsage, stderr: []string{"\nSynopsis:"}},
	{line: "N -frob prog", code: ExitUsage, stderr: []string{"\nSynopsis:"}},
	{line: "-np", code: 22, stderr: []string{"mpirun: Invalid argument\n"}},
	{line: "-ssi rpi", code: 22, stderr: []string{"mpirun: Invalid argument\n"}},
	{line: "-client 0", code: 22, stderr: []string{"mpirun: Invalid argument\n"}},
	{line: "", code: ExitUsage},
	{line: "N", code: ExitUsage},
	{line: "-np 2", code: ExitUsage},
}

func TestMpirunCommandLines(t *testing.T) {
	tool := &Tool{Name: "mpirun", Syntax: MPIRunSyntax()}
	for _, tt := range mpirunLines {
		t.Run(tt.line, func(t *testing.T) {
			p := &mpirunProbe{}
			var o, e bytes.Buffer
			code := Run(context.Background(), tool, p, strings.Fields(tt.line), &Env{Stdout: &o, Stderr: &e, Euid: 1000})
			got := ""
			if code == 0 && p.env != nil {
				got = p.meaning(p.env)
				// A line without a program is refused when the job is built.
				if _, rest := p.split(); len(rest) == 0 {
					code = ExitUsage
				}
				if _, err := p.count(); err != nil {
					code = ExitUsage
				}
			}
			if code != tt.code || (tt.code == 0 && got != tt.want) {
				t.Errorf("mpirun %s: exit %d, meaning %q; want exit %d, %q (stderr %q)", tt.line, code, got, tt.code, tt.want, e.String())
			}
			for _, s := range tt.stderr {
				if !strings.Contains(e.String(), s) {
					t.Errorf("mpirun %s: stderr %q lacks %q", tt.line, e.String(), s)
				}
			}
			if tt.code == 0 && len(tt.stderr) == 0 && e.String() != "" {
				t.Errorf("mpirun %s: stderr %q", tt.line, e.String())
			}
		})
	}
}

// mpirun without arguments prints LAM's framed usage alone.
func TestMpirunNoArguments(t *testing.T) {
	var o, e bytes.Buffer
	env := &Env{Stdout: &o, Stderr: &e, Euid: 1000}
	env.Tool = &Tool{Name: "mpirun", Syntax: MPIRunSyntax()}
	p := &MPIRunOptions{}
	_, err := p.lines(env, 0)
	code := finish(context.Background(), env.Tool, env, err)
	if code != ExitUsage || !strings.HasPrefix(e.String(), msg.Rule+"\nSynopsis:") {
		t.Errorf("mpirun without arguments: exit %d, stderr %q", code, e.String())
	}
}

var lamexecLines = []struct {
	line string
	want string
	code int
}{
	{line: "N hostname", want: "where=N prog=hostname"},
	{line: "n0 -np 3 ./hello", want: "np=3 where=n0 prog=./hello"},
	{line: "-x FOO=bar,DISPLAY N prog2", want: "where=N prog=prog2 x=FOO=bar,DISPLAY"},
	{line: "n0 N prog3", want: "where=n0,N prog=prog3"},
	{line: "C prog4 arg1 arg2", want: "where=C prog=prog4 args=arg1,arg2"},
	{line: "-pty N prog", want: "where=N prog=prog"},
	{line: "N -npty -v prog -pty", want: "where=N prog=prog args=-pty v"},
	{line: "-nw -f -D -s h N prog", want: "where=N prog=prog s=h nw D f"},
	{line: "-ssi rpi tcp N prog", code: ExitUsage}, // mpirun's, not lamexec's
	{line: "-sigs N prog", code: ExitUsage},
	{line: "-pty -npty N prog", code: ExitUsage},
	{line: "-c 2 -np 2 prog", code: ExitUsage},
}

func TestLamexecCommandLines(t *testing.T) {
	tool := &Tool{Name: "lamexec", Syntax: LaunchSyntax(nil)}
	for _, tt := range lamexecLines {
		t.Run(tt.line, func(t *testing.T) {
			p := &lamexecProbe{}
			var o, e bytes.Buffer
			code := Run(context.Background(), tool, p, strings.Fields(tt.line), &Env{Stdout: &o, Stderr: &e, Euid: 1000})
			got := ""
			if code == 0 {
				got = meaning(&p.LaunchOptions)
				if _, err := p.count(); err != nil {
					code = ExitUsage
				}
			}
			if code != tt.code || (tt.code == 0 && got != tt.want) {
				t.Errorf("lamexec %s: exit %d, meaning %q; want exit %d, %q (stderr %q)", tt.line, code, got, tt.code, tt.want, e.String())
			}
		})
	}
}

// FuzzMpirunRewrite: whatever the line, Rewrite keeps the program and its
// arguments untouched and in order, keeps the where specifications before
// the program in their order, and what it hands on parses without
// panicking.
func FuzzMpirunRewrite(f *testing.F) {
	for _, l := range mpirunLines {
		f.Add(l.line)
	}
	syn := MPIRunSyntax()
	f.Fuzz(func(t *testing.T, line string) {
		checkRewrite(t, strings.Fields(line), syn, &Tool{Name: "mpirun", Syntax: syn}, &mpirunProbe{})
	})
}

// FuzzLamexecRewrite is FuzzMpirunRewrite for lamexec's options.
func FuzzLamexecRewrite(f *testing.F) {
	for _, l := range lamexecLines {
		f.Add(l.line)
	}
	syn := LaunchSyntax(nil)
	f.Fuzz(func(t *testing.T, line string) {
		checkRewrite(t, strings.Fields(line), syn, &Tool{Name: "lamexec", Syntax: syn}, &lamexecProbe{})
	})
}

func checkRewrite(t *testing.T, in []string, syn Syntax, tool *Tool, cmd Command) {
	out, err := Rewrite(in, syn)
	if err != nil {
		return
	}
	if i := slices.Index(out, "--"); i >= 0 {
		tail := out[i+1:]
		// The tail is the specifications, then a suffix of the input.
		j := 0
		for j < len(tail) && syn.IsSpec(tail[j]) {
			j++
		}
		prog := tail[j:]
		if len(prog) > len(in) || !slices.Equal(prog, in[len(in)-len(prog):]) {
			t.Fatalf("Rewrite(%q) = %q changed the program part", in, out)
		}
		if !subsequence(tail[:j], in[:len(in)-len(prog)]) {
			t.Fatalf("Rewrite(%q) = %q: specifications %q out of the input's order", in, out, tail[:j])
		}
	}
	var o, e bytes.Buffer
	Run(context.Background(), tool, cmd, in, &Env{Stdout: &o, Stderr: &e, Euid: 1000})
}

// subsequence reports whether a's words appear in b in order.
func subsequence(a, b []string) bool {
	for _, w := range b {
		if len(a) > 0 && a[0] == w {
			a = a[1:]
		}
	}
	return len(a) == 0
}

// An app schema: read when it is the only argument; -rmschema removes it;
// -s is refused with it, as LAM refuses it.
func TestMpirunSchema(t *testing.T) {
	p := filepath.Join(t.TempDir(), "job.app")
	os.WriteFile(p, []byte("n0 -np 2 ./a\nc0 ./b x\n"), 0o644)
	var o, e bytes.Buffer
	env := &Env{Stdout: &o, Stderr: &e}
	opts := &MPIRunOptions{}
	opts.Args = []string{"--", p}
	opts.Source = "n0"
	if _, err := opts.lines(env, 0); !errors.Is(err, ErrUsage) {
		t.Errorf("-s with an app schema: %v", err)
	}
	opts.Source, opts.removeSchema = "", true
	lines, err := opts.lines(env, 0)
	if err != nil || len(lines) != 2 || lines[0].NP != 2 || lines[1].Program != "./b" {
		t.Fatalf("schema lines %+v, %v", lines, err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("-rmschema left the schema: %v", err)
	}
}
