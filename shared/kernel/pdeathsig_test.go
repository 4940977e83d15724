package kernel_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/kernel/kerneltest"
	"github.com/lamgo/lam/shared/wire"
)

// A process a lamd started dies with the lamd when the lamd is killed
// outright (kill -9 cannot be caught, so the lamd ends nothing itself).
// The test binary plays the lamd: it runs itself as a helper that starts
// a universe, spawns a sleep through it and prints its pid; the test then
// kills the helper with SIGKILL.
func TestSpawnedDieWithLamd(t *testing.T) {
	if os.Getenv("KERNEL_TEST_LAMD") == "1" {
		helperLamd(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSpawnedDieWithLamd$", "-test.count=1")
	// The helper is killed, so its own cleanups never run: its temporary
	// files (its universe's) go under this test's directory, which this
	// test removes.
	cmd.Env = append(os.Environ(), "KERNEL_TEST_LAMD=1", "TMPDIR="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	var pids []int
	sc := bufio.NewScanner(out)
	for len(pids) < 2 && sc.Scan() {
		if s, ok := strings.CutPrefix(sc.Text(), "spawned "); ok {
			pid, _ := strconv.Atoi(s)
			pids = append(pids, pid)
		}
	}
	if len(pids) < 2 {
		t.Fatalf("the helper lamd spawned %v", pids)
	}
	for _, pid := range pids {
		defer syscall.Kill(pid, syscall.SIGKILL)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	killed := time.Now()
	for _, pid := range pids {
		for alive(pid) {
			if time.Since(killed) > 2*time.Second {
				t.Fatalf("process %d outlived its lamd by 2 s", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	t.Logf("spawned processes gone %v after their lamd", time.Since(killed).Round(time.Millisecond))
}

// helperLamd is the lamd of TestSpawnedDieWithLamd: it spawns two sleeps,
// one tied to its requester and one not (mpirun -nw), and waits to be
// killed.
func helperLamd(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 1})
	c := u.Client(t, 0)
	for _, flags := range []uint32{0, wire.SpawnNoWait} {
		p, err := c.Spawn(ctx(t), &wire.Spawn{Node: 0, Argv: []string{"sleep", "60"}, Flags: flags})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("spawned %d\n", p.PID)
	}
	time.Sleep(time.Minute)
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}
