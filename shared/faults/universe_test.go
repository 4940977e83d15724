package faults

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/testenv"
)

// Bounds of the suite's checks.
const (
	// answerBound is how long a lamd may take to answer lamnodes and
	// tping after an attack ended.
	answerBound = 10 * time.Second
	// leftBound is how long processes, session directories and
	// segments may take to go once a universe is halted.
	leftBound = 10 * time.Second
)

// result is what a tool run printed and returned.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", r.code, r.stdout, r.stderr)
}

// job is a tool running in the background.
type job struct {
	cmd      *exec.Cmd
	out, err testenv.Buffer
	done     chan struct{}
	res      result
}

// start starts cmd in the background; the test's cleanup kills it if it
// still runs.
func start(t *testing.T, cmd *exec.Cmd) *job {
	t.Helper()
	j := &job{cmd: cmd, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &j.out, &j.err
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", strings.Join(cmd.Args, " "), err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() {
		select {
		case <-j.done:
		default:
			syscall.Kill(pid, syscall.SIGKILL)
			<-j.done
		}
	})
	go func() {
		err := cmd.Wait()
		j.res = result{stdout: j.out.String(), stderr: withoutRootWarning(j.err.String())}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			j.res.code = ee.ExitCode()
		} else if err != nil {
			j.res.code = -1
			j.res.stderr += "\n(" + err.Error() + ")"
		}
		close(j.done)
	}()
	return j
}

// wait waits up to d for the job to end.
func (j *job) wait(d time.Duration) (result, bool) {
	select {
	case <-j.done:
		return j.res, true
	case <-time.After(d):
		return result{stdout: j.out.String(), stderr: withoutRootWarning(j.err.String()), code: -1}, false
	}
}

// waitOutput waits up to d until the job printed s n times.
func (j *job) waitOutput(s string, n int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if strings.Count(j.out.String(), s) >= n {
			return true
		}
		select {
		case <-j.done:
			return strings.Count(j.out.String(), s) >= n
		case <-time.After(20 * time.Millisecond):
		}
	}
	return false
}

// runCmd runs cmd to its end (its context bounds it).
func runCmd(t *testing.T, cmd *exec.Cmd) result {
	t.Helper()
	return start(t, cmd).mustWait()
}

