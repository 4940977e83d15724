package integration

import (
	"bufio"
	"context"
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
)

// The collectives through the real binaries: every collective and every
// op against serial computations (testprog coll), mismatched arguments
// (collerr), and the bits of float reductions compared between runs and
// between node layouts (collsum).

// layoutArgs turns a layout (the node of each rank) into mpirun's node
// list: one process per listed node, in rank order.
func layoutArgs(layout []int) []string {
	var out []string
	for _, n := range layout {
		out = append(out, fmt.Sprintf("n%d", n))
	}
	return out
}

var collsumRE = regexp.MustCompile(`^collsum [0-9a-f]{16}\n$`)

func TestCollLocal(t *testing.T) {
	needPgrep(t)
	ctx, l := bootLocal(t, 4*time.Minute)
	// More ranks than cores; the linear and the binomial algorithms; the
	// check off; over tcp and usysv.
	// shmem serves every communicator of two or more processes on one
	// node; with it excluded (-ssi coll lam_basic,smp) lam_basic does, and
	// in a job that asked for a cr module.
	for _, tt := range []struct {
		args   []string
		module string
	}{
		{[]string{"-np", "1"}, "lam_basic"},
		{[]string{"-np", "4"}, "shmem"},
		// Blocks of 24000 bytes: direct rounds (coll_base_shmem_direct_size)
		// on two processes, not more than the processors.
		{[]string{"-np", "2"}, "shmem"},
		{[]string{"-np", "5"}, "shmem"},
		{[]string{"-np", "8"}, "shmem"},
		{[]string{"-ssi", "coll_base_crossover", "1", "-ssi", "rpi", "tcp", "-np", "3"}, "shmem"},
		{[]string{"-ssi", "coll_base_check", "0", "-np", "4"}, "shmem"},
		{[]string{"-ssi", "coll_base_shmem_message_pool_size", "4096", "-ssi", "coll_base_shmem_num_segments", "2", "-np", "3"}, "shmem"},
		{[]string{"-ssi", "coll", "lam_basic,smp", "-np", "4"}, "lam_basic"},
		{[]string{"-ssi", "coll", "lam_basic,smp", "-ssi", "coll_base_check", "0", "-np", "5"}, "lam_basic"},
		// A job that asked for checkpoints does without shmem (its
		// collectives would go on while the links are quiesced).
		{[]string{"-ssi", "cr", "self", "-ssi", "rpi", "crtcp", "-np", "4"}, "lam_basic"},
	} {
		r := l.run(ctx, "mpirun", append(tt.args, bin("testprog"), "coll")...)
		if r.code != 0 || r.stdout != "coll ok "+tt.module+"\n" {
			t.Errorf("coll %v: %v, want module %s", tt.args, r, tt.module)
		}
	}
	// -ssi coll smp on one node: smp cannot serve, lam_basic does.
	if r := l.run(ctx, "mpirun", "-ssi", "coll", "smp", "-np", "2", bin("testprog"), "coll"); r.code != 0 || r.stdout != "coll ok lam_basic\n" {
		t.Errorf("coll smp on one node: %v", r)
	}
	if r := l.run(ctx, "mpirun", "-ssi", "coll", "nosuch", "-np", "2", bin("testprog"), "coll"); r.code == 0 || !strings.Contains(r.stderr, "nosuch") {
		t.Errorf("an unknown coll module: %v", r)
	}
	// Every process gets every error at coll_base_check=2; at 1 (the
	// default) a small Bcast's root returns at once (TestCollSent).
	for _, np := range []string{"2", "5"} {
		if r := l.run(ctx, "mpirun", "-ssi", "coll_base_check", "2", "-np", np, bin("testprog"), "collerr"); r.code != 0 || r.stdout != "collerr ok\n" {
			t.Errorf("collerr with %s ranks: %v", np, r)
		}
	}
	// Bit-identical float reductions run after run.
	var first string
	for i := 0; i < 3; i++ {
		r := l.run(ctx, "mpirun", "-np", "5", bin("testprog"), "collsum")
		if r.code != 0 || !collsumRE.MatchString(r.stdout) {
			t.Fatalf("collsum: %v", r)
		}
		if first == "" {
			first = r.stdout
		} else if r.stdout != first {
			t.Errorf("collsum differs between runs: %q and %q", first, r.stdout)
		}
	}
	// And the same bits from shmem as from lam_basic.
	if r := l.run(ctx, "mpirun", "-ssi", "coll", "lam_basic", "-np", "5", bin("testprog"), "collsum"); r.code != 0 || r.stdout != first {
		t.Errorf("collsum with lam_basic: %v, shmem gave %q", r, first)
	}
	// laminfo lists the modules and the parameters.
	r := l.run(ctx, "laminfo", "-parsable", "-param", "coll", "all")
	for _, s := range []string{"coll_base_crossover:4", "coll_base_reduce_crossover:512", "coll_base_associative:0", "coll_base_check:1",
		"coll_lam_basic_priority:0", "coll_smp_priority:50", "coll_shmem_priority:50",
		"coll_base_shmem_message_pool_size:1048576", "coll_base_shmem_num_segments:16", "coll_base_shmem_large_size:65536", "coll_base_shmem_copy_size:1048576", "coll_base_shmem_reduce_size:65536",
		"coll_base_shmem_direct_size:16384", "coll_base_sent_sync:64"} {
		if r.code != 0 || !strings.Contains(r.stdout, s) {
			t.Errorf("laminfo -param coll all lacks %s: %v", s, r)
		}
	}
	if r := l.run(ctx, "laminfo"); r.code != 0 || !strings.Contains(r.stdout, "SSI coll: lam_basic") || !strings.Contains(r.stdout, "SSI coll: smp") ||
		!strings.Contains(r.stdout, "SSI coll: shmem") {
		t.Errorf("laminfo: %v", r)
	}
	noneLeft(t, "testprog")
	noSegments(t)
}

