package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Counts, unknown options and working directories are refused where they
// enter, with LAM's usage exit code, before anything runs.
func TestLaunchChecksRefused(t *testing.T) {
	needPgrep(t)
	ctx, l := bootLocal(t, 2*time.Minute)
	hello := bin("hello")
	for _, tt := range []struct {
		tool   string
		args   []string
		stderr string
	}{
		{"mpirun", []string{"-np", "0", hello}, "-np needs a positive integer, not 0"},
		{"mpirun", []string{"-np", "-1", hello}, "-np needs a positive integer, not -1"},
		{"mpirun", []string{"-c", "0", hello}, "-c needs a positive integer, not 0"},
		{"mpirun", []string{"-c", "-1", hello}, "-c needs a positive integer, not -1"},
		{"lamexec", []string{"-np", "0", "/bin/true"}, "-np needs a positive integer, not 0"},
		{"lamexec", []string{"-c", "-1", "/bin/true"}, "-c needs a positive integer, not -1"},
		{"mpirun", []string{"-np", "1048577", hello}, "-np 1048577: more than 1048576 processes"},
		// An unknown option: LAM's framed usage alone (LAM 7.1.4 names
		// no option: testdata/lam-7.1.4/mpirun-unknown-option.stderr).
		{"mpirun", []string{"-frob", "-np", "2", hello}, ""},
		{"mpirun", []string{"--frob", "-np", "2", hello}, ""},
		{"lamexec", []string{"-frob", "/bin/true"}, ""},
		{"mpirun", []string{"-vz", hello}, ""},
	} {
		r := l.run(ctx, tt.tool, tt.args...)
		want := tt.tool + ": " + tt.stderr + "\n"
		if tt.stderr == "" {
			want = rule + "\nSynopsis:"
		}
		if r.code != 226 || !strings.Contains(r.stderr, want) || (tt.stderr == "" && !strings.HasPrefix(r.stderr, want)) || r.stdout != "" || strings.Contains(r.stderr, "cannot start") {
			t.Errorf("%s %s: %v\nwant exit 226 and %q", tt.tool, strings.Join(tt.args, " "), r, tt.stderr)
		}
	}
	noneLeft(t, "hello")

	// A working directory that does not exist is named, not the program.
	dir := filepath.Join(l.prefix, "no-such-dir")
	file := filepath.Join(l.prefix, "a-file")
	os.WriteFile(file, nil, 0o644)
	for _, tt := range []struct {
		tool string
		args []string
		code int
		want string
	}{
		{"mpirun", []string{"-wd", dir, "-np", "2", hello}, 2, `cannot start \S+/hello on n0 \(o\): working directory ` + regexp.QuoteMeta(dir) + `: no such file or directory`},
		{"lamexec", []string{"-wd", dir, "n0", "/bin/pwd"}, 2, `cannot start /bin/pwd on n0 \(o\): working directory ` + regexp.QuoteMeta(dir) + `: no such file or directory`},
		{"mpirun", []string{"-wd", file, "-np", "1", hello}, 20, `working directory ` + regexp.QuoteMeta(file) + `: not a directory`},
	} {
		r := l.run(ctx, tt.tool, tt.args...)
		if r.code != tt.code || !regexp.MustCompile(tt.want).MatchString(r.stderr) {
			t.Errorf("%s %s: %v\nwant exit %d and %q", tt.tool, strings.Join(tt.args, " "), r, tt.code, tt.want)
		}
	}
	// A schema line's -wd is checked as well.
	schema := filepath.Join(l.prefix, "wd.app")
	os.WriteFile(schema, []byte("n0 -wd "+dir+" "+hello+"\n"), 0o644)
	if r := l.run(ctx, "mpirun", schema); r.code != 2 || !strings.Contains(r.stderr, "working directory "+dir) {
		t.Errorf("schema -wd: %v", r)
	}
	if r := l.run(ctx, "lamexec", "-wd", l.prefix, "n0", "/bin/pwd"); r.code != 0 || strings.TrimSpace(r.stdout) != l.prefix {
		t.Errorf("lamexec -wd %s: %v", l.prefix, r)
	}
	noneLeft(t, "hello")
}

// A spawn that fails midway stops the job: the ranks already started are
// killed and mpirun names the rank and the node that failed.
func TestLaunchChecksMidway(t *testing.T) {
	needPgrep(t)
	ctx, l := bootLocal(t, 2*time.Minute)
	schema := filepath.Join(l.prefix, "midway.app")
	os.WriteFile(schema, []byte("n0 -np 2 "+bin("testprog")+" hang\nn0 no-such-program-xyz\n"), 0o644)
	start := time.Now()
	r := l.run(ctx, "mpirun", schema)
	if r.code != 2 || !strings.Contains(r.stderr, "cannot start no-such-program-xyz on n0 (o): No such file or directory (rank 2; the 2 processes already started were stopped)") {
		t.Errorf("spawn failing midway: %v", r)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("mpirun took %v to give up", d)
	}
	noneLeft(t, "testprog")
}

