package integration

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/jobwire"
)

// rankDeathBound is how long the ranks of a killed lamd may outlive it.
const rankDeathBound = 3 * time.Second

// A lamd killed with -9 under a running job takes its ranks with it: they
// are gone within a bound (not reparented to init), mpirun reports the
// failure, and the job leaves nothing in shared memory.
func TestLamdKilledRanksDie(t *testing.T) {
	needPgrep(t)
	needShm(t)
	ctx, l := bootLocal(t, 2*time.Minute)
	dir := l.sessionDir()
	lamd := lamdPID(t, dir)
	before := dirNames(dir)
	job := startBlockJob(t, l.env, exec.CommandContext(ctx, bin("mpirun"), "-np", "2", bin("testprog"), "block"), 2)
	ranks := childrenOf(t, lamd, "testprog")
	if len(ranks) != 2 {
		t.Fatalf("ranks of lamd %d: %v", lamd, ranks)
	}
	syscall.Kill(lamd, syscall.SIGKILL)
	killed := time.Now()
	ranksGone(t, ranks, killed)
	job.exitsNonZero(t, 10*time.Second)
	job.noSegments(t)
	// The lamd could not remove its session directory (the next lamboot
	// does), but the job's processes added nothing to it.
	for _, name := range dirNames(dir) {
		if !slices.Contains(before, name) {
			t.Errorf("the job left %s in the session directory", name)
		}
	}
}

// dirNames lists a directory's entries.
func dirNames(dir string) []string {
	es, _ := os.ReadDir(dir)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// A rank the lamd did not start itself (behind a wrapper script, which
// the parent-death signal kills in its place) notices on its own that its
// lamd is gone, says so and exits.
func TestLamdKilledWrappedRanksExit(t *testing.T) {
	needPgrep(t)
	ctx, l := bootLocal(t, 2*time.Minute)
	lamd := lamdPID(t, l.sessionDir())
	tmp := t.TempDir()
	wrapper, log := filepath.Join(tmp, "wrapper"), filepath.Join(tmp, "stderr")
	script := "#!/bin/sh\n" + bin("testprog") + " block 2>>" + log + "\nexit $?\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	job := startBlockJob(t, l.env, exec.CommandContext(ctx, bin("mpirun"), "-np", "2", wrapper), 2)
	var ranks []int
	for _, sh := range childrenOf(t, lamd, "wrapper") {
		ranks = append(ranks, childrenOf(t, sh, "testprog")...)
	}
	if len(ranks) != 2 {
		t.Fatalf("wrapped ranks of lamd %d: %v", lamd, ranks)
	}
	syscall.Kill(lamd, syscall.SIGKILL)
	ranksGone(t, ranks, time.Now())
	job.exitsNonZero(t, 10*time.Second)
	b, _ := os.ReadFile(log)
	if n := len(regexp.MustCompile(`(?m)^MPI: rank [01] \(pid \d+\) lost its lamd \(n0\): connection to the lamd closed: EOF; exiting$`).FindAll(b, -1)); n != 2 {
		t.Errorf("the ranks' messages: %q", b)
	}
}

// The same across hosts: the lamd of one host is killed mid-job; its
// ranks die with it, mpirun reports, and the job ends everywhere.
func TestHostsLamdKilledRanksDie(t *testing.T) {
	testUser(t)
	needShm(t)
	ctx := testContext(t, 3*time.Minute)
	h := newHosts(t, 2)
	if r := h.run(ctx, 0, "lamboot", "-prefix", prefix, h.schema(nil)); r.code != 0 {
		t.Fatalf("lamboot: %v", r)
	}
	cmd := h.c.Command(ctx, 0, bin("mpirun"), "-np", "4", "n0", "n0", "n1", "n1", bin("testprog"), "block")
	job := startBlockJob(t, h.env, cmd, 4)
	lamd0, lamd1 := h.killFilePID(0), h.killFilePID(1)
	ranks0, ranks1 := childrenOf(t, lamd0, "testprog"), childrenOf(t, lamd1, "testprog")
	if len(ranks0) != 2 || len(ranks1) != 2 {
		t.Fatalf("ranks of n0's lamd %v, of n1's %v", ranks0, ranks1)
	}
	syscall.Kill(lamd1, syscall.SIGKILL)
	killed := time.Now()
	ranksGone(t, ranks1, killed)
	job.exitsNonZero(t, 15*time.Second)
	// mpirun gone, n0's lamd ends the rest of the job.
	ranksGone(t, ranks0, time.Now())
	job.noSegments(t)
	h.run(ctx, 0, "lamhalt", "-H")
	h.run(ctx, 0, "lamwipe", "-H", "-prefix", prefix, h.schemaPath())
}

// blockJob is an mpirun of "testprog block" whose ranks all wait in
// MPI_Recv.
type blockJob struct {
	cmd    *exec.Cmd
	stderr *strings.Builder
	done   chan struct{}
}

// startBlockJob starts cmd (an mpirun of testprog block over np ranks) and
// returns once every rank has said it is blocking.
func startBlockJob(t *testing.T, env []string, cmd *exec.Cmd, np int) *blockJob {
	t.Helper()
	cmd.Env = env
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	j := &blockJob{cmd: cmd, stderr: &strings.Builder{}, done: make(chan struct{})}
	cmd.Stderr = j.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	go func() {
		defer close(j.done)
		sc := bufio.NewScanner(out)
		for blocking := 0; sc.Scan(); {
			if strings.HasSuffix(sc.Text(), " blocking") {
				if blocking++; blocking == np {
					close(ready)
				}
			}
		}
		cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-j.done
	})
	select {
	case <-ready:
	case <-j.done:
		t.Fatalf("the job ended before its ranks blocked: %v\n%s", cmd.ProcessState, j.stderr)
	case <-time.After(30 * time.Second):
		t.Fatalf("the ranks did not all block within 30 s: %s", j.stderr)
	}
	return j
}