// collCell is one cell of the layout matrix.
type collCell struct {
	name   string
	layout []int // node of each rank
}

// module is the coll module World gets on a layout.
func (c collCell) module() string {
	nodes := map[int]int{}
	for _, n := range c.layout {
		nodes[n]++
	}
	for _, k := range nodes {
		switch {
		case k > 1 && len(nodes) > 1:
			return "smp"
		case k > 1:
			return "shmem"
		}
	}
	return "lam_basic"
}

// runCells runs the coll suite on each cell of a universe of hosts, and
// checks that collsum's bits with coll_base_associative=0 are those of
// the same number of processes on one node.
func runCells(t *testing.T, ctx context.Context, h *hosts, cells []collCell) {
	t.Helper()
	sums := map[int]string{}
	sum := func(layout []int, extra ...string) string {
		args := append(append(append([]string{}, extra...), layoutArgs(layout)...), bin("testprog"), "collsum")
		r := h.run(ctx, 0, "mpirun", args...)
		if r.code != 0 || !collsumRE.MatchString(r.stdout) {
			t.Errorf("collsum on %v: %v", layout, r)
		}
		return r.stdout
	}
	for _, c := range cells {
		args := append(layoutArgs(c.layout), bin("testprog"), "coll")
		r := h.run(ctx, 0, "mpirun", args...)
		if want := "coll ok " + c.module() + "\n"; r.code != 0 || r.stdout != want {
			t.Errorf("%s %v: %v\nwant %q", c.name, c.layout, r, want)
			continue
		}
		p := len(c.layout)
		if _, ok := sums[p]; !ok {
			sums[p] = sum(make([]int, p))
		}
		if got := sum(c.layout); got != sums[p] {
			t.Errorf("%s %v: float reductions differ from one node's (%q, %q) with coll_base_associative=0", c.name, c.layout, got, sums[p])
		}
	}
}

