package integration

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/crset"
	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/session"
	"github.com/lamgo/lam/shared/testenv"
	"github.com/lamgo/lam/shared/wire"
)

var (
	crToolsOnce sync.Once
	crToolsErr  error
)

// buildCRTools builds crcheckpoint (and its lamcheckpoint link),
// crrestart (and lamrestart) and the stand-in rank crrank into the test
// prefix (the shared build list predates them).
func buildCRTools(t testing.TB) {
	t.Helper()
	crToolsOnce.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		cmd := exec.Command("go", "build", "-o", filepath.Join(prefix, "bin")+"/", "./crcheckpoint", "./crrestart", "./shared/integration/testdata/crrank")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			crToolsErr = &buildError{err: err, out: string(out)}
			return
		}
		for link, target := range map[string]string{"lamcheckpoint": "crcheckpoint", "lamrestart": "crrestart"} {
			os.Remove(bin(link))
			if err := os.Symlink(target, bin(link)); err != nil {
				crToolsErr = err
				return
			}
		}
	})
	if crToolsErr != nil {
		t.Fatal(crToolsErr)
	}
}

// crJob is an mpirun running in the background, its output read line by
// line.
type crJob struct {
	cmd    *exec.Cmd
	lines  chan string
	early  []string // lines that came while startCRCmd waited for the ranks to run
	stderr strings.Builder
	out    strings.Builder
	done   chan struct{}
	code   int
}

// startCRJob starts mpirun with args and waits until want ranks print
// "running".
func startCRJob(t testing.TB, ctx context.Context, l *local, ranks int, args ...string) *crJob {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin("mpirun"), args...)
	cmd.Env, cmd.Dir = l.env, l.prefix
	return startCRCmd(t, ctx, cmd, ranks)
}

// startCRCmd starts an mpirun command and waits until want ranks print
// "running".
func startCRCmd(t testing.TB, ctx context.Context, cmd *exec.Cmd, ranks int) *crJob {
	t.Helper()
	j := &crJob{lines: make(chan string, 100), done: make(chan struct{}), cmd: cmd}
	j.cmd.Stderr = &j.stderr
	j.cmd.WaitDelay = 5 * time.Second
	out, err := j.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := j.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			j.out.WriteString(sc.Text() + "\n")
			select {
			case j.lines <- sc.Text():
			default:
			}
		}
		err := j.cmd.Wait()
		if ee, ok := err.(*exec.ExitError); ok {
			j.code = ee.ExitCode()
		} else if err != nil {
			j.code = -1
		}
		close(j.done)
	}()
	t.Cleanup(func() {
		j.cmd.Process.Kill()
		<-j.done
	})
	for running := 0; running < ranks; {
		select {
		case s := <-j.lines:
			if strings.HasSuffix(s, " running") {
				running++
			} else {
				j.early = append(j.early, s)
			}
		case <-j.done:
			t.Fatalf("mpirun ended before its ranks ran: exit %d\n%s\n%s", j.code, j.out.String(), j.stderr.String())
		case <-ctx.Done():
			t.Fatal("the ranks did not start")
		}
	}
	return j
}

// wait waits for mpirun to end.
func (j *crJob) wait(t testing.TB, ctx context.Context) {
	t.Helper()
	select {
	case <-j.done:
	case <-ctx.Done():
		t.Fatal("mpirun did not end")
	}
}

// noPartial fails if a partial set is left under base.
func noPartial(t testing.TB, base string) {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(base, "*", ".partial-*"))
	if len(matches) > 0 {
		t.Errorf("partial sets left: %v", matches)
	}
}

