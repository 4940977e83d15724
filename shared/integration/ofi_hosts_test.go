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

// TestOFIHosts: the suites over the ofi module with libfabric's tcp
// provider on two hosts (network namespaces), ranks alternating between
// them so that every neighbour is across; then a rank killed on the
// other host mid-job is reported as a dead process.
func TestOFIHosts(t *testing.T) {
	testUser(t)
	needOFI(t)
	ctx := testContext(t, 6*time.Minute)
	h := newHosts(t, 2)
	if r := h.run(ctx, 0, "lamboot", "-prefix", prefix, h.schema(nil)); r.code != 0 {
		t.Fatalf("lamboot: %v", r)
	}
	ofi := []string{"-ssi", "rpi", "ofi", "-ssi", "rpi_ofi_provider", "tcp"}
	prog := bin("testprog-ofi")
	for _, c := range []struct {
		layout []int
		args   []string
		want   string
	}{
		{[]int{0, 1}, []string{"p2p"}, "p2p ok\n"},
		{[]int{0, 1, 0, 1, 0}, []string{"p2p"}, "p2p ok\n"},
		{[]int{0, 1, 0, 1, 0}, []string{"edges"}, "edges ok\n"},
		{[]int{0, 1, 0, 1}, []string{"comm"}, "comm ok\n"},
		{[]int{0, 1, 0, 1}, []string{"coll"}, "coll ok lam_basic\n"},
		{[]int{0, 1}, []string{"big", "40"}, "received 40 MiB\n"},
	} {
		args := append(append(append(append([]string{}, ofi...), "-ssi", "coll", "lam_basic"), layoutArgs(c.layout)...), prog)
		if r := h.run(ctx, 0, "mpirun", append(args, c.args...)...); r.code != 0 || r.stdout != c.want {
			t.Errorf("%v over ofi/tcp on %v: %v", c.args, c.layout, r)
		}
	}
	t.Run("peer killed", func(t *testing.T) { ofiHostsKill(t, ctx, h, append(ofi, "n0", "n1", prog, "peerdeath")) })
	if r := h.run(ctx, 0, "lamhalt"); r.code != 0 {
		t.Errorf("lamhalt: %v", r)
	}
	h.noLamds()
	noneLeft(t, "testprog-ofi")
}

// ofiHostsKill runs the peerdeath suite (rank 0 on n0 ping-pongs with
// rank 1 on n1), kills rank 1 once it runs, and checks that the job ends
// reporting the dead rank: mpirun naming the killed process, or rank 0's
// call failing with MPI_ERR_PROC_FAILED, whichever comes first.
func ofiHostsKill(t *testing.T, ctx context.Context, h *hosts, args []string) {
	cmd := h.c.Command(ctx, 0, bin("mpirun"), args...)
	cmd.Env = h.env
	j := startCRCmd(t, ctx, cmd, 1)
	pids := pidsInHost(t, h, 1, "^"+bin("testprog-ofi")+" peerdeath")
	if len(pids) != 1 {
		t.Fatalf("rank 1 on n1: pids %v", pids)
	}
	killed := time.Now()
	syscall.Kill(pids[0], syscall.SIGKILL)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	j.wait(t, wctx)
	stderr := j.stderr.String()
	byRuntime := regexp.MustCompile(`PID \d+ failed on node n1( \([^)]*\))? due to signal 9`).MatchString(stderr)
	byPeer := regexp.MustCompile(`testprog rank 0: (send to|recv from) rank 1: MPI_ERR_PROC_FAILED`).MatchString(stderr)
	if j.code == 0 || !byRuntime && !byPeer {
		t.Fatalf("rank 1 killed: mpirun exit %d, no report of the dead rank\n%s", j.code, stderr)
	}
	t.Logf("ended %v after the kill; reported by mpirun: %v, by rank 0's call: %v", time.Since(killed).Round(time.Millisecond), byRuntime, byPeer)
}

// pidsInHost lists the processes in host i's network namespace whose
// command line matches pattern (pgrep -f).
func pidsInHost(t *testing.T, h *hosts, i int, pattern string) []int {
	t.Helper()
	ns, err := h.c.Command(context.Background(), i, "readlink", "/proc/self/ns/net").Output()
	if err != nil {
		t.Fatalf("host %d's network namespace: %v", i, err)
	}
	out, _ := exec.Command("pgrep", "-f", pattern).Output()
	var pids []int
	for _, f := range strings.Fields(string(out)) {
		theirs, err := os.Readlink(filepath.Join("/proc", f, "ns", "net"))
		if pid, perr := strconv.Atoi(f); err == nil && perr == nil && theirs == strings.TrimSpace(string(ns)) {
			pids = append(pids, pid)
		}
	}
	return pids
}
