package launch

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/appschema"
	"github.com/lamgo/lam/shared/kernel/kerneltest"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/nodespec"
)

func where(t *testing.T, spec string) []nodespec.Spec {
	t.Helper()
	s, err := nodespec.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return []nodespec.Spec{s}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// gone waits (bounded) until pid has ended (or is a zombie).
func gone(pid int, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return true
		}
		if i := bytes.LastIndexByte(b, ')'); i > 0 && i+2 < len(b) && b[i+2] == 'Z' {
			return true
		}
	}
	return false
}

// A spawn that fails midway stops the job: the processes already started
// are killed, and the error names the rank that failed and its node.
func TestStartFailsMidway(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 1})
	cl := u.Client(t, 0)
	var out bytes.Buffer
	err := Run(testCtx(t), cl, Options{
		Lines: []appschema.Line{
			{Where: where(t, "n0"), NP: 2, Program: "/bin/sleep", Args: []string{"30"}},
			{Where: where(t, "n0"), Program: "/no/such/program"},
		},
		Verbose: true, Stdout: &out, Stderr: &out,
	})
	var se *StartError
	if !errors.As(err, &se) || se.Rank != 2 || se.Started != 2 || se.Dir != "" {
		t.Fatalf("Run = %v, want a *StartError for rank 2 after 2 started", err)
	}
	if want := "cannot start /no/such/program on n0 (o): No such file or directory (rank 2; the 2 processes already started were stopped)"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	var pids []int
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if pid, err := strconv.Atoi(strings.Fields(line)[0]); err == nil {
			pids = append(pids, pid)
		}
	}
	if len(pids) != 2 {
		t.Fatalf("-v lines %q: want two started processes", out.String())
	}
	for _, pid := range pids {
		if !gone(pid, 10*time.Second) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("process %d still runs after the job failed to start", pid)
		}
	}
}

// A job over the cap is refused before anything starts.
func TestCapacity(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 2, CPUs: []int32{2, 2}})
	u.WaitLinked(t)
	cl := u.Client(t, 0)
	var out bytes.Buffer
	err := Run(testCtx(t), cl, Options{
		Lines:      []appschema.Line{{NP: 5, Program: "/bin/true"}},
		MaxPerNode: 2, Verbose: true, Stdout: &out, Stderr: &out,
	})
	var ce *CapacityError
	if !errors.As(err, &ce) || ce.Node != "n0 (o)" || ce.Want != 3 || ce.PerNode != 2 {
		t.Fatalf("Run = %v, want a *CapacityError for 3 on n0", err)
	}
	if want := "n0 (o) would run 3 processes; its lamd can run at most 2 (launch_max_per_node)"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if out.Len() != 0 {
		t.Errorf("processes started: %q", out.String())
	}
	if err := Run(testCtx(t), cl, Options{Lines: []appschema.Line{{NP: 4, Program: "/bin/true"}}, MaxPerNode: 2, Stdout: &out, Stderr: &out}); err != nil {
		t.Errorf("a job within the cap: %v", err)
	}
	var ue *UsageError
	if err := Run(testCtx(t), cl, Options{Lines: []appschema.Line{{Program: "/bin/true"}}, MaxPerNode: -1}); !errors.As(err, &ue) {
		t.Errorf("a negative cap: %v, want a *UsageError", err)
	}
}

// An MPI job cannot put more ranks on a node than its lamd takes clients
// (each rank is one): mpirun refuses it before starting any. lamexec's
// processes are no clients and are not held to it.
func TestCapacityClients(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 2, CPUs: []int32{2, 2}})
	u.WaitLinked(t)
	cl := u.Client(t, 0)
	var out bytes.Buffer
	err := RunMPI(testCtx(t), cl, Options{
		Lines: []appschema.Line{{NP: 5, Program: "/bin/true"}}, Stdout: &out, Stderr: &out,
	}, MPIOptions{MaxClients: 2})
	var ce *CapacityError
	if !errors.As(err, &ce) || ce.Want != 3 || ce.PerNode != 2 || !ce.Clients {
		t.Fatalf("RunMPI = %v, want a *CapacityError for 3 on n0 from the client cap", err)
	}
	if want := "n0 (o) would run 3 processes; its lamd can run at most 2 (its limit of 2 clients, boot_base_max_clients); spread the job over more nodes, or boot the universe with a larger boot_base_max_clients"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if out.Len() != 0 {
		t.Errorf("processes started: %q", out.String())
	}
	if err := Run(testCtx(t), cl, Options{Lines: []appschema.Line{{NP: 5, Program: "/bin/true"}}, Stdout: &out, Stderr: &out}); err != nil {
		t.Errorf("lamexec's 5 processes: %v", err)
	}
}

