package faults

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Bounds on how fast a job reacts to a dead lamd.
const (
	// jobEndBound: mpirun reports and exits.
	jobEndBound = 10 * time.Second
	// rankDeathBound: the ranks of a dead lamd follow it.
	rankDeathBound = 5 * time.Second
)

// tickJob starts mpirun -np n testprog tick secs and waits until every
// rank ticks; it returns the job and the ranks' pids.
func (u *universe) tickJob(n int, secs string) (*job, []int) {
	u.t.Helper()
	j := u.start(testContext(u.t, 3*time.Minute), "mpirun", "-np", strconv.Itoa(n), bin("testprog"), "tick", secs)
	if !j.waitOutput(" ticking", n, 60*time.Second) {
		r, _ := j.wait(time.Second)
		u.t.Fatalf("the job's ranks never all ticked: %v", r)
	}
	ranks := childrenOf(u.lamd, "testprog")
	if len(ranks) != n {
		u.t.Fatalf("lamd %d has ranks %v, want %d", u.lamd, ranks, n)
	}
	return j, ranks
}

// outcome describes a tool's result for the table: its exit status and
// the first line it printed on stderr itself (else the first line).
func outcome(tool string, r result) string {
	s := fmt.Sprintf("%s exit %d", tool, r.code)
	var first string
	for _, l := range strings.Split(r.stderr, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, tool+": ") || strings.HasPrefix(l, "PID ") { // PID: the last line of LAM's framed abnormal-exit
			return s + ": " + l
		}
		if strings.Trim(l, "-") == "" {
			continue // the frame of LAM's messages
		}
		if first == "" {
			first = l
		}
	}
	if first != "" {
		s += ": " + first
	}
	return s
}

// namesRanks matches a line of mpirun's that names the ranks it lost.
var namesRanks = regexp.MustCompile(`(?m)^mpirun: .*\branks? \d`)

// A lamd killed under a job: mpirun reports it naming ranks, the ranks
// die with their lamd, and the next lamboot cleans the stale session.
func TestKilledLamd(t *testing.T) {
	sc := record(t, "lamd killed (SIGKILL) mid-job, one host")
	ctx := testContext(t, 3*time.Minute)
	u := newUniverse(t, sc, "")
	u.boot(ctx, 0)
	j, ranks := u.tickJob(2, "60")
	syscall.Kill(u.lamd, syscall.SIGKILL)
	if left := waitGone(rankDeathBound, ranks...); len(left) > 0 {
		t.Errorf("ranks %v outlived their lamd by %v", left, rankDeathBound)
		sc.note("ranks outlived the lamd")
	}
	r, ok := j.wait(jobEndBound)
	switch {
	case !ok:
		t.Errorf("mpirun still runs %v after its lamd died: %v", jobEndBound, r)
		sc.note("mpirun did not end")
	case r.code == 0 || !namesRanks.MatchString(r.stderr):
		t.Errorf("mpirun after its lamd died: %v\nwant a failure naming ranks", r)
		sc.note("%s", outcome("mpirun", r))
	default:
		sc.note("%s", outcome("mpirun", r))
	}
	// The session directory of the dead lamd is stale: lamboot must
	// clean it and boot.
	u.boot(ctx, 0)
	u.mustAnswer(ctx, "after a new lamboot")
	u.hello(ctx, "after a new lamboot")
	u.halt(ctx)
	u.noneLeft()
}

// A stopped lamd holds its job up but loses nothing: once continued, the
// job ends well and the tool that waited gets its answer.
func TestStoppedLamd(t *testing.T) {
	sc := record(t, "lamd stopped (SIGSTOP) 3 s mid-job, then continued")
	ctx := testContext(t, 2*time.Minute)
	u := newUniverse(t, sc, "")
	u.boot(ctx, 0)
	j, _ := u.tickJob(2, "5")
	syscall.Kill(u.lamd, syscall.SIGSTOP)
	nodes := u.start(ctx, "lamnodes")
	time.Sleep(3 * time.Second)
	syscall.Kill(u.lamd, syscall.SIGCONT)
	if r, ok := nodes.wait(answerBound); !ok || r.code != 0 {
		t.Errorf("lamnodes started while the lamd was stopped: %v", r)
		sc.note("lamnodes failed")
	}
	r, ok := j.wait(60 * time.Second)
	if !ok || r.code != 0 || !strings.Contains(r.stdout, "tick ok") {
		t.Errorf("the job under a stopped lamd: %v", r)
	}
	sc.note("job exit %d", r.code)
	u.mustAnswer(ctx, "after SIGCONT")
	u.halt(ctx)
	u.noneLeft()
}