// exitsNonZero fails unless mpirun ends, with a non-zero status, within
// bound.
func (j *blockJob) exitsNonZero(t *testing.T, bound time.Duration) {
	t.Helper()
	select {
	case <-j.done:
		if j.cmd.ProcessState.ExitCode() == 0 {
			t.Errorf("mpirun exited 0 after a lamd was killed: %s", j.stderr)
		}
		t.Logf("mpirun: %v\n%s", j.cmd.ProcessState, j.stderr)
	case <-time.After(bound):
		t.Errorf("mpirun still running %v after a lamd was killed: %s", bound, j.stderr)
	}
}

// noSegments fails if the job left a shared-memory segment.
func (j *blockJob) noSegments(t *testing.T) {
	t.Helper()
	pattern := filepath.Join(jobwire.ShmDir, jobwire.SegmentPrefix(os.Getuid(), jobwire.JobID{Node: 0, PID: int32(j.cmd.Process.Pid)})+"*")
	if m, _ := filepath.Glob(pattern); len(m) > 0 {
		t.Errorf("the job left shared-memory segments: %v", m)
		for _, p := range m {
			os.Remove(p)
		}
	}
}

// childrenOf lists the pids of parent's children whose name is name.
func childrenOf(t *testing.T, parent int, name string) []int {
	t.Helper()
	out, _ := exec.Command("pgrep", "-P", strconv.Itoa(parent), "-x", name).Output()
	var pids []int
	for _, f := range strings.Fields(string(out)) {
		if pid := atoiOr0(f); pid > 0 {
			pids = append(pids, pid)
		}
	}
	return pids
}

// ranksGone fails unless every pid is gone within rankDeathBound of
// since; the survivors, orphans of this test, are killed.
func ranksGone(t *testing.T, pids []int, since time.Time) {
	t.Helper()
	var left []string
	for _, pid := range pids {
		if err := waitGone(pid, max(time.Until(since.Add(rankDeathBound)), 50*time.Millisecond)); err != nil {
			left = append(left, fmt.Sprintf("%d (%s)", pid, procState(pid)))
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if len(left) > 0 {
		t.Errorf("ranks still running %v after their lamd was killed: %v", rankDeathBound, left)
	} else {
		t.Logf("ranks %v gone %v after their lamd was killed", pids, time.Since(since).Round(time.Millisecond))
	}
}

// procState is pid's parent and state, from /proc.
func procState(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "gone"
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i > 0 {
		if f := strings.Fields(s[i+1:]); len(f) > 1 {
			return "state " + f[0] + ", parent " + f[1]
		}
	}
	return s
}