// TestCRCheckpointSets takes checkpoints of a running job of stand-in
// ranks: numbered complete sets with every rank's file and the job's
// description, LAM's lamcheckpoint form, retention, then a checkpoint
// with -stop that ends the job with status 0.
func TestCRCheckpointSets(t *testing.T) {
	buildCRTools(t)
	ctx, l := bootLocal(t, 2*time.Minute)
	base := t.TempDir()
	j := startCRJob(t, ctx, l, 3, "-ssi", "cr_base_dir", base, "-ssi", "cr_base_keep", "2", "-np", "3", bin("crrank"), "ok", "60")
	pid := strconv.Itoa(j.cmd.Process.Pid)
	var dirs []string
	for i, args := range [][]string{{"crcheckpoint", pid}, {"lamcheckpoint", "-ssi", "cr", "self", "-pid", pid}, {"crcheckpoint", "0:" + pid}} {
		r := l.run(ctx, args[0], args[1:]...)
		if r.code != 0 {
			t.Fatalf("%s: %v", strings.Join(args, " "), r)
		}
		dir := strings.TrimSpace(r.stdout)
		if want := crset.Name(i + 1); filepath.Base(dir) != want || !strings.HasPrefix(dir, base+"/n0-"+pid+"-") {
			t.Errorf("%s printed %q, want <base>/n0-%s-<time>/%s", args[0], dir, pid, want)
		}
		d, err := crset.Load(dir)
		if err != nil {
			t.Fatalf("set %d: %v", i+1, err)
		}
		if d.World != 3 || d.Seq != i+1 || len(d.Apps) != 1 || d.Apps[0].Program != bin("crrank") || strings.Join(d.Apps[0].Args, " ") != "ok 60" || d.RPI != "fake 1.0" {
			t.Errorf("set %d description: %+v", i+1, d)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "rank-2.ckpt"))
		if string(b) != fmt.Sprintf("rank 2 checkpoint %d\n", i+1) {
			t.Errorf("set %d rank 2's file: %q", i+1, b)
		}
		dirs = append(dirs, dir)
	}
	if st, err := os.Stat(filepath.Dir(dirs[0])); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("job directory mode: %v %v", st, err)
	}
	// cr_base_keep 2: the first set is gone.
	sets, _ := crset.List(filepath.Dir(dirs[0]))
	if len(sets) != 2 || sets[0].Seq != 2 || sets[1].Seq != 3 {
		t.Errorf("sets kept: %+v", sets)
	}
	r := l.run(ctx, "crcheckpoint", "-stop", "-pid", pid)
	if r.code != 0 || filepath.Base(strings.TrimSpace(r.stdout)) != crset.Name(4) {
		t.Fatalf("crcheckpoint -stop: %v", r)
	}
	j.wait(t, ctx)
	if j.code != 0 || strings.Count(j.out.String(), " stopped\n") != 3 {
		t.Errorf("mpirun after -stop: exit %d\n%s\n%s", j.code, j.out.String(), j.stderr.String())
	}
	noPartial(t, base)
}

// TestCRCheckpointRefused: a rank that refuses, a rank that never
// answers (bounded), a job that cannot be checkpointed, no such mpirun;
// no partial set is left and the job goes on.
func TestCRCheckpointRefused(t *testing.T) {
	buildCRTools(t)
	ctx, l := bootLocal(t, 2*time.Minute)
	base := t.TempDir()
	t.Run("err", func(t *testing.T) {
		j := startCRJob(t, ctx, l, 2, "-ssi", "cr_base_dir", base, "-np", "2", bin("crrank"), "err", "3")
		r := l.run(ctx, "crcheckpoint", strconv.Itoa(j.cmd.Process.Pid))
		if r.code != 1 || !strings.Contains(r.stderr, "rank 1 (n0) refused the checkpoint: the fake rank refuses") {
			t.Errorf("crcheckpoint: %v", r)
		}
		j.wait(t, ctx)
		if j.code != 0 {
			t.Errorf("mpirun after a refused checkpoint: exit %d\n%s", j.code, j.stderr.String())
		}
	})
	t.Run("silent", func(t *testing.T) {
		j := startCRJob(t, ctx, l, 2, "-ssi", "cr_base_dir", base, "-np", "2", bin("crrank"), "silent", "20")
		start := time.Now()
		r := l.run(ctx, "crcheckpoint", "-timeout", "1.5", strconv.Itoa(j.cmd.Process.Pid))
		if r.code != 1 || !strings.Contains(r.stderr, "rank 1 did not answer in time") {
			t.Errorf("crcheckpoint: %v", r)
		}
		if d := time.Since(start); d > 15*time.Second {
			t.Errorf("crcheckpoint -timeout 1.5 took %v", d)
		}
		j.cmd.Process.Kill()
	})
	t.Run("nocr", func(t *testing.T) {
		j := startCRJob(t, ctx, l, 2, "-ssi", "cr_base_dir", base, "-np", "2", bin("crrank"), "nocr", "3")
		r := l.run(ctx, "crcheckpoint", strconv.Itoa(j.cmd.Process.Pid))
		if r.code != 1 || !strings.Contains(r.stderr, "rank 1 cannot be checkpointed: rpi fake cannot be drained") {
			t.Errorf("crcheckpoint: %v", r)
		}
		j.wait(t, ctx)
		if j.code != 0 {
			t.Errorf("mpirun: exit %d\n%s", j.code, j.stderr.String())
		}
		// Asked for a cr module, mpirun refuses the job at start.
		r = l.run(ctx, "mpirun", "-ssi", "cr", "self", "-ssi", "cr_base_dir", base, "-np", "2", bin("crrank"), "nocr", "3")
		if r.code != 1 || !strings.Contains(r.stderr, "rank 1 (on n0) cannot be checkpointed") || !strings.Contains(r.stderr, "rpi fake cannot be drained") {
			t.Errorf("mpirun -ssi cr self: %v", r)
		}
	})
	t.Run("nompirun", func(t *testing.T) {
		if r := l.run(ctx, "crcheckpoint", "-pid", "999999999"); r.code != 2 && r.code != 3 && r.code != 226 {
			t.Errorf("crcheckpoint of no process: %v", r)
		}
		if r := l.run(ctx, "lamcheckpoint", "-ssi", "cr", "blcr", "-pid", "1"); r.code != 1 || !strings.Contains(r.stderr, `cr module "blcr" is not available`) {
			t.Errorf("lamcheckpoint -ssi cr blcr: %v", r)
		}
	})
	noPartial(t, base)
	if sets, _ := filepath.Glob(filepath.Join(base, "*", "ckpt-*")); len(sets) != 0 {
		t.Errorf("sets written by refused checkpoints: %v", sets)
	}
}

