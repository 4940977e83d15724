package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/testenv"
)

func TestMPIRun(t *testing.T) {
	ctx, l := bootLocal(t, 4*time.Minute)

	// More ranks than cores.
	r := l.run(ctx, "mpirun", "-np", "5", bin("hello"))
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	sort.Strings(lines)
	if r.code != 0 || len(lines) != 5 || !strings.HasPrefix(lines[0], "Hello, world! I am 0 of 5 on ") || !strings.HasPrefix(lines[4], "Hello, world! I am 4 of 5 on ") {
		t.Errorf("mpirun -np 5 hello: %v", r)
	}
	if r := l.run(ctx, "mpirun", "-np", "3", bin("ring")); r.code != 0 || !strings.Contains(r.stdout, "Process 0 decremented value: 0") ||
		strings.Count(r.stdout, "exiting") != 3 {
		t.Errorf("ring: %v", r)
	}
	for _, np := range []string{"2", "4", "8"} {
		if r := l.run(ctx, "mpirun", "-np", np, bin("testprog"), "p2p"); r.code != 0 || r.stdout != "p2p ok\n" {
			t.Errorf("p2p with %s ranks: %v", np, r)
		}
	}
	// Each rpi module, chosen with -ssi rpi.
	for _, module := range []string{"tcp", "crtcp", "lamd"} {
		if r := l.run(ctx, "mpirun", "-ssi", "rpi", module, "-np", "3", bin("testprog"), "p2p"); r.code != 0 || r.stdout != "p2p ok\n" {
			t.Errorf("p2p over %s: %v", module, r)
		}
	}
	// Ranks that chose different rpi modules are refused (an app schema
	// gives each line its own environment).
	schema := filepath.Join(l.prefix, "mixed.app")
	os.WriteFile(schema, []byte(fmt.Sprintf("n0 -x LAM_MPI_SSI_rpi=tcp %s p2p\nn0 -x LAM_MPI_SSI_rpi=crtcp %s p2p\n", bin("testprog"), bin("testprog"))), 0o644)
	if r := l.run(ctx, "mpirun", schema); r.code == 0 || !strings.Contains(r.stderr, "same rpi module") {
		t.Errorf("mixed rpi modules: %v", r)
	}
	for _, np := range []string{"1", "3", "6"} {
		if r := l.run(ctx, "mpirun", "-np", np, bin("testprog"), "comm"); r.code != 0 || r.stdout != "comm ok\n" {
			t.Errorf("communicators with %s ranks: %v", np, r)
		}
	}
	if r := l.run(ctx, "mpirun", "-np", "2", bin("testprog"), "big", "80"); r.code != 0 || r.stdout != "received 80 MiB\n" {
		t.Errorf("80 MiB message: %v", r)
	}
	// -tag-output prefixes each line with its rank.
	if r := l.run(ctx, "mpirun", "-tag-output", "-np", "2", bin("hello")); r.code != 0 ||
		!regexp.MustCompile(`(?m)^\[0\] Hello, world! I am 0 of 2`).MatchString(r.stdout) || !strings.Contains(r.stdout, "[1] Hello, world! I am 1 of 2") {
		t.Errorf("mpirun -tag-output: %v", r)
	}
	// -sa: one status line per process.
	if r := l.run(ctx, "mpirun", "-sa", "-np", "2", bin("hello")); r.code != 0 ||
		!regexp.MustCompile(`(?m)^mpirun: n0 \d+ 0 0\nmpirun: n0 \d+ 0 0\n\z`).MatchString(r.stdout) {
		t.Errorf("mpirun -sa: %v", r)
	}
	// -sf prints them only on failure, with the prefix of -p.
	if r := l.run(ctx, "mpirun", "-sf", "-p", "job:", "-np", "2", bin("hello")); strings.Contains(r.stdout, "job:") {
		t.Errorf("mpirun -sf on success: %v", r)
	}
	if r := l.run(ctx, "mpirun", "-sf", "-np", "3", bin("testprog"), "exit", "5"); r.code != 5 ||
		!regexp.MustCompile(`(?m)^mpirun: n0 \d+ 0 5$`).MatchString(r.stdout) {
		t.Errorf("mpirun -sf on failure: %v", r)
	}
	// -s loads the program from a node into each process's session
	// directory, and removes it after.
	if r := l.run(ctx, "mpirun", "-s", "n0", "-np", "2", bin("testprog"), "whereami"); r.code != 0 || !strings.HasSuffix(r.stdout, " true\n") || !strings.HasPrefix(r.stdout, "lam-") {
		t.Errorf("mpirun -s n0: %v", r)
	}
	if loaded, _ := filepath.Glob(filepath.Join(l.sessionDir(), "lam-load-*")); len(loaded) != 0 {
		t.Errorf("loaded programs left behind: %v", loaded)
	}
	if r := l.run(ctx, "mpirun", "-s", "n0", "-np", "1", "no-such-program-xyz"); r.code == 0 || !strings.Contains(r.stderr, "cannot load no-such-program-xyz from n0") {
		t.Errorf("mpirun -s with a missing program: %v", r)
	}
	// Standard input goes to rank 0 only.
	cmd := exec.CommandContext(ctx, bin("mpirun"), "-np", "2", bin("testprog"), "stdin")
	cmd.Env, cmd.Dir, cmd.Stdin = l.env, l.prefix, strings.NewReader("typed\nlines\n")
	if r := runCmd(t, cmd); r.code != 0 || !strings.Contains(r.stdout, `rank 0 read "typed\nlines\n"`) || !strings.Contains(r.stdout, `rank 1 read ""`) {
		t.Errorf("stdin: %v", r)
	}
	// A program started without mpirun is a world of one.
	cmd = exec.CommandContext(ctx, bin("hello"))
	if r := runCmd(t, cmd); r.code != 0 || !strings.HasPrefix(r.stdout, "Hello, world! I am 0 of 1 on ") {
		t.Errorf("singleton: %v", r)
	}
}

