package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/testenv"
)

// rule is the line that frames LAM's messages.
var rule = strings.Repeat("-", 77)

// envScript writes a script that prints FOO and LAMTRACE as its rank sees
// them, then becomes hello (same process, so MPI_Init follows).
func envScript(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "envhello")
	body := "#!/bin/sh\necho \"FOO=$FOO LAMTRACE=$LAMTRACE\"\nexec " + bin("hello") + "\n"
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// LAM's mpirun command lines, with options after the where specification,
// LAM's undocumented options, and LAM's messages.
func TestMpirunLAMCommandLines(t *testing.T) {
	ctx, l := bootLocal(t, 4*time.Minute)
	script := envScript(t, l.prefix)

	r := l.run(ctx, "mpirun", "n0", "-np", "3", script)
	if r.code != 0 || strings.Count(r.stdout, "Hello, world!") != 3 || strings.Count(r.stdout, "FOO= LAMTRACE=\n") != 3 {
		t.Errorf("mpirun n0 -np 3: %v", r)
	}
	if r := l.run(ctx, "mpirun", "C", "-ssi", "rpi", "tcp", "-np", "2", bin("testprog"), "p2p"); r.code != 0 || r.stdout != "p2p ok\n" {
		t.Errorf("mpirun C -ssi rpi tcp: %v", r)
	}
	if r := l.run(ctx, "mpirun", "N", "-x", "FOO=1", script); r.code != 0 || !strings.Contains(r.stdout, "FOO=1 LAMTRACE=\n") {
		t.Errorf("mpirun N -x FOO=1: %v", r)
	}
	for opt, want := range map[string]string{"-t": "on", "-ton": "on", "-toff": "off"} {
		if r := l.run(ctx, "mpirun", "N", opt, script); r.code != 0 || !strings.Contains(r.stdout, "LAMTRACE="+want+"\n") {
			t.Errorf("mpirun N %s: %v", opt, r)
		}
	}
	// -vv: LAM's progress lines.
	r = l.run(ctx, "mpirun", "-vv", "-np", "2", bin("hello"))
	if r.code != 0 || !strings.Contains(r.stdout, "mpirun: waiting for MPI_FINALIZE from 2 processes\n") ||
		len(regexp.MustCompile(`(?m)^mpirun: got MPI_FINALIZE from n0/PID \d+$`).FindAllString(r.stdout, -1)) != 2 ||
		len(regexp.MustCompile(`(?m)^\d+ \S+/hello running on n0 \(o\)$`).FindAllString(r.stdout, -1)) != 2 {
		t.Errorf("mpirun -vv: %v", r)
	}
	// LAM's options without a mechanism here run the job unchanged.
	if r := l.run(ctx, "mpirun", "-sigs", "-ger", "-l", "-pty", "-O", "N", bin("hello")); r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, "Hello") {
		t.Errorf("mpirun with LAM's no-op options: %v", r)
	}
	// Deprecated -c2c warns as LAM and selects tcp.
	if r := l.run(ctx, "mpirun", "-c2c", "N", "-np", "2", bin("testprog"), "p2p"); r.code != 0 || r.stdout != "p2p ok\n" ||
		!strings.HasPrefix(r.stderr, "mpirun: Warning: the \"-c2c\" option is deprecated.\n") {
		t.Errorf("mpirun -c2c: %v", r)
	}
	if r := l.run(ctx, "mpirun", "-lamd", "N", "-np", "2", bin("testprog"), "p2p"); r.code != 0 || r.stdout != "p2p ok\n" ||
		r.stderr != "mpirun: Warning: the \"-lamd\" option is deprecated.\nmpirun: Use \"-ssi rpi lamd\" instead.\n" {
		t.Errorf("mpirun -lamd: %v", r)
	}
	// -rmschema removes the app schema once read.
	schema := filepath.Join(l.prefix, "rm.app")
	os.WriteFile(schema, []byte("n0 -np 2 "+bin("hello")+"\n"), 0o644)
	if r := l.run(ctx, "mpirun", "-rmschema", schema); r.code != 0 || strings.Count(r.stdout, "Hello") != 2 {
		t.Errorf("mpirun -rmschema: %v", r)
	}
	if _, err := os.Stat(schema); !os.IsNotExist(err) {
		t.Errorf("-rmschema left %s: %v", schema, err)
	}
	// A program that fails before MPI_Init is LAM's no-init, exit 252.
	if r := l.run(ctx, "mpirun", "-np", "1", "/bin/false"); r.code != 252 || !strings.HasPrefix(r.stderr, rule+"\nIt seems that [at least] one of the processes") {
		t.Errorf("mpirun of a failing non-MPI program: %v", r)
	}
	// With -sf the status lines say it: no abnormal-exit message, as LAM.
	if r := l.run(ctx, "mpirun", "-sf", "-np", "2", bin("testprog"), "exit", "5"); r.code != 5 ||
		!regexp.MustCompile(`(?m)^mpirun: n0 \d+ 0 5$`).MatchString(r.stdout) || strings.Contains(r.stderr, "One of the processes") {
		t.Errorf("mpirun -sf of a failing job: %v", r)
	}
	// Framed usage alone, as LAM's, for command lines that cannot be read.
	for _, c := range [][]string{{"mpirun"}, {"lamnodes", "bogus"}, {"tping"}, {"laminfo", "-param", "rpi"}} {
		r := l.run(ctx, c[0], c[1:]...)
		if r.code != 226 || !strings.HasPrefix(r.stderr, rule+"\nSynopsis:") || !strings.HasSuffix(r.stderr, rule+"\n") {
			t.Errorf("%s: %v\nwant exit 226 and the framed usage alone", strings.Join(c, " "), r)
		}
	}
	// An option without its value: LAM's "Invalid argument", exit 22.
	if r := l.run(ctx, "mpirun", "-np"); r.code != 22 || r.stderr != "mpirun: Invalid argument\n" {
		t.Errorf("mpirun -np: %v\nwant exit 22 and LAM's Invalid argument", r)
	}
	noneLeft(t, "hello")
}