// TestCRPeriodic: mpirun -cr-period takes checkpoints by itself.
func TestCRPeriodic(t *testing.T) {
	buildCRTools(t)
	ctx, l := bootLocal(t, 2*time.Minute)
	base := t.TempDir()
	r := l.run(ctx, "mpirun", "-v", "-cr-period", "0.4", "-ssi", "cr_base_dir", base, "-np", "2", bin("crrank"), "ok", "2")
	if r.code != 0 || !strings.Contains(r.stderr, "mpirun: checkpoint 1 written to "+base) {
		t.Fatalf("mpirun -cr-period: %v", r)
	}
	sets, _ := filepath.Glob(filepath.Join(base, "*", "ckpt-*"))
	if len(sets) < 2 {
		t.Errorf("%d sets in 2 s at one per 0.4 s: %v", len(sets), sets)
	}
	for _, s := range sets {
		if _, err := crset.Load(s); err != nil {
			t.Error(err)
		}
	}
}

// TestCRRestart restarts a job of stand-in ranks (two programs, by an
// app schema) from its set: every rank finds its own file through
// LAMCRRESTART and keeps its program and arguments, and the job runs to
// its end as under mpirun; a job's directory means its newest set; LAM's
// lamrestart forms; sets that cannot be restarted are refused.
func TestCRRestart(t *testing.T) {
	buildCRTools(t)
	ctx, l := bootLocal(t, 2*time.Minute)
	base := t.TempDir()
	schema := filepath.Join(t.TempDir(), "app")
	os.WriteFile(schema, []byte(fmt.Sprintf("-np 2 -x CRTEST=ab %[1]s ok 30\n-np 1 %[1]s ok 31\n", bin("crrank"))), 0o644)
	j := startCRJob(t, ctx, l, 3, "-ssi", "cr_base_dir", base, "-ssi", "rpi", "tcp", schema)
	pid := strconv.Itoa(j.cmd.Process.Pid)
	first := l.run(ctx, "crcheckpoint", pid)
	last := l.run(ctx, "crcheckpoint", "-stop", pid)
	if first.code != 0 || last.code != 0 {
		t.Fatalf("crcheckpoint: %v\n%v", first, last)
	}
	j.wait(t, ctx)
	set := strings.TrimSpace(last.stdout)
	d, err := crset.Load(set)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Apps) != 2 || d.Apps[0].NP != 2 || d.Apps[1].NP != 1 || strings.Join(d.Apps[1].Args, " ") != "ok 31" ||
		!slices.Contains(d.Apps[0].Export, "CRTEST=ab") || !slices.Contains(d.SSI, "rpi=tcp") {
		t.Errorf("description: %+v", d)
	}
	for _, c := range []struct{ tool, arg string }{{"crrestart", set}, {"crrestart", filepath.Dir(set)}, {"lamrestart", set}} {
		r := l.run(ctx, c.tool, "-sa", c.arg)
		if r.code != 0 {
			t.Fatalf("%s %s: %v", c.tool, c.arg, r)
		}
		for rank := range 3 {
			if want := fmt.Sprintf("rank %d restored: rank %d checkpoint 2\n", rank, rank); !strings.Contains(r.stdout, want) {
				t.Errorf("%s %s: no %q in\n%s", c.tool, c.arg, want, r.stdout)
			}
		}
		if strings.Count(r.stdout, " done\n") != 3 || strings.Count(r.stdout, "mpirun: n0 ") != 3 {
			t.Errorf("%s: the restarted job did not run to its end:\n%s", c.tool, r.stdout)
		}
	}
	// Refusals.
	partial, err := crset.Begin(filepath.Dir(set), 99)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(filepath.Dir(set), "ckpt-100")
	os.CopyFS(other, os.DirFS(set))
	b, _ := os.ReadFile(filepath.Join(other, "job.json"))
	os.WriteFile(filepath.Join(other, "job.json"), []byte(strings.Replace(string(b), `"format": 1`, `"format": 2`, 1)), 0o600)
	lost := filepath.Join(filepath.Dir(set), "ckpt-101")
	os.CopyFS(lost, os.DirFS(set))
	os.Remove(filepath.Join(lost, "rank-2.ckpt"))
	for _, c := range []struct{ dir, want string }{
		{partial.Dir, "incomplete checkpoint set"},
		{other, "format version 2"},
		{lost, "the files of rank 2 (rank-2.ckpt) are missing"},
		{filepath.Dir(set), "ckpt-101"}, // the newest set is the one refused
		{filepath.Join(base, "nope"), "no such file or directory"},
	} {
		r := l.run(ctx, "crrestart", c.dir)
		if r.code != 1 || !strings.Contains(r.stderr, "crrestart: cannot restart: ") || !strings.Contains(r.stderr, c.want) {
			t.Errorf("crrestart %s: %v", c.dir, r)
		}
	}
	if r := l.run(ctx, "crrestart"); r.code != 226 {
		t.Errorf("crrestart without a set: %v", r)
	}
	// LAM's self restart: mpirun runs cr_restart_args again.
	r := l.run(ctx, "lamrestart", "-ssi", "cr", "self", "-ssi", "cr_restart_args", "-np 2 '"+bin("crrank")+"' ok 0.2")
	if r.code != 0 || strings.Count(r.stdout, " done\n") != 2 {
		t.Errorf("lamrestart cr_restart_args: %v", r)
	}
}

