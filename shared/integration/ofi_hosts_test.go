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
// provider on two hosts (network namespaces): ofi between the hosts and
// usysv within each (the pairs each carries, told by the ranks' ofi
// message counts), with the ranks alternating between the hosts and two
// on each; ofi for every pair with rpi_ofi_onnode; a job checkpointed
// twice and continued; then a rank killed on the other host mid-job is
// reported as a dead process.
func TestOFIHosts(t *testing.T) {
	testUser(t)
	needOFI(t)
	buildCRTools(t)
	ctx := testContext(t, 8*time.Minute)
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
		{[]int{0, 0, 1, 1}, []string{"p2p"}, "p2p ok\n"},
		{[]int{0, 0, 1, 1}, []string{"coll"}, "coll ok lam_basic\n"},
		{[]int{0, 1, 0, 1}, []string{"ofipeers"}, "ofi pairs 0-1 0-3 1-2 2-3\n"},
		{[]int{0, 0, 1, 1}, []string{"ofipeers"}, "ofi pairs 0-2 0-3 1-2 1-3\n"},
	} {
		args := append(append(append(append([]string{}, ofi...), "-ssi", "coll", "lam_basic"), layoutArgs(c.layout)...), prog)
		if r := h.run(ctx, 0, "mpirun", append(args, c.args...)...); r.code != 0 || r.stdout != c.want {
			t.Errorf("%v over ofi/tcp on %v: %v", c.args, c.layout, r)
		}
	}
	// rpi_ofi_onnode: ofi for the pairs on a host too.
	onnode := append(append(append([]string{}, ofi...), "-ssi", "rpi_ofi_onnode", "1", "n0", "n0", "n1", "n1", prog), "ofipeers")
	if r := h.run(ctx, 0, "mpirun", onnode...); r.code != 0 || r.stdout != "ofi pairs 0-1 0-2 0-3 1-2 1-3 2-3\n" {
		t.Errorf("ofipeers with rpi_ofi_onnode: %v", r)
	}
	t.Run("checkpoint", func(t *testing.T) { ofiHostsCheckpoint(t, ctx, h, ofi, prog) })
	t.Run("peer killed", func(t *testing.T) { ofiHostsKill(t, ctx, h, append(ofi, "n0", "n1", prog, "peerdeath")) })
	if r := h.run(ctx, 0, "lamhalt"); r.code != 0 {
		t.Errorf("lamhalt: %v", r)
	}
	h.noLamds()
	noneLeft(t, "testprog-ofi")
}

// ofiHostsCheckpoint checkpoints a job of two ranks on each host (usysv
// within, ofi between) twice inside its MPI calls, lets it go on, and
// checks its result against a run without checkpoints.
func ofiHostsCheckpoint(t *testing.T, ctx context.Context, h *hosts, ofi []string, prog string) {
	for _, op := range []string{"sendrecv", "alltoall"} {
		args := append(append([]string{}, ofi...), "n0", "n0", "n1", "n1", prog, "cr", op, "4096", "300")
		r := h.run(ctx, 0, "mpirun", args...)
		want := resultRE.FindString(r.stdout)
		if r.code != 0 || want == "" {
			t.Fatalf("%s without checkpoints: %v", op, r)
		}
		gate := filepath.Join(t.TempDir(), "gate")
		cmd := h.c.Command(ctx, 0, bin("mpirun"), append(append([]string{"-ssi", "cr", "self", "-ssi", "cr_base_dir", t.TempDir()}, args...), gate)...)
		cmd.Env = h.env
		j := startCRCmd(t, ctx, cmd, 4)
		for range 2 {
			if r := h.run(ctx, 0, "crcheckpoint", "-timeout", "30", strconv.Itoa(j.cmd.Process.Pid)); r.code != 0 {
				t.Fatalf("crcheckpoint %s: %v", op, r)
			}
		}
		if err := os.WriteFile(gate, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		j.wait(t, wctx)
		cancel()
		if got := resultRE.FindString(j.out.String()); j.code != 0 || got != want {
			t.Errorf("%s checkpointed twice: exit %d, %q, want %q\n%s%s", op, j.code, got, want, j.out.String(), j.stderr.String())
		}
	}
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