// Root is refused with LAM's words and EACCES unless asked; readers and
// -h run as root.
func TestRootRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("runs as root only")
	}
	ctx, l := bootLocal(t, 2*time.Minute)
	var env []string
	for _, kv := range l.env {
		if !strings.HasPrefix(kv, testenv.AllowRootVar+"=") {
			env = append(env, kv)
		}
	}
	run := func(tool string, args ...string) result {
		cmd := exec.CommandContext(ctx, bin(tool), args...)
		cmd.Env, cmd.Dir = env, l.prefix
		return runCmd(t, cmd)
	}
	for _, c := range [][]string{{"lamnodes"}, {"mpirun", "-np", "1", bin("hello")}, {"lamexec", "N", "true"}, {"lamboot", "-H"}, {"lamhalt", "-H"}, {"mpiexec", "-n", "1", bin("hello")}} {
		r := run(c[0], c[1:]...)
		if r.code != 13 || !strings.HasPrefix(r.stderr, rule+"\nIt is a Very Bad Idea to run this program as root.\n") || r.stdout != "" {
			t.Errorf("%s as root: %v\nwant exit 13 and LAM's deny-root text", strings.Join(c, " "), r)
		}
	}
	for _, c := range [][]string{{"laminfo", "-arch"}, {"mpirun", "-h"}, {"lamnodes", "-h"}} {
		if r := run(c[0], c[1:]...); strings.Contains(r.stderr, "Very Bad Idea") || (r.code != 0 && r.code != 226) {
			t.Errorf("%s as root: %v", strings.Join(c, " "), r)
		}
	}
	if r := run("lamnodes", "--allow-run-as-root"); r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, "n0") {
		t.Errorf("lamnodes --allow-run-as-root: %v", r)
	}
	if r := run("mpirun", "-np", "2", "--allow-run-as-root", bin("hello")); r.code != 0 || strings.Count(r.stdout, "Hello") != 2 {
		t.Errorf("mpirun --allow-run-as-root: %v", r)
	}
	if r := run("mpiexec", "-v", "--allow-run-as-root", "-n", "2", bin("hello")); r.code != 0 || strings.Count(r.stdout, "Hello") != 2 {
		t.Errorf("mpiexec -v --allow-run-as-root: %v", r)
	}
	noneLeft(t, "hello")
}