// TestCRRankKilled: a rank killed during a checkpoint ends the job, which
// mpirun reports; the checkpoint fails at once (not at its timeout), its
// partial set is removed and the previous set is intact.
func TestCRRankKilled(t *testing.T) {
	buildCRTools(t)
	ctx, l := bootLocal(t, 2*time.Minute)
	base := t.TempDir()
	j := startCRJob(t, ctx, l, 2, "-ssi", "cr_base_dir", base, "-np", "2", bin("crrank"), "once", "60")
	pid := strconv.Itoa(j.cmd.Process.Pid)
	r := l.run(ctx, "crcheckpoint", pid)
	if r.code != 0 {
		t.Fatalf("first checkpoint: %v", r)
	}
	first := strings.TrimSpace(r.stdout)
	d, err := crset.Load(first)
	if err != nil {
		t.Fatal(err)
	}
	second := make(chan result, 1)
	start := time.Now()
	go func() { second <- l.run(ctx, "crcheckpoint", "-timeout", "40", pid) }()
	time.Sleep(time.Second) // rank 1 sits on the request
	if err := syscall.Kill(int(d.Ranks[1].PID), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r = <-second
	if r.code != 1 || !strings.Contains(r.stderr, "checkpoint 2 not taken: the job ended during the checkpoint") {
		t.Errorf("second checkpoint: %v", r)
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("the failed checkpoint took %v, as if it waited for its timeout", el)
	}
	j.wait(t, ctx)
	if j.code != 9 || !strings.Contains(j.stderr.String(), "due to signal 9") {
		t.Errorf("mpirun: exit %d\n%s", j.code, j.stderr.String())
	}
	if _, err := crset.Load(first); err != nil {
		t.Errorf("the previous set: %v", err)
	}
	noPartial(t, base)
}

// TestCRRestartElsewhere checkpoints a job of one rank per host on three
// namespace hosts, then restarts it on a universe of two (lamshrink):
// the world keeps its three ranks, now placed over two nodes, each rank
// with its own state.
func TestCRRestartElsewhere(t *testing.T) {
	buildCRTools(t)
	ctx := testContext(t, 4*time.Minute)
	h := newHosts(t, 3)
	if r := h.run(ctx, 0, "lamboot", "-prefix", prefix, h.schema(nil)); r.code != 0 {
		t.Fatalf("lamboot: %v", r)
	}
	base, err := os.MkdirTemp("", "lamgo-crsets-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	cmd := h.c.Command(ctx, 0, bin("mpirun"), "-ssi", "cr_base_dir", base, "N", bin("crrank"), "ok", "60")
	cmd.Env = h.env
	j := startCRCmd(t, ctx, cmd, 3)
	r := h.run(ctx, 1, "crcheckpoint", "-stop", "0:"+strconv.Itoa(j.cmd.Process.Pid)) // from another node
	if r.code != 0 {
		t.Fatalf("crcheckpoint -stop from n1: %v", r)
	}
	j.wait(t, ctx)
	set := strings.TrimSpace(r.stdout)
	d, err := crset.Load(set)
	if err != nil {
		t.Fatal(err)
	}
	for i, rk := range d.Ranks {
		if rk.Node != int32(i) {
			t.Errorf("rank %d ran on n%d, want n%d", i, rk.Node, i)
		}
	}
	if r := h.run(ctx, 0, "lamshrink", "n2"); r.code != 0 {
		t.Fatalf("lamshrink n2: %v", r)
	}
	r = h.run(ctx, 0, "crrestart", set)
	if r.code != 0 {
		t.Fatalf("crrestart on two nodes: %v", r)
	}
	nodes := map[string]int{}
	for rank := range 3 {
		if want := fmt.Sprintf("rank %d restored: rank %d checkpoint 1\n", rank, rank); !strings.Contains(r.stdout, want) {
			t.Errorf("no %q in\n%s", want, r.stdout)
		}
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		if _, node, ok := strings.Cut(line, " restarted on "); ok {
			nodes[node]++
		}
	}
	if len(nodes) != 2 || nodes["n0"]+nodes["n1"] != 3 {
		t.Errorf("restarted ranks by node: %v, want 3 ranks over n0 and n1\n%s", nodes, r.stdout)
	}
	h.run(ctx, 0, "lamhalt", "-H")
}

// TestCRCheckpointInInit: a checkpoint asked while the ranks are still
// in MPI_Init is refused at once, and the job then runs to its end.
func TestCRCheckpointInInit(t *testing.T) {
	buildCRTools(t)
	ctx, l := bootLocal(t, 2*time.Minute)
	base := t.TempDir()
	cmd := exec.CommandContext(ctx, bin("mpirun"), "-ssi", "cr_base_dir", base, "-np", "2", bin("crrank"), "late", "0.5")
	cmd.Env, cmd.Dir = l.env, l.prefix
	j := startCRCmd(t, ctx, cmd, 0)
	time.Sleep(500 * time.Millisecond)
	r := l.run(ctx, "crcheckpoint", strconv.Itoa(j.cmd.Process.Pid))
	if r.code != 1 || !strings.Contains(r.stderr, "the job is starting: 0 of 2 ranks have called MPI_Init") {
		t.Errorf("crcheckpoint during MPI_Init: %v", r)
	}
	j.wait(t, ctx)
	if j.code != 0 || strings.Count(j.out.String(), " done\n") != 2 {
		t.Errorf("mpirun: exit %d\n%s\n%s", j.code, j.out.String(), j.stderr.String())
	}
	noPartial(t, base)
}

// TestCRFullDisk: sets on a full file system (a small tmpfs): the
// checkpoint fails with the reason, its partial set is removed, the
// previous set is intact and the job goes on.
func TestCRFullDisk(t *testing.T) {
	buildCRTools(t)
	ctx, l := bootLocal(t, 2*time.Minute)
	base := t.TempDir()
	if err := syscall.Mount("tmpfs", base, "tmpfs", 0, "size=256k,mode=0700"); err != nil {
		testenv.Skip(t, "cannot mount a tmpfs: "+err.Error())
	}
	t.Cleanup(func() { syscall.Unmount(base, syscall.MNT_DETACH) })
	j := startCRJob(t, ctx, l, 2, "-ssi", "cr_base_dir", base, "-np", "2", bin("crrank"), "ok", "3")
	pid := strconv.Itoa(j.cmd.Process.Pid)
	r := l.run(ctx, "crcheckpoint", pid)
	if r.code != 0 {
		t.Fatalf("first checkpoint: %v", r)
	}
	first := strings.TrimSpace(r.stdout)
	// Fill the file system.
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
	r = l.run(ctx, "crcheckpoint", pid)
	if r.code != 1 || !strings.Contains(r.stderr, "checkpoint 2 not taken: ") || !strings.Contains(r.stderr, "no space left on device") {
		t.Errorf("checkpoint on a full disk: %v", r)
	}
	if _, err := crset.Load(first); err != nil {
		t.Errorf("the previous set: %v", err)
	}
	noPartial(t, base)
	j.wait(t, ctx)
	if j.code != 0 {
		t.Errorf("mpirun after a failed checkpoint: exit %d\n%s", j.code, j.stderr.String())
	}
}

// BenchmarkCRCoordination measures mpirun's coordination of one
// checkpoint — request through the lamd, every rank asked and answered,
// the set's description written, synced and renamed, the answer back —
// with stand-in ranks whose state is a few bytes (the library's drain
// and state are not in it). LAM's published cost was 114 ms + 9 ms per
// process.
func BenchmarkCRCoordination(b *testing.B) {
	buildCRTools(b)
	for _, n := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("ranks=%d", n), func(b *testing.B) {
			ctx, l := bootLocal(b, 5*time.Minute)
			base := b.TempDir()
			j := startCRJob(b, ctx, l, n, "-ssi", "cr_base_dir", base, "-ssi", "cr_base_keep", "1", "-np", strconv.Itoa(n), bin("crrank"), "ok", "600")
			dir, err := session.Resolve(session.Options{Prefix: l.prefix, Getenv: func(string) string { return "" }})
			if err != nil {
				b.Fatal(err)
			}
			cl, err := lamclient.Dial(ctx, dir, "bench", wire.RoleTool)
			if err != nil {
				b.Fatal(err)
			}
			defer cl.Close()
			me := int32(os.Getpid())
			const replyType = 1 << 12
			b.ResetTimer()
			for b.Loop() {
				req := &jobwire.Checkpoint{ReplyEvent: me, ReplyType: replyType, Deadline: time.Now().Add(time.Minute).UnixNano()}
				if err := cl.Send(ctx, cl.Node(), int32(j.cmd.Process.Pid), jobwire.TypeCheckpoint, req.Encode()); err != nil {
					b.Fatal(err)
				}
				m, err := cl.Recv(ctx, me, replyType)
				if err != nil {
					b.Fatal(err)
				}
				if r, err := jobwire.DecodeCheckpointReply(m.Data); err != nil || r.Err != "" {
					b.Fatalf("checkpoint: %+v %v", r, err)
				}
			}
			b.StopTimer()
			j.cmd.Process.Kill()
		})
	}
}

// TestCRCheckpointQueued: requests that arrive together are served one
// after the other, each with its own set.
func TestCRCheckpointQueued(t *testing.T) {
	buildCRTools(t)
	ctx, l := bootLocal(t, 2*time.Minute)
	base := t.TempDir()
	j := startCRJob(t, ctx, l, 2, "-ssi", "cr_base_dir", base, "-np", "2", bin("crrank"), "ok", "60")
	pid := strconv.Itoa(j.cmd.Process.Pid)
	results := make(chan result, 3)
	for range 3 {
		go func() { results <- l.run(ctx, "crcheckpoint", pid) }()
	}
	var got []string
	for range 3 {
		r := <-results
		if r.code != 0 {
			t.Errorf("crcheckpoint: %v", r)
			continue
		}
		got = append(got, filepath.Base(strings.TrimSpace(r.stdout)))
	}
	slices.Sort(got)
	if strings.Join(got, " ") != "ckpt-1 ckpt-2 ckpt-3" {
		t.Errorf("sets %v, want ckpt-1 ckpt-2 ckpt-3", got)
	}
	j.cmd.Process.Kill()
	j.wait(t, ctx)
	noPartial(t, base)
}
