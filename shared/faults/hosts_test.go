package faults

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/nettest"
)

// hosts is a universe over simulated hosts (shared/nettest): network
// namespaces with their own names and sshd, so lamboot goes through ssh.
type hosts struct {
	t    *testing.T
	sc   *scenario
	c    *nettest.Cluster
	sp   string // session prefix, the same on every host
	env  []string
	jobs []int
}

func newHosts(t *testing.T, sc *scenario, n int) *hosts {
	t.Helper()
	sp, err := os.MkdirTemp("", "lamgo-faults-sessions-")
	if err != nil {
		t.Fatal(err)
	}
	// Registered before nettest.New, which may skip the test.
	t.Cleanup(func() { os.RemoveAll(sp) })
	os.Chmod(sp, 0o755)
	c := nettest.New(t, nettest.Options{Hosts: n, Env: []string{"LAM_MPI_SESSION_PREFIX=" + sp}})
	h := &hosts{t: t, sc: sc, c: c, sp: sp}
	sc.hide(sp, "$SESSIONS")
	h.env = append(os.Environ(), "LAM_MPI_SESSION_PREFIX="+sp, "LAM_MPI_SESSION_SUFFIX=",
		"LAM_MPI_SSI_boot_rsh_agent="+c.SSHAgent(), "LAM_MPI_SSI_boot_base_timeout=20")
	var schema strings.Builder
	for _, host := range c.Hosts {
		fmt.Fprintln(&schema, host.Name)
	}
	if err := os.WriteFile(h.schema(), []byte(schema.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for _, p := range processes() {
			syscall.Kill(p.pid, syscall.SIGCONT)
		}
		for i := range c.Hosts {
			cmd := c.Command(ctx, i, bin("lamwipe"), "-H", "-prefix", prefix, h.schema())
			cmd.Env = h.env
			cmd.WaitDelay = 5 * time.Second
			_ = cmd.Run()
		}
		if !sc.Checked {
			h.noneLeft()
		}
		killOurs()
		for _, s := range segments(h.jobs) {
			os.Remove(filepath.Join(jobwire.ShmDir, s))
		}
	})
	return h
}

func (h *hosts) schema() string { return filepath.Join(h.sp, "hosts") }

func (h *hosts) start(ctx context.Context, host int, tool string, args ...string) *job {
	h.t.Helper()
	cmd := h.c.Command(ctx, host, bin(tool), args...)
	cmd.Env = h.env
	j := start(h.t, cmd)
	if tool == "mpirun" {
		h.jobs = append(h.jobs, j.cmd.Process.Pid)
	}
	return j
}

func (h *hosts) run(ctx context.Context, host int, tool string, args ...string) result {
	h.t.Helper()
	return h.start(ctx, host, tool, args...).mustWait()
}

func (h *hosts) boot(ctx context.Context) {
	h.t.Helper()
	if r := h.run(ctx, 0, "lamboot", "-prefix", prefix, h.schema()); r.code != 0 {
		h.t.Fatalf("lamboot: %v", r)
	}
}

// lamd is the pid of host i's lamd, from its kill file.
func (h *hosts) lamd(i int) int {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.sp, "lam-root@"+h.c.Hosts[i].Name, "lam-killfile"))
	if err != nil {
		h.t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		h.t.Fatal(err)
	}
	return pid
}

func (h *hosts) noneLeft() {
	h.t.Helper()
	left := waitLeftovers(leftBound, func() []string { return leftovers(h.sp, h.jobs) })
	h.sc.left(left)
	if len(left) > 0 {
		h.t.Errorf("left behind: %s", strings.Join(left, ", "))
	}
}

// A lamd killed mid-job on one of three hosts: its ranks die with it,
// mpirun reports naming ranks, the job ends on every host, the other
// lamds still answer, and the next lamboot cleans the dead host's session.
func TestHostsKilledLamd(t *testing.T) {
	sc := record(t, "lamd killed (SIGKILL) mid-job, one of 3 namespace hosts")
	ctx := testContext(t, 4*time.Minute)
	h := newHosts(t, sc, 3)
	h.boot(ctx)
	j := h.start(ctx, 0, "mpirun", "C", bin("testprog"), "tick", "60")
	if !j.waitOutput(" ticking", 3, 60*time.Second) {
		r, _ := j.wait(time.Second)
		t.Fatalf("the job's ranks never all ticked: %v", r)
	}
	var ranks [][]int
	var all []int
	for i := range h.c.Hosts {
		rs := childrenOf(h.lamd(i), "testprog")
		if len(rs) != 1 {
			t.Fatalf("ranks on host %d: %v", i, rs)
		}
		ranks = append(ranks, rs)
		all = append(all, rs...)
	}
	syscall.Kill(h.lamd(2), syscall.SIGKILL)
	if left := waitGone(rankDeathBound, ranks[2]...); len(left) > 0 {
		t.Errorf("ranks %v outlived their lamd by %v", left, rankDeathBound)
		sc.note("ranks outlived their lamd")
	}
	r, ok := j.wait(jobEndBound)
	switch {
	case !ok:
		t.Errorf("mpirun still runs %v after a lamd died: %v", jobEndBound, r)
		sc.note("mpirun did not end")
	case r.code == 0 || !namesRanks.MatchString(r.stderr):
		t.Errorf("mpirun after a lamd died: %v\nwant a failure naming ranks", r)
		sc.note("%s", outcome("mpirun", r))
	default:
		sc.note("%s", outcome("mpirun", r))
	}
	if left := waitGone(rankDeathBound, all...); len(left) > 0 {
		t.Errorf("ranks %v outlived their job", left)
		sc.note("ranks outlived the job")
	}
	for i := range 2 {
		if r := h.run(testContext(t, answerBound), i, "lamnodes"); r.code != 0 {
			t.Errorf("lamnodes on host %d after n2's lamd died: %v", i, r)
			sc.note("host %d silent", i)
		}
	}
	if r := h.run(ctx, 0, "lamhalt"); r.code != 0 && r.code != 202 {
		t.Errorf("lamhalt with a dead node: %v", r)
	}
	// lamhalt may return before the lamds it halted have removed their
	// session directories; the new lamboot must not race them.
	for i := range 2 {
		dir := filepath.Join(h.sp, "lam-root@"+h.c.Hosts[i].Name)
		if waitLeftovers(leftBound, func() []string { m, _ := filepath.Glob(dir); return m }) != nil {
			t.Errorf("host %d's session directory is left %v after lamhalt", i, leftBound)
		}
	}
	// Host 2's session directory is stale: the next lamboot cleans it.
	h.boot(ctx)
	if r := h.run(ctx, 1, "mpirun", "C", bin("hello")); r.code != 0 || strings.Count(r.stdout, "Hello, world!") != 3 {
		t.Errorf("a job after the new lamboot: %v", r)
	}
	if r := h.run(ctx, 0, "lamhalt"); r.code != 0 {
		t.Errorf("lamhalt: %v", r)
	}
	h.noneLeft()
}