// The derived cap follows the lamd's limits, read from /proc or, failing
// that, from this process's own.
func TestPerNodeLimit(t *testing.T) {
	self, fallback := PerNodeLimit(os.Getpid()), PerNodeLimit(-1)
	if self != fallback {
		t.Errorf("from /proc: %+v; from getrlimit: %+v", self, fallback)
	}
	if self.PerNode < 1 || self.PerNode > lamdThreads || self.Why == "" {
		t.Errorf("PerNodeLimit = %+v", self)
	}
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err == nil && r.Cur < 1<<20 {
		if n := int(r.Cur-filesReserved) / filesPerProc; self.PerNode > n {
			t.Errorf("PerNodeLimit = %+v with %d open files: want at most %d", self, r.Cur, n)
		}
	}
}

// A missing working directory is named: checked here before anything
// starts on this node, by the lamd on another.
func TestWorkDirMissing(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 2})
	u.WaitLinked(t)
	cl := u.Client(t, 0)
	dir := filepath.Join(t.TempDir(), "missing")
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	for _, tc := range []struct {
		node, wd string
		errno    syscall.Errno
		want     string
	}{
		{"n0", dir, syscall.ENOENT, "cannot start /bin/true on n0 (o): working directory " + dir + ": no such file or directory"},
		{"n0", file, syscall.ENOTDIR, "cannot start /bin/true on n0 (o): working directory " + file + ": not a directory"},
		{"n1", dir, 0, "cannot start /bin/true on n1: working directory " + dir + ": no such file or directory"},
	} {
		err := Run(testCtx(t), cl, Options{Lines: []appschema.Line{{Where: where(t, tc.node), Program: "/bin/true", Wd: tc.wd}}})
		var se *StartError
		if !errors.As(err, &se) || se.Dir != tc.wd || err.Error() != tc.want {
			t.Errorf("-wd %s on %s: %v, want %q", tc.wd, tc.node, err, tc.want)
			continue
		}
		var errno syscall.Errno
		if tc.errno != 0 && (!errors.As(err, &errno) || errno != tc.errno) {
			t.Errorf("-wd %s: errno %v, want %v", tc.wd, errno, tc.errno)
		}
	}
	if err := Run(testCtx(t), cl, Options{Lines: []appschema.Line{{Where: where(t, "n1"), Program: "/bin/true"}}, Wd: filepath.Dir(dir)}); err != nil {
		t.Errorf("-wd of a directory that exists: %v", err)
	}
}

// Processes lost with a lamd are named by rank and node.
func TestLostNamesRanks(t *testing.T) {
	procs := []*Proc{{Rank: 0, Node: 0}, {Rank: 1, Node: 1}, {Rank: 2, Node: 0}, {Rank: 3, Node: 1}, {Rank: 4, Node: 1}, {Rank: 5, Node: 1}, {Rank: 6, Node: 2}}
	dead := errors.New("n1: node is dead")
	for _, tc := range []struct {
		pr   *Proc
		err  error
		want string
	}{
		{procs[1], dead, "ranks 1, 3-5 (n1): n1: node is dead"},
		{procs[6], dead, "rank 6 (n2): n1: node is dead"},
		{procs[0], lamclient.ErrClosed, "ranks 0, 2 (n0), ranks 1, 3-5 (n1), rank 6 (n2): connection to the lamd closed"},
	} {
		err := lost(procs, tc.pr, tc.err)
		if err.Error() != tc.want || !errors.Is(err, tc.err) {
			t.Errorf("lost(rank %d, %v) = %q, want %q", tc.pr.Rank, tc.err, err, tc.want)
		}
	}
	for in, want := range map[string]string{"3": "rank 3", "0 1": "ranks 0, 1", "0 1 2 3 5 7 8": "ranks 0-3, 5, 7, 8"} {
		var ranks []int
		for _, f := range strings.Fields(in) {
			n, _ := strconv.Atoi(f)
			ranks = append(ranks, n)
		}
		if got := rankList(ranks); got != want {
			t.Errorf("rankList(%v) = %q, want %q", ranks, got, want)
		}
	}
}
