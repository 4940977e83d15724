package integration

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOFIKilledRankRegions: a rank of a job over libfabric's shm provider
// killed mid-job leaves its region in /dev/shm ("<pid>:<domain>:
// <endpoint>", which the provider removes only when the endpoint
// closes); the lamd that started it removes it once it has reaped the
// process, and the job's other rank's too, whichever way that one ends.
func TestOFIKilledRankRegions(t *testing.T) {
	needOFI(t)
	needPgrep(t)
	ctx, l := bootLocal(t, 2*time.Minute)
	prog := bin("testprog-ofi")
	cmd := exec.CommandContext(ctx, bin("mpirun"), "-ssi", "rpi", "ofi", "-ssi", "rpi_ofi_provider", "shm", "-np", "2", prog, "peerdeath")
	cmd.Env = l.env
	j := startCRCmd(t, ctx, cmd, 1)
	out, _ := exec.Command("pgrep", "-f", "^"+prog+" peerdeath").Output()
	var pids []int
	for _, f := range strings.Fields(string(out)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	if len(pids) != 2 {
		t.Fatalf("the job's ranks: pids %v", pids)
	}
	regions := func(pid int) []string {
		m, _ := filepath.Glob(fmt.Sprintf("/dev/shm/%d:*", pid))
		return m
	}
	for _, pid := range pids {
		if len(regions(pid)) == 0 {
			t.Fatalf("rank pid %d has no shm region while it runs (the provider names them otherwise?)", pid)
		}
	}
	syscall.Kill(pids[1], syscall.SIGKILL)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	j.wait(t, wctx)
	if j.code == 0 {
		t.Errorf("a rank killed, mpirun exited 0\n%s", j.stderr.String())
	}
	// The lamd removes them after it reaps the process, before it
	// reports the exit; mpirun may end on the first report.
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		for len(regions(pid)) > 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if m := regions(pid); len(m) > 0 {
			t.Errorf("rank pid %d (killed: %v) left its shm regions: %v", pid, pid == pids[1], m)
		}
	}
}