func TestMPIRunFailures(t *testing.T) {
	needPgrep(t)
	ctx, l := bootLocal(t, 4*time.Minute)
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"-np", "2", "/bin/true"}, 252, `(?s)did not invoke MPI_INIT before quitting.+which was on node n0\)\.`},
		{[]string{"-np", "3", bin("testprog"), "nofinalize"}, 1, `(?s)apparently exited without\s+invoking MPI_FINALIZE.+PID \d+ failed on node n0( \([^)]*\))? with exit status 0\.`},
		{[]string{"-np", "3", bin("testprog"), "abort", "7"}, 7, `rank 1 called MPI_Abort`},
		{[]string{"-np", "3", bin("testprog"), "exit", "5"}, 5, `(?s)exited with a nonzero exit\ncode\..+\nPID \d+ failed on node n0( \([^)]*\))? with exit status 5\.\n-{77}\n$`},
		{[]string{"-np", "2", "no-such-program-xyz"}, 2, `cannot start no-such-program-xyz on n0 \(o\): No such file or directory`},
		{[]string{"-np", "2", "n7", bin("hello")}, 229, `invalid node`},
	}
	for _, tt := range tests {
		r := l.run(ctx, "mpirun", tt.args...)
		if r.code != tt.code || !regexp.MustCompile(tt.stderr).MatchString(r.stderr) {
			t.Errorf("mpirun %s: %v\nwant exit %d and %q", strings.Join(tt.args, " "), r, tt.code, tt.stderr)
		}
	}
	noneLeft(t, "testprog")

	// A rank killed in the middle of the job: mpirun names it, stops the
	// others, and leaves nothing behind.
	cmd := exec.CommandContext(ctx, bin("mpirun"), "-np", "3", bin("testprog"), "hang")
	cmd.Env = l.env
	done := make(chan result, 1)
	go func() { done <- runCmd(t, cmd) }()
	var pid int
	deadline := time.Now().Add(30 * time.Second)
	for pid == 0 && time.Now().Before(deadline) {
		out, _ := exec.Command("pgrep", "-f", "-n", "^"+bin("testprog")+" hang").Output()
		pid = atoiOr0(strings.TrimSpace(string(out)))
		time.Sleep(100 * time.Millisecond)
	}
	if pid == 0 {
		t.Fatal("the job's ranks never started")
	}
	time.Sleep(500 * time.Millisecond) // let the job wire up
	syscall.Kill(pid, syscall.SIGKILL)
	select {
	case r := <-done:
		if r.code != 9 || !regexp.MustCompile(`PID \d+ failed on node n0( \([^)]*\))? due to signal 9\.`).MatchString(r.stderr) {
			t.Errorf("killed rank: %v", r)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("mpirun did not notice a killed rank")
	}
	noneLeft(t, "testprog")
	_ = context.Background
}

// noneLeft fails if a process whose command line contains name survives.
func noneLeft(t *testing.T, name string) {
	t.Helper()
	needPgrep(t)
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, _ := exec.Command("pgrep", "-f", "^"+bin(name)).Output()
		if strings.TrimSpace(string(out)) == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes left behind: %s", out)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func atoiOr0(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// needPgrep skips (or, under LAM_TEST_STRICT=1, fails) without pgrep, so
// that checks for leftover processes never pass vacuously.
func needPgrep(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("pgrep"); err != nil {
		testenv.Skip(t, "pgrep (procps) is missing")
	}
}