// mpiexec runs its app contexts as one job on a booted universe.
func TestMpiexec(t *testing.T) {
	ctx, l := bootLocal(t, 3*time.Minute)
	r := l.run(ctx, "mpiexec", "-n", "2", bin("hello"), ":", "-n", "1", bin("hello"))
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	sort.Strings(lines)
	if r.code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], "Hello, world! I am 0 of 3 on ") || !strings.HasPrefix(lines[2], "Hello, world! I am 2 of 3 on ") {
		t.Errorf("mpiexec -n 2 hello : -n 1 hello: %v", r)
	}
	if r := l.run(ctx, "mpiexec", "-ssi", "rpi", "tcp", "-n", "2", "-wdir", "/", bin("testprog"), "p2p"); r.code != 0 || r.stdout != "p2p ok\n" {
		t.Errorf("mpiexec -ssi rpi tcp -n 2 -wdir /: %v", r)
	}
	cfg := filepath.Join(l.prefix, "app.cfg")
	os.WriteFile(cfg, []byte("# ring\n-n 3 "+bin("testprog")+" p2p\n"), 0o644)
	if r := l.run(ctx, "mpiexec", "-configfile", cfg); r.code != 0 || r.stdout != "p2p ok\n" {
		t.Errorf("mpiexec -configfile: %v", r)
	}
	if r := l.run(ctx, "mpiexec", "-n", "2", "/bin/true"); r.code != 252 || !strings.Contains(r.stderr, "did not invoke MPI_INIT") {
		t.Errorf("mpiexec of a non-MPI program: %v", r)
	}
	if r := l.run(ctx, "mpiexec", "-host", "no-such-host-xyz", bin("hello")); r.code != 1 || !strings.Contains(r.stderr, "Invalid hostname no-such-host-xyz specified") {
		t.Errorf("mpiexec -host no-such-host: %v", r)
	}
	noneLeft(t, "hello")
}

// mpiexec -boot -machinefile boots a universe for one job and halts it.
func TestMpiexecBoot(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	sp := t.TempDir()
	l := &local{t: t, prefix: sp, env: append(os.Environ(),
		"LAM_MPI_SESSION_PREFIX="+sp, "LAM_MPI_SESSION_SUFFIX=",
		"LAM_MPI_SSI_boot_base_timeout=20", "LAMHOME=")}
	t.Cleanup(func() { l.run(context.Background(), "lamwipe", "-H") })
	mf := filepath.Join(sp, "hosts")
	os.WriteFile(mf, []byte("localhost\n"), 0o644)
	r := l.run(ctx, "mpiexec", "-boot", "-machinefile", mf, "-n", "2", bin("hello"))
	if r.code != 0 || strings.Count(r.stdout, "Hello, world!") != 2 {
		t.Errorf("mpiexec -boot -machinefile: %v", r)
	}
	if r := l.run(ctx, "lamnodes"); r.code != 253 {
		t.Errorf("the universe mpiexec booted still runs: lamnodes %v", r)
	}
	if dir := l.sessionDir(); dir != "" {
		t.Errorf("mpiexec left the session directory %s", dir)
	}
	// A failed job still halts the universe, and mpiexec exits as mpirun.
	r = l.run(ctx, "mpiexec", "-v", "-machinefile", mf, "-n", "2", bin("testprog"), "exit", "5")
	if r.code != 5 || !strings.Contains(r.stdout, "mpiexec: Booting lam..") || !strings.Contains(r.stdout, "mpiexec: Performing Lamhalt") {
		t.Errorf("mpiexec -v -machinefile of a failing job: %v", r)
	}
	if r := l.run(ctx, "lamnodes"); r.code != 253 {
		t.Errorf("the universe of a failed job still runs: lamnodes %v", r)
	}
	noneLeft(t, "hello")
	noneLeft(t, "testprog")
}