// mpirun refuses, before starting anything, a job larger than the lamds
// can run.
func TestLaunchChecksCapacity(t *testing.T) {
	needPgrep(t)
	// A universe whose lamd may open 200 files.
	t.Run("limited", func(t *testing.T) {
		ctx := testContext(t, 2*time.Minute)
		sp := t.TempDir()
		l := &local{t: t, prefix: sp, env: append(os.Environ(),
			"LAM_MPI_SESSION_PREFIX="+sp, "LAM_MPI_SESSION_SUFFIX=",
			"LAM_MPI_SSI_boot_base_timeout=20", "LAMHOME=")}
		cmd := exec.CommandContext(ctx, "sh", "-c", `ulimit -n 200 && exec "$0" -H`, bin("lamboot"))
		cmd.Env, cmd.Dir = l.env, l.prefix
		t.Cleanup(func() {
			l.run(context.Background(), "lamhalt", "-H")
			l.run(context.Background(), "lamwipe", "-H")
		})
		if r := runCmd(t, cmd); r.code != 0 {
			t.Fatalf("lamboot with 200 files: %v", r)
		}
		start := time.Now()
		r := l.run(ctx, "mpirun", "-np", "100", bin("hello"))
		if r.code != 1 || !regexp.MustCompile(`mpirun: n0 \(o\) would run 100 processes; its lamd can run at most \d+ \(its limit of 200 open files\)`).MatchString(r.stderr) ||
			!strings.Contains(r.stderr, "launch_max_per_node") || r.stdout != "" {
			t.Fatalf("mpirun -np 100 with 200 files: %v", r)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("the refusal took %v", d)
		}
		noneLeft(t, "hello")
		// The override, and a job within the limit.
		l.env = append(l.env, "LAM_MPI_SSI_launch_max_per_node=3")
		if r := l.run(ctx, "mpirun", "-np", "4", bin("hello")); r.code != 1 || !strings.Contains(r.stderr, "can run at most 3 (launch_max_per_node)") {
			t.Errorf("-np 4 over a limit of 3: %v", r)
		}
		if r := l.run(ctx, "lamexec", "-np", "4", "/bin/true"); r.code != 1 || !strings.Contains(r.stderr, "lamexec: n0 (o) would run 4 processes") {
			t.Errorf("lamexec -np 4 over a limit of 3: %v", r)
		}
		if r := l.run(ctx, "mpirun", "-np", "3", bin("hello")); r.code != 0 || strings.Count(r.stdout, "Hello") != 3 {
			t.Errorf("-np 3 within the limit: %v", r)
		}
	})
	// A typo: a hundred thousand processes on one node fail fast.
	t.Run("huge", func(t *testing.T) {
		ctx, l := bootLocal(t, 2*time.Minute)
		start := time.Now()
		r := l.run(ctx, "mpirun", "-np", "100000", bin("hello"))
		if r.code != 1 || !strings.Contains(r.stderr, "mpirun: n0 (o) would run 100000 processes; its lamd can run at most") {
			t.Errorf("mpirun -np 100000: %v", r)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("the refusal took %v", d)
		}
		noneLeft(t, "hello")
		if r := l.run(ctx, "mpirun", "-np", "2", bin("hello")); r.code != 0 {
			t.Errorf("the lamd after the refusal: %v", r)
		}
	})
}

// When the lamd dies during a job, mpirun names the ranks it lost.
func TestLaunchChecksLostLamd(t *testing.T) {
	needPgrep(t)
	ctx, l := bootLocal(t, 2*time.Minute)
	cmd := exec.CommandContext(ctx, bin("mpirun"), "-np", "2", bin("testprog"), "hang")
	cmd.Env, cmd.Dir = l.env, l.prefix
	done := make(chan result, 1)
	go func() { done <- runCmd(t, cmd) }()
	var pids []int
	deadline := time.Now().Add(30 * time.Second)
	for len(pids) < 2 && time.Now().Before(deadline) {
		out, _ := exec.Command("pgrep", "-f", "^"+bin("testprog")+" hang").Output()
		pids = pids[:0]
		for _, f := range strings.Fields(string(out)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The ranks are this test's: whatever happens to them, they end with it.
	t.Cleanup(func() {
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	if len(pids) < 2 {
		t.Fatalf("the job's ranks never started: %v", pids)
	}
	time.Sleep(500 * time.Millisecond) // let the job wire up
	syscall.Kill(lamdPID(t, l.sessionDir()), syscall.SIGKILL)
	select {
	case r := <-done:
		if r.code == 0 || !strings.Contains(r.stderr, "mpirun: ranks 0, 1 (n0): ") {
			t.Errorf("mpirun after its lamd died: %v", r)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("mpirun did not notice its lamd die")
	}
}