// The dissertation's 3×3×3 matrix (§6.3.1) with N=2, X=1, M=1: process
// counts 1, 4, 5 × one process per node, P per node (by block) and P_i per
// node (interleaved and uneven) × 1, 2 and 3 nodes. A cell that cannot
// exist (one process per node with 4 processes on 2 nodes; one process on
// several nodes) is left out. Then mismatched arguments across hosts, and
// smp reordering reductions (coll_base_associative=1) over tcp.
func TestCollMatrix(t *testing.T) {
	testUser(t)
	ctx := testContext(t, 20*time.Minute)
	h := newHosts(t, 3)
	schema := h.schema(map[int]string{0: "cpu=5", 1: "cpu=5", 2: "cpu=5"})
	if r := h.run(ctx, 0, "lamboot", "-prefix", prefix, schema); r.code != 0 {
		t.Fatalf("lamboot: %v", r)
	}
	runCells(t, ctx, h, matrixCells())
	// Every process gets every error at coll_base_check=2; at 1 (the
	// default) a small Gather's senders under smp return at once.
	if r := h.run(ctx, 0, "mpirun", append(append([]string{"-ssi", "coll_base_check", "2"}, layoutArgs([]int{0, 0, 1, 1, 2})...), bin("testprog"), "collerr")...); r.code != 0 || r.stdout != "collerr ok\n" {
		t.Errorf("collerr across hosts: %v", r)
	}
	if r := h.run(ctx, 0, "mpirun", append(append([]string{"-ssi", "coll_base_associative", "1", "-ssi", "rpi", "tcp"}, layoutArgs([]int{0, 1, 1, 0})...), bin("testprog"), "coll")...); r.code != 0 || r.stdout != "coll ok smp\n" {
		t.Errorf("smp with coll_base_associative=1 over tcp: %v", r)
	}
	if r := h.run(ctx, 0, "lamhalt"); r.code != 0 {
		t.Errorf("lamhalt: %v", r)
	}
	h.noLamds()
	noSegments(t)
}

func matrixCells() []collCell {
	var cells []collCell
	for _, nodes := range []int{1, 2, 3} {
		// One process per node: the process count is the node count.
		one := make([]int, nodes)
		for i := range one {
			one[i] = i
		}
		cells = append(cells, collCell{fmt.Sprintf("%d nodes, one per node", nodes), one})
		for _, p := range []int{4, 5} {
			// P per node: consecutive ranks on a node.
			block := make([]int, p)
			for i := range block {
				block[i] = i * nodes / p
			}
			cells = append(cells, collCell{fmt.Sprintf("%d nodes, %d processes, P per node", nodes, p), block})
			if nodes == 1 {
				continue
			}
			// P_i per node: ranks dealt round the nodes, then a heavier
			// first node.
			rr := make([]int, p)
			for i := range rr {
				rr[i] = i % nodes
			}
			cells = append(cells, collCell{fmt.Sprintf("%d nodes, %d processes, P_i interleaved", nodes, p), rr})
			uneven := make([]int, p)
			for i := range uneven {
				uneven[i] = max(0, i-(p-nodes))
			}
			cells = append(cells, collCell{fmt.Sprintf("%d nodes, %d processes, P_i uneven", nodes, p), uneven})
		}
	}
	return cells
}

// A rank killed in the middle of shmem collectives: mpirun reports it,
// the others do not hang, and nothing is left in shared memory (the
// area's name went as soon as every process had mapped it).
func TestCollShmemKilled(t *testing.T) {
	needPgrep(t)
	ctx, l := bootLocal(t, 3*time.Minute)
	for _, np := range []string{"3", "8"} {
		cmd := exec.CommandContext(ctx, bin("mpirun"), "-np", np, bin("testprog"), "collloop")
		cmd.Env = l.env
		out, _ := cmd.StdoutPipe()
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		if line != "looping shmem\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("collloop with %s ranks did not start: %q %s", np, line, stderr.String())
		}
		if m, _ := filepath.Glob(filepath.Join(jobwire.ShmDir, "lam-"+strconv.Itoa(os.Getuid())+"-*coll*")); len(m) > 0 {
			t.Errorf("a running job's area still has a name: %v", m)
		}
		pids, _ := exec.Command("pgrep", "-f", "^"+bin("testprog")+" collloop").Output()
		f := strings.Fields(string(pids))
		if len(f) < 2 {
			t.Fatalf("ranks: %q", pids)
		}
		time.Sleep(20 * time.Millisecond)
		syscall.Kill(atoiOr0(f[1]), syscall.SIGKILL)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
			// mpirun reports the killed rank, or, when a survivor that
			// noticed the death ended first, that survivor's error naming
			// it.
			killed := regexp.MustCompile(`PID \d+ failed on node n0( \([^)]*\))? due to signal 9\.`).MatchString(stderr.String())
			noticed := regexp.MustCompile(`MPI_ERR_PROC_FAILED: MPI_COMM_WORLD: rank \d+ died during a collective`).MatchString(stderr.String())
			if cmd.ProcessState.ExitCode() == 0 || !killed && !noticed {
				t.Errorf("killed rank of %s: exit %d, %s", np, cmd.ProcessState.ExitCode(), stderr.String())
			}
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("mpirun with %s ranks did not notice a killed rank", np)
		}
		noneLeft(t, "testprog")
		noSegments(t)
	}
}
