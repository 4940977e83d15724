package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/crset"
	"github.com/lamgo/lam/shared/testenv"
)

// Faults during checkpoints of jobs of real MPI ranks (the testprog cr
// suite; crtools_test.go has the same with stand-in ranks).

// waitLine waits for a line of the job's output that contains s.
func waitLine(t *testing.T, ctx context.Context, j *crJob, s string) {
	t.Helper()
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		select {
		case line := <-j.lines:
			if strings.Contains(line, s) {
				return
			}
		case <-j.done:
			t.Fatalf("the job ended before it printed %q\n%s\n%s", s, j.out.String(), j.stderr.String())
		case <-wctx.Done():
			t.Fatalf("no line %q\n%s", s, j.out.String())
		}
	}
}

// TestCRLibRankKilled: a rank killed while it takes its part of a
// checkpoint ends the job, which mpirun reports; the checkpoint fails at
// once with the reason, its partial set is removed, and the previous set
// is intact and restarts to the right result.
func TestCRLibRankKilled(t *testing.T) {
	buildCRTools(t)
	ctx, l := bootLocal(t, 4*time.Minute)
	const np = 4
	want := crReference(t, ctx, l, np, "sendrecv", 8, 2000)
	base := t.TempDir()
	gate := filepath.Join(t.TempDir(), "gate")
	j := startCRJob(t, ctx, l, np, "-ssi", "cr", "self", "-ssi", "rpi", "crtcp", "-ssi", "cr_base_dir", base,
		"-x", "TESTPROG_CR_SLOW=1:2", "-np", strconv.Itoa(np), bin("testprog"), "cr", "sendrecv", "8", "2000", gate)
	pid := strconv.Itoa(j.cmd.Process.Pid)
	first := crCheckpoint(t, ctx, l, j.cmd.Process.Pid)
	d, err := crset.Load(first)
	if err != nil {
		t.Fatal(err)
	}
	second := make(chan result, 1)
	start := time.Now()
	go func() { second <- l.run(ctx, "crcheckpoint", "-timeout", "40", pid) }()
	waitLine(t, ctx, j, "rank 1 checkpoint 2 in") // rank 1 is in its (slow) callback
	if err := syscall.Kill(int(d.Ranks[1].PID), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r := <-second
	if r.code != 1 || !strings.Contains(r.stderr, "checkpoint 2 not taken") {
		t.Errorf("second checkpoint: %v", r)
	}
	if el := time.Since(start); el > 30*time.Second {
		t.Errorf("the failed checkpoint took %v, as if it waited for its timeout", el)
	}
	j.wait(t, ctx)
	if j.code == 0 || !strings.Contains(j.stderr.String(), "signal 9") {
		t.Errorf("mpirun: exit %d\n%s", j.code, j.stderr.String())
	}
	noPartial(t, base)
	if _, err := crset.Load(first); err != nil {
		t.Fatalf("the previous set: %v", err)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r = l.run(ctx, "crrestart", first)
	if r.code != 0 || resultRE.FindString(r.stdout) != want {
		t.Fatalf("crrestart %s: want %s\n%v", first, want, r)
	}
}

// TestCRLibFullDisk: with the sets on a full file system (a small tmpfs)
// a checkpoint of real ranks fails with the reason, its partial set is
// removed, the previous set is intact, and the job goes on to the right
// result.
func TestCRLibFullDisk(t *testing.T) {
	buildCRTools(t)
	ctx, l := bootLocal(t, 4*time.Minute)
	base := t.TempDir()
	if err := syscall.Mount("tmpfs", base, "tmpfs", 0, "size=256k,mode=0700"); err != nil {
		testenv.Skip(t, "cannot mount a tmpfs: "+err.Error())
	}
	t.Cleanup(func() { syscall.Unmount(base, syscall.MNT_DETACH) })
	const np = 4
	want := crReference(t, ctx, l, np, "allreduce", 8, 2000)
	gate := filepath.Join(t.TempDir(), "gate")
	j := startCRJob(t, ctx, l, np, "-ssi", "cr", "self", "-ssi", "rpi", "crtcp", "-ssi", "cr_base_dir", base,
		"-np", strconv.Itoa(np), bin("testprog"), "cr", "allreduce", "8", "2000", gate)
	pid := j.cmd.Process.Pid
	first := crCheckpoint(t, ctx, l, pid)
	f, err := os.Create(filepath.Join(base, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			break
		}
	}
	f.Close()
	r := l.run(ctx, "crcheckpoint", "-timeout", "30", strconv.Itoa(pid))
	if r.code != 1 || !strings.Contains(r.stderr, "checkpoint 2 not taken: ") || !strings.Contains(r.stderr, "no space left on device") {
		t.Errorf("checkpoint on a full disk: %v", r)
	}
	if _, err := crset.Load(first); err != nil {
		t.Errorf("the previous set: %v", err)
	}
	noPartial(t, base)
	os.Remove(filepath.Join(base, "filler"))
	// The job goes on, and can be checkpointed again.
	crCheckpoint(t, ctx, l, pid)
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	j.wait(t, ctx)
	if j.code != 0 || resultRE.FindString(j.out.String()) != want {
		t.Errorf("the job after a failed checkpoint: exit %d, want %s\n%s\n%s", j.code, want, j.out.String(), j.stderr.String())
	}
}

// TestCRLibOtherUser: another user's crcheckpoint cannot checkpoint the
// job (it cannot reach the owner's lamd); no set is made and the job's
// owner still can.
func TestCRLibOtherUser(t *testing.T) {
	testenv.RequireRoot(t)
	buildCRTools(t)
	ctx, l := bootLocal(t, 3*time.Minute)
	base := t.TempDir()
	gate := filepath.Join(t.TempDir(), "gate")
	j := startCRJob(t, ctx, l, 2, "-ssi", "cr", "self", "-ssi", "rpi", "crtcp", "-ssi", "cr_base_dir", base,
		"-np", "2", bin("testprog"), "cr", "barrier", "1", "100", gate)
	pid := strconv.Itoa(j.cmd.Process.Pid)
	cmd := exec.CommandContext(ctx, bin("crcheckpoint"), "-timeout", "10", pid)
	cmd.Env = l.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	r := runCmd(t, cmd)
	if r.code == 0 {
		t.Errorf("crcheckpoint as uid 65534 succeeded: %v", r)
	}
	t.Logf("crcheckpoint as uid 65534: %v", r)
	if sets, _ := filepath.Glob(filepath.Join(base, "*", "ckpt-*")); len(sets) != 0 {
		t.Errorf("sets after another user's request: %v", sets)
	}
	crCheckpoint(t, ctx, l, j.cmd.Process.Pid)
	os.WriteFile(gate, nil, 0o600)
	j.wait(t, ctx)
	if j.code != 0 {
		t.Errorf("mpirun: exit %d\n%s", j.code, j.stderr.String())
	}
	noPartial(t, base)
}

// TestCRLibFinalizing: a checkpoint asked of a job of real ranks while
// one of them has called MPI_Finalize and the others are still running
// (TESTPROG_CR_HOLD holds them) is refused at once with the reason; the
// job then ends normally (status 0, its result printed) and the set taken
// before is intact. Rank 0 prints "rank 0 finalized" once MPI_Finalize
// has returned, so the request comes after its report was sent, not after
// a guessed delay.
func TestCRLibFinalizing(t *testing.T) {
	buildCRTools(t)
	ctx, l := bootLocal(t, 3*time.Minute)
	base := t.TempDir()
	gate := filepath.Join(t.TempDir(), "gate")
	hold := filepath.Join(t.TempDir(), "hold")
	j := startCRJob(t, ctx, l, 2, "-ssi", "cr", "self", "-ssi", "rpi", "crtcp", "-ssi", "cr_base_dir", base,
		"-x", "TESTPROG_CR_HOLD="+hold, "-np", "2", bin("testprog"), "cr", "allreduce", "8", "200", gate)
	pid := strconv.Itoa(j.cmd.Process.Pid)
	first := crCheckpoint(t, ctx, l, j.cmd.Process.Pid)
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitLine(t, ctx, j, "rank 0 finalized")
	// mpirun hears of rank 0's MPI_Finalize through the lamd on a path of
	// its own: a request that overtakes that report reaches a rank that
	// no longer answers and fails by its deadline. Ask again then, within
	// a bound; a checkpoint taken is always wrong.
	const why = "the job is ending: rank 0 has called MPI_Finalize"
	for deadline := time.Now().Add(time.Minute); ; {
		r := l.run(ctx, "crcheckpoint", "-timeout", "5", pid)
		if r.code == 1 && strings.Contains(r.stderr, why) {
			break
		}
		if r.code == 0 || time.Now().After(deadline) {
			t.Fatalf("crcheckpoint with rank 0 finalized: %v", r)
		}
		t.Logf("crcheckpoint before mpirun heard of rank 0's MPI_Finalize: %v", r)
		time.Sleep(100 * time.Millisecond)
	}
	if err := os.WriteFile(hold, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	j.wait(t, ctx)
	if j.code != 0 || !resultRE.MatchString(j.out.String()) {
		t.Errorf("mpirun: exit %d\n%s\n%s", j.code, j.out.String(), j.stderr.String())
	}
	if _, err := crset.Load(first); err != nil {
		t.Errorf("the set taken before: %v", err)
	}
	sets, _ := filepath.Glob(filepath.Join(filepath.Dir(first), "ckpt-*"))
	if len(sets) != 1 {
		t.Errorf("sets: %v, want only %s", sets, first)
	}
	noPartial(t, base)
}