// A stopped rank holds its job up; continued, the job ends well.
func TestStoppedRank(t *testing.T) {
	sc := record(t, "rank stopped (SIGSTOP) 3 s mid-job, then continued")
	ctx := testContext(t, 2*time.Minute)
	u := newUniverse(t, sc, "")
	u.boot(ctx, 0)
	j, ranks := u.tickJob(3, "5")
	syscall.Kill(ranks[1], syscall.SIGSTOP)
	time.Sleep(3 * time.Second)
	u.mustAnswer(ctx, "while a rank is stopped")
	syscall.Kill(ranks[1], syscall.SIGCONT)
	r, ok := j.wait(60 * time.Second)
	if !ok || r.code != 0 || !strings.Contains(r.stdout, "tick ok") {
		t.Errorf("the job with a stopped rank: %v", r)
	}
	sc.note("job exit %d", r.code)
	u.halt(ctx)
	u.noneLeft()
}

// A job interrupted while one of its ranks is stopped still ends whole:
// the stopped rank is killed with the others.
func TestStoppedRankInterrupted(t *testing.T) {
	sc := record(t, "rank stopped (SIGSTOP), then mpirun interrupted (SIGINT)")
	ctx := testContext(t, 2*time.Minute)
	u := newUniverse(t, sc, "")
	u.boot(ctx, 0)
	j, ranks := u.tickJob(3, "60")
	syscall.Kill(ranks[1], syscall.SIGSTOP)
	syscall.Kill(j.cmd.Process.Pid, syscall.SIGINT)
	r, ok := j.wait(jobEndBound)
	if !ok || r.code == 0 {
		t.Errorf("mpirun interrupted: %v", r)
	}
	sc.note("%s", outcome("mpirun", r))
	if left := waitGone(rankDeathBound, ranks...); len(left) > 0 {
		t.Errorf("ranks %v outlived their interrupted job", left)
		sc.note("ranks left")
	}
	u.mustAnswer(ctx, "after the interrupted job")
	u.halt(ctx)
	u.noneLeft()
}

// A rank killed mid-job: mpirun names it, ends the job, and nothing is
// left.
func TestKilledRank(t *testing.T) {
	sc := record(t, "rank killed (SIGKILL) mid-job")
	ctx := testContext(t, 2*time.Minute)
	u := newUniverse(t, sc, "")
	u.boot(ctx, 0)
	j, ranks := u.tickJob(3, "60")
	syscall.Kill(ranks[1], syscall.SIGKILL)
	r, ok := j.wait(jobEndBound)
	if !ok || r.code != 9 || !regexp.MustCompile(`PID \d+ failed on node n0( \([^)]*\))? due to signal 9\.`).MatchString(r.stderr) {
		t.Errorf("mpirun after a rank was killed: %v", r)
	}
	sc.note("%s", outcome("mpirun", r))
	if left := waitGone(rankDeathBound, ranks...); len(left) > 0 {
		t.Errorf("ranks %v outlived their job", left)
		sc.note("ranks left")
	}
	u.mustAnswer(ctx, "after the job")
	u.halt(ctx)
	u.noneLeft()
}

// mpirun killed mid-job: the lamd ends the orphaned job.
func TestKilledMPIRun(t *testing.T) {
	sc := record(t, "mpirun killed (SIGKILL) mid-job")
	ctx := testContext(t, 2*time.Minute)
	u := newUniverse(t, sc, "")
	u.boot(ctx, 0)
	j, ranks := u.tickJob(3, "60")
	syscall.Kill(j.cmd.Process.Pid, syscall.SIGKILL)
	if left := waitGone(rankDeathBound, ranks...); len(left) > 0 {
		t.Errorf("ranks %v outlived their mpirun by %v", left, rankDeathBound)
		sc.note("ranks outlived mpirun")
	} else {
		sc.note("ranks ended")
	}
	u.mustAnswer(ctx, "after the job")
	u.halt(ctx)
	u.noneLeft()
}
