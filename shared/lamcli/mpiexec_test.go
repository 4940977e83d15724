package lamcli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lamgo/lam/shared/msg"
)

func TestMpiexecGlobal(t *testing.T) {
	tests := []struct {
		line string
		want string // the global options read, then | and the rest
		err  bool
	}{
		{line: "-n 2 hello", want: "| -n 2 hello"},
		{line: "-v -d -tv -n 2 hello", want: "v d tv | -n 2 hello"},
		{line: "-boot -n 1 a : -n 2 b", want: "boot | -n 1 a : -n 2 b"},
		{line: "-machinefile hosts -n 2 hello", want: "boot mf=hosts | -n 2 hello"},
		{line: "-boot-args -x -prefix /opt/lam -configfile app.cfg", want: "boot bootargs=-x prefix=/opt/lam cfg=app.cfg |"},
		{line: "-ssi rpi tcp -ssi rpi_tcp_short 1024 hello", want: "ssi=rpi:tcp,rpi_tcp_short:1024 | hello"},
		{line: "-h", want: "h |"},
		{line: "-machinefile", err: true},
		{line: "-ssi rpi", err: true},
	}
	for _, tt := range tests {
		g, rest, err := parseGlobal(strings.Fields(tt.line))
		if tt.err {
			if err == nil {
				t.Errorf("parseGlobal(%q) accepted", tt.line)
			}
			continue
		}
		var f []string
		for _, b := range []struct {
			on   bool
			name string
		}{{g.verbose, "v"}, {g.debug, "d"}, {g.tv, "tv"}, {g.boot, "boot"}, {g.help, "h"}} {
			if b.on {
				f = append(f, b.name)
			}
		}
		if g.machinefile != "" {
			f = append(f, "mf="+g.machinefile)
		}
		if len(g.bootArgs) > 0 {
			f = append(f, "bootargs="+strings.Join(g.bootArgs, ","))
		}
		if g.prefix != "" {
			f = append(f, "prefix="+g.prefix)
		}
		if g.configfile != "" {
			f = append(f, "cfg="+g.configfile)
		}
		if len(g.ssi) > 0 {
			var kv []string
			for _, a := range g.ssi {
				kv = append(kv, a.Key+":"+a.Value)
			}
			f = append(f, "ssi="+strings.Join(kv, ","))
		}
		got := strings.TrimSpace(strings.Join(f, " ") + " | " + strings.Join(rest, " "))
		if err != nil || got != tt.want {
			t.Errorf("parseGlobal(%q) = %q, %v; want %q", tt.line, got, err, tt.want)
		}
	}
}

// App contexts become app schema lines, with LAM's meaning.
func TestMpiexecLines(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "myprog")
	os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755)
	tests := []struct {
		line string
		want []string // the lines, as an app schema writes them
		err  bool
	}{
		{line: "-n 2 hello : -n 1 hello", want: []string{"-np 2 hello", "-np 1 hello"}},
		{line: "-n 2 -wdir /tmp hello a b", want: []string{"-np 2 -wd /tmp hello a b"}},
		{line: "-n 2 hello -n 3", want: []string{"-np 2 hello -n 3"}},
		{line: "-arch . hello", want: []string{"N hello"}},
		{line: "-n 2 -x FOO=1 hello", want: []string{"-np 2 -x FOO=1 hello"}},
		{line: "C hello : n0 other x", want: []string{"C hello", "n0 other x"}},
		{line: "-path /nonexistent:" + dir + " myprog", want: []string{prog}},
		{line: "-n 1 -n 2 hello", err: true},
		{line: "-n 2 hello :", err: true},
		{line: "-arch no-such-arch-xyz hello", err: true},
		{line: "-n 2", err: true},
	}
	for _, tt := range tests {
		var o, e bytes.Buffer
		env := &Env{Stdout: &o, Stderr: &e}
		contexts, err := parseContexts(strings.Fields(tt.line))
		var got []string
		if err == nil {
			lines, lerr := mpiexecLines(context.Background(), env, contexts)
			err = lerr
			for _, l := range lines {
				got = append(got, l.String())
			}
		}
		if tt.err {
			if err == nil {
				t.Errorf("mpiexec %s: accepted as %q", tt.line, got)
			}
			continue
		}
		if err != nil || strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("mpiexec %s: %q, %v; want %q", tt.line, got, err, tt.want)
		}
	}
}

func TestMpiexecConfigFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "app.cfg")
	os.WriteFile(p, []byte("# two contexts\n-n 2 hello \\\n  a b\n\n-n 1 world : -n 3 x\n"), 0o644)
	words, err := readConfigFile(p)
	if err != nil || strings.Join(words, " ") != "-n 2 hello a b : -n 1 world : -n 3 x" {
		t.Errorf("readConfigFile = %q, %v", words, err)
	}
	if _, err := readConfigFile(p + ".missing"); err == nil {
		t.Error("a missing config file was read")
	}
}

func TestSoftCount(t *testing.T) {
	tests := []struct {
		spec  string
		avail int
		want  int
		err   bool
	}{
		{"4", 8, 4, false},
		{"1:8", 5, 5, false},
		{"2:16:2", 7, 6, false},
		{"1,4,16", 10, 4, false},
		{"16,32", 4, 16, false}, // nothing fits: the least it allows
		{"0", 4, 0, true},
		{"a:b", 4, 0, true},
		{"4:2", 4, 0, true},
		{"1:2:3:4", 4, 0, true},
	}
	for _, tt := range tests {
		got, err := softCount(tt.spec, tt.avail)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("softCount(%q, %d) = %d, %v; want %d (error %v)", tt.spec, tt.avail, got, err, tt.want, tt.err)
		}
	}
}

// mpiexec -h, and without arguments, prints its usage and exits 0 (as
// LAM's); a program's own -h is the program's.
func TestMpiexecHelp(t *testing.T) {
	tool := &Tool{Name: "mpiexec", Syntax: Syntax{Raw: true}}
	for _, args := range [][]string{{"-h"}, {}, {"-v", "-h"}} {
		var o, e bytes.Buffer
		code := Run(context.Background(), tool, &MPIExec{}, args, &Env{Stdout: &o, Stderr: &e, Euid: 1000})
		if code != 0 || !strings.HasPrefix(e.String(), msg.Rule+"\nSynopsis:       mpiexec") {
			t.Errorf("mpiexec %q: exit %d, stderr %q", args, code, e.String())
		}
	}
	// Not help: the job is run (and finds no lamd here).
	var o, e bytes.Buffer
	env := &Env{Stdout: &o, Stderr: &e, Euid: 1000, Environ: []string{"LAM_MPI_SESSION_PREFIX=" + t.TempDir()}}
	code := Run(context.Background(), &Tool{Name: "mpiexec", Syntax: Syntax{Raw: true}, NoDaemonExit: ExitNoKernel}, &MPIExec{}, []string{"-n", "1", "prog", "-h"}, env)
	if code != ExitNoKernel {
		t.Errorf("mpiexec -n 1 prog -h: exit %d, stderr %q", code, e.String())
	}

}

// mpiexec refuses root after reading its global options, which may allow
// it anywhere among them.
func TestMpiexecRoot(t *testing.T) {
	tool := &Tool{Name: "mpiexec", Syntax: Syntax{Raw: true}, RootOK: true, NoDaemonExit: ExitNoKernel}
	sp := "LAM_MPI_SESSION_PREFIX=" + t.TempDir()
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"-n", "1", "prog"}, ExitDenyRoot},
		{[]string{"-v", "--allow-run-as-root", "-n", "1", "prog"}, ExitNoKernel},
		{[]string{"-h"}, 0},
	} {
		var o, e bytes.Buffer
		code := Run(context.Background(), tool, &MPIExec{}, tt.args, &Env{Stdout: &o, Stderr: &e, Euid: 0, Environ: []string{sp}})
		if code != tt.code || (code == ExitDenyRoot) != strings.Contains(e.String(), "Very Bad Idea") {
			t.Errorf("mpiexec %q as root: exit %d, stderr %q; want exit %d", tt.args, code, e.String(), tt.code)
		}
	}
}

// FuzzMpiexecParse: mpiexec's own parsers never panic, and every word of
// the local part lands in exactly one app context.
func FuzzMpiexecParse(f *testing.F) {
	f.Add("-v -ssi rpi tcp -n 2 hello : -n 1 -host h world a b")
	f.Add("-boot-args -x -machinefile m -wdir /tmp -soft 1:4 -path /bin:/usr/bin -file f prog")
	f.Fuzz(func(t *testing.T, line string) {
		_, local, err := parseGlobal(strings.Fields(line))
		if err != nil {
			return
		}
		contexts, err := parseContexts(local)
		if err != nil {
			return
		}
		words := 0
		for _, c := range contexts {
			words += len(c.rest)
			for _, v := range []string{c.n, c.host, c.arch, c.wdir, c.soft, c.path, c.file} {
				if v != "" {
					words += 2
				}
			}
		}
		if words > len(local) {
			t.Fatalf("parseContexts(%q) = %+v: more words than given", local, contexts)
		}
	})
}
