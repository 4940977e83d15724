package integration

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/testenv"
)

// needShm skips (or, under LAM_TEST_STRICT=1, fails) where there is no
// shared-memory file system for the usysv and sysv modules.
func needShm(t *testing.T) {
	t.Helper()
	if fi, err := os.Stat(jobwire.ShmDir); err != nil || !fi.IsDir() {
		testenv.Skip(t, jobwire.ShmDir+" is missing")
	}
}

// noSegments fails if a shared-memory segment of this user survives.
func noSegments(t testing.TB) {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(jobwire.ShmDir, "lam-"+strconv.Itoa(os.Getuid())+"-*"))
	if len(m) > 0 {
		t.Errorf("shared-memory segments left behind: %v", m)
	}
}

// The point-to-point and communicator suites over usysv and sysv, with
// more ranks than cores.
func TestSharedMemory(t *testing.T) {
	needShm(t)
	ctx, l := bootLocal(t, 5*time.Minute)
	for _, module := range []string{"usysv", "sysv"} {
		for _, np := range []string{"2", "5", "8"} {
			if r := l.run(ctx, "mpirun", "-ssi", "rpi", module, "-np", np, bin("testprog"), "p2p"); r.code != 0 || r.stdout != "p2p ok\n" {
				t.Errorf("p2p over %s with %s ranks: %v", module, np, r)
			}
		}
		if r := l.run(ctx, "mpirun", "-ssi", "rpi", module, "-np", "5", bin("testprog"), "edges"); r.code != 0 || r.stdout != "edges ok\n" {
			t.Errorf("edges over %s: %v", module, r)
		}
		if r := l.run(ctx, "mpirun", "-ssi", "rpi", module, "-np", "4", bin("testprog"), "comm"); r.code != 0 || r.stdout != "comm ok\n" {
			t.Errorf("comm over %s: %v", module, r)
		}
		if r := l.run(ctx, "mpirun", "-ssi", "rpi", module, "-np", "2", bin("testprog"), "big", "80"); r.code != 0 || r.stdout != "received 80 MiB\n" {
			t.Errorf("80 MiB over %s: %v", module, r)
		}
		// Long messages through the ring up to its size (1 MiB), as
		// before rpi_*_single_copy: the rendezvous streams with both
		// processes copying.
		if r := l.run(ctx, "mpirun", "-ssi", "rpi", module, "-ssi", "rpi_"+module+"_single_copy", "1073741824",
			"-np", "3", bin("testprog"), "p2p"); r.code != 0 || r.stdout != "p2p ok\n" {
			t.Errorf("p2p over %s through the rings up to their size: %v", module, r)
		}
		// Messages longer than a ring, without single copy: small rings.
		if r := l.run(ctx, "mpirun", "-ssi", "rpi", module, "-ssi", "rpi_"+module+"_maxalloc", "65536", "-ssi", "rpi_"+module+"_short", "100000",
			"-np", "3", bin("testprog"), "p2p"); r.code != 0 || r.stdout != "p2p ok\n" {
			t.Errorf("p2p over %s with eager messages longer than the rings: %v", module, r)
		}
	}
	// A process waiting a second for a message sleeps: sysv after a few
	// microseconds, usysv after spinning and yielding for 100 ms (a
	// spinning waiter would use the whole second).
	for module, most := range map[string]int{"sysv": 300, "usysv": 600} {
		r := l.run(ctx, "mpirun", "-ssi", "rpi", module, "-np", "2", bin("testprog"), "idle")
		var ms int
		if _, err := fmt.Sscanf(r.stdout, "idle cpu %d ms\n", &ms); r.code != 0 || err != nil || ms > most {
			t.Errorf("a waiting process over %s used more than %d ms of processor time in a second: %v", module, most, r)
		}
	}
	// The default universe picks usysv, as LAM did.
	if r := l.run(ctx, "mpirun", "-v", "-np", "2", bin("hello")); r.code != 0 {
		t.Errorf("hello: %v", r)
	}
	if r := l.run(ctx, "laminfo", "-parsable", "-param", "rpi", "usysv"); r.code != 0 || !strings.Contains(r.stdout, "rpi_usysv_readlockpoll") || !strings.Contains(r.stdout, "rpi_usysv_priority:40") {
		t.Errorf("laminfo -param rpi usysv: %v", r)
	}
	noSegments(t)

	// A rank killed in the middle of a long transfer: no hang, a report,
	// nothing left.
	for _, module := range []string{"usysv", "sysv"} {
		cmd := exec.CommandContext(ctx, bin("mpirun"), "-ssi", "rpi", module, "-np", "2", bin("testprog"), "stream")
		cmd.Env = l.env
		out, _ := cmd.StdoutPipe()
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		if line != "streaming\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("stream over %s did not start: %q %s", module, line, stderr.String())
		}
		pids, _ := exec.Command("pgrep", "-f", "^"+bin("testprog")+" stream").Output()
		f := strings.Fields(string(pids))
		if len(f) != 2 {
			t.Fatalf("ranks: %q", pids)
		}
		time.Sleep(30 * time.Millisecond)
		syscall.Kill(atoiOr0(f[0]), syscall.SIGKILL)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
			if cmd.ProcessState.ExitCode() == 0 || !regexp.MustCompile(`PID \d+ failed on node n0( \([^)]*\))? due to signal 9\.`).MatchString(stderr.String()) {
				t.Errorf("killed rank over %s: exit %d, %s", module, cmd.ProcessState.ExitCode(), stderr.String())
			}
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("mpirun over %s did not notice a killed rank", module)
		}
		noneLeft(t, "testprog")
		noSegments(t)
	}

	// What a job left in shared memory goes when the job is stopped:
	// lamclean, and the lamd once the job's last process on the node ended.
	for _, stop := range []string{"lamclean", "kill"} {
		cmd := exec.CommandContext(ctx, bin("mpirun"), "-np", "2", bin("testprog"), "hang")
		cmd.Env = l.env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// A leftover as a job's process could leave it, if it died before
		// every process of the node attached.
		left := filepath.Join(jobwire.ShmDir, jobwire.SegmentPrefix(os.Getuid(), jobwire.JobID{Node: 0, PID: int32(cmd.Process.Pid)})+"n0-test")
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			if out, _ := exec.Command("pgrep", "-f", "^"+bin("testprog")+" hang").Output(); len(strings.Fields(string(out))) == 2 {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err := os.WriteFile(left, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if stop == "lamclean" {
			if r := l.run(ctx, "lamclean"); r.code != 0 {
				t.Errorf("lamclean: %v", r)
			}
		} else {
			cmd.Process.Signal(syscall.SIGTERM)
		}
		cmd.Wait()
		deadline = time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if _, err := os.Stat(left); os.IsNotExist(err) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if _, err := os.Stat(left); !os.IsNotExist(err) {
			os.Remove(left)
			t.Errorf("after %s, the job's segment remains", stop)
		}
		noneLeft(t, "testprog")
	}
	noSegments(t)
}