// withoutRootWarning drops the one-line warning tools print as root.
func withoutRootWarning(s string) string {
	var out []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.Contains(l, ": warning: running as root") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

func testContext(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// universe is a universe on this host in a private session prefix.
type universe struct {
	t    *testing.T
	sc   *scenario
	sp   string // session prefix
	env  []string
	lamd int // the lamd's pid, once booted

	mu   sync.Mutex
	jobs []int // pids of every mpirun started, whose segments must go
}

// newUniverse prepares a universe in a new session prefix (sp, when not
// empty); it does not boot it. When the test ends whatever is left is
// halted, wiped and killed, and the leftovers are checked if the test
// did not.
func newUniverse(t *testing.T, sc *scenario, sp string) *universe {
	t.Helper()
	if sp == "" {
		sp = t.TempDir()
	}
	u := &universe{t: t, sc: sc, sp: sp, env: append(os.Environ(),
		"LAM_MPI_SESSION_PREFIX="+sp, "LAM_MPI_SESSION_SUFFIX=",
		"LAM_MPI_SSI_boot_base_timeout=20", "LAMHOME=")}
	sc.hide(sp, "$SESSIONS")
	t.Cleanup(u.cleanup)
	return u
}

func (u *universe) command(ctx context.Context, tool string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin(tool), args...)
	cmd.Env = u.env
	cmd.Dir = u.sp
	return cmd
}

// run runs a tool to its end.
func (u *universe) run(ctx context.Context, tool string, args ...string) result {
	u.t.Helper()
	return u.start(ctx, tool, args...).mustWait()
}

// start starts a tool in the background.
func (u *universe) start(ctx context.Context, tool string, args ...string) *job {
	u.t.Helper()
	j := start(u.t, u.command(ctx, tool, args...))
	if tool == "mpirun" {
		u.mu.Lock()
		u.jobs = append(u.jobs, j.cmd.Process.Pid)
		u.mu.Unlock()
	}
	return j
}

func (j *job) mustWait() result {
	<-j.done
	return j.res
}

// sessionDir is the universe's session directory on this host ("" when
// there is none).
func (u *universe) sessionDir() string {
	host, _ := os.Hostname()
	m, _ := filepath.Glob(filepath.Join(u.sp, "lam-*@"+host))
	if len(m) != 1 {
		return ""
	}
	return m[0]
}

// boot boots the universe on this host (lamboot -H), with the lamd's
// RLIMIT_NOFILE set to nofile when it is not 0, and learns the lamd's pid.
func (u *universe) boot(ctx context.Context, nofile int) {
	u.t.Helper()
	var r result
	switch {
	case nofile == 0:
		r = u.run(ctx, "lamboot", "-H")
	case havePrlimit():
		cmd := exec.CommandContext(ctx, "prlimit", fmt.Sprintf("--nofile=%d:%d", nofile, nofile), "--", bin("lamboot"), "-H")
		cmd.Env, cmd.Dir = u.env, u.sp
		r = runCmd(u.t, cmd)
	default:
		cmd := exec.CommandContext(ctx, "sh", "-c", fmt.Sprintf(`ulimit -n %d && exec "$0" "$@"`, nofile), bin("lamboot"), "-H")
		cmd.Env, cmd.Dir = u.env, u.sp
		r = runCmd(u.t, cmd)
	}
	if r.code != 0 {
		u.t.Fatalf("lamboot: %v", r)
	}
	u.lamd = u.killFilePID()
	if u.lamd == 0 {
		u.t.Fatalf("no lamd pid in %s after lamboot", u.sessionDir())
	}
}

func havePrlimit() bool {
	_, err := exec.LookPath("prlimit")
	return err == nil
}

// killFilePID reads the lamd's pid from the session directory (0 if
// there is none).
func (u *universe) killFilePID() int {
	dir := u.sessionDir()
	if dir == "" {
		return 0
	}
	b, err := os.ReadFile(filepath.Join(dir, "lam-killfile"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// socket is the lamd's local socket.
func (u *universe) socket() string { return filepath.Join(u.sessionDir(), "lam-kernel-socket") }

// usage measures the lamd.
func (u *universe) usage() *usage {
	u.t.Helper()
	us, err := measure(u.lamd)
	if err != nil {
		u.t.Errorf("measure lamd %d: %v", u.lamd, err)
		return nil
	}
	return &us
}

// answers checks that the lamd answers lamnodes and tping within
// answerBound.
func (u *universe) answers(ctx context.Context) error {
	u.t.Helper()
	ctx, cancel := context.WithTimeout(ctx, answerBound)
	defer cancel()
	if r := u.run(ctx, "lamnodes"); r.code != 0 || !strings.Contains(r.stdout, "n0\t") {
		return fmt.Errorf("lamnodes: %v", r)
	}
	if r := u.run(ctx, "tping", "-c", "1", "-d", "0", "N"); r.code != 0 {
		return fmt.Errorf("tping: %v", r)
	}
	return nil
}

// mustAnswer ends the test unless the lamd answers (the cleanup then
// wipes the universe and records what is left).
func (u *universe) mustAnswer(ctx context.Context, when string) {
	u.t.Helper()
	if err := u.answers(ctx); err != nil {
		u.sc.note("lamd silent %s", when)
		u.t.Fatalf("the lamd does not answer %s: %v", when, err)
	}
}

// hello runs a two-rank job and checks its output.
func (u *universe) hello(ctx context.Context, when string) {
	u.t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if r := u.run(ctx, "mpirun", "-np", "2", bin("hello")); r.code != 0 || strings.Count(r.stdout, "Hello, world!") != 2 {
		u.t.Errorf("a job %s: %v", when, r)
		u.sc.note("job failed %s", when)
	}
}

// halt halts the universe; it must succeed.
func (u *universe) halt(ctx context.Context) {
	u.t.Helper()
	if r := u.run(ctx, "lamhalt", "-H"); r.code != 0 {
		u.t.Errorf("lamhalt: %v", r)
	}
}

// noneLeft checks, waiting up to leftBound, that no process of the suite,
// no session directory under the prefix and no segment of this
// universe's jobs is left, and records what was.
func (u *universe) noneLeft() {
	u.t.Helper()
	left := waitLeftovers(leftBound, func() []string { return leftovers(u.sp, u.jobPIDs()) })
	u.sc.left(left)
	if len(left) > 0 {
		u.t.Errorf("left behind: %s", strings.Join(left, ", "))
	}
}

func (u *universe) jobPIDs() []int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]int(nil), u.jobs...)
}

func waitLeftovers(d time.Duration, f func() []string) []string {
	deadline := time.Now().Add(d)
	for {
		left := f()
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// leftovers lists the suite's processes, the session directories under
// sp and the shared-memory segments of the jobs of the mpiruns jobs.
func leftovers(sp string, jobs []int) []string {
	var left []string
	for _, p := range processes() {
		left = append(left, fmt.Sprintf("process %d (%s)", p.pid, filepath.Base(p.exe)))
	}
	dirs, _ := filepath.Glob(filepath.Join(sp, "lam-*"))
	for _, d := range dirs {
		left = append(left, "session directory "+filepath.Base(d))
	}
	for _, s := range segments(jobs) {
		left = append(left, "segment "+s)
	}
	return left
}

// segments lists the shared-memory segments of the jobs of the given
// mpirun pids (named lam-<uid>-<node>-<mpirun pid>-...), whichever node
// they are on.
func segments(jobs []int) []string {
	ents, _ := os.ReadDir(jobwire.ShmDir)
	uid := "lam-" + strconv.Itoa(os.Getuid()) + "-"
	var out []string
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), uid)
		if !ok {
			continue
		}
		fs := strings.SplitN(rest, "-", 3)
		if len(fs) < 3 {
			continue
		}
		for _, pid := range jobs {
			if fs[1] == strconv.Itoa(pid) {
				out = append(out, e.Name())
			}
		}
	}
	return out
}

// cleanup ends what a test left: halts and wipes the universe, checks
// the leftovers if the test did not, then kills every process of the
// suite and removes the jobs' segments.
func (u *universe) cleanup() {
	if u.lamd != 0 && !isOurs(u.lamd) {
		u.lamd = 0 // gone, and its pid may be another's by now
	}
	if u.lamd != 0 {
		syscall.Kill(u.lamd, syscall.SIGCONT)
	}
	for _, p := range processes() {
		syscall.Kill(p.pid, syscall.SIGCONT)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if u.killFilePID() != 0 {
		u.quiet(ctx, "lamhalt", "-H")
		u.quiet(ctx, "lamwipe", "-H")
	}
	if !u.sc.Checked {
		u.noneLeft()
	}
	if u.lamd != 0 {
		syscall.Kill(u.lamd, syscall.SIGKILL)
	}
	killOurs()
	for _, s := range segments(u.jobPIDs()) {
		os.Remove(filepath.Join(jobwire.ShmDir, s))
	}
}

// quiet runs a tool for cleaning up, outside the test's bookkeeping.
func (u *universe) quiet(ctx context.Context, tool string, args ...string) {
	cmd := u.command(ctx, tool, args...)
	cmd.WaitDelay = 5 * time.Second
	_ = cmd.Run()
}
