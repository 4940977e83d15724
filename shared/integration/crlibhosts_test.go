package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCRLibOtherUniverse: jobs of real ranks restarted on universes of
// another number of hosts (network namespaces): a job of four ranks on one
// host restarted on two, and a job on two hosts restarted on three, with
// another placement — each with the result of a run without checkpoints.
func TestCRLibOtherUniverse(t *testing.T) {
	testUser(t)
	needShm(t)
	buildCRTools(t)
	ctx := testContext(t, 8*time.Minute)
	h := newHosts(t, 3)
	// boot boots a universe of the hosts cpus names (host → cpu count)
	// from the first of them, and returns that host.
	boot := func(name string, cpus map[int]int) int {
		t.Helper()
		var b strings.Builder
		from := -1
		for i := range h.c.Hosts {
			if n, ok := cpus[i]; ok {
				fmt.Fprintf(&b, "%s cpu=%d\n", h.c.Hosts[i].Name, n)
				if from < 0 {
					from = i
				}
			}
		}
		schema := filepath.Join(h.prefix, name)
		if err := os.WriteFile(schema, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if r := h.run(ctx, from, "lamboot", "-prefix", prefix, schema); r.code != 0 {
			t.Fatalf("lamboot %s: %v", name, r)
		}
		return from
	}
	halt := func(from int) {
		t.Helper()
		if r := h.run(ctx, from, "lamhalt"); r.code != 0 {
			t.Errorf("lamhalt: %v", r)
		}
		h.noLamds()
	}
	// checkpointed runs a job on the universe booted from host from,
	// checkpoints it twice, kills it and returns the last set and the
	// result of a run without checkpoints.
	checkpointed := func(from int, op string) (set, want string) {
		t.Helper()
		args := []string{bin("testprog"), "cr", op, "8", "400"}
		r := h.run(ctx, from, "mpirun", append([]string{"-np", "4"}, args...)...)
		if want = resultRE.FindString(r.stdout); r.code != 0 || want == "" {
			t.Fatalf("reference run: %v", r)
		}
		base := t.TempDir()
		gate := filepath.Join(t.TempDir(), "gate")
		cmd := h.c.Command(ctx, from, bin("mpirun"), append([]string{"-ssi", "cr", "self", "-ssi", "cr_base_dir", base, "-np", "4"},
			append(args, gate)...)...)
		cmd.Env = h.env
		j := startCRCmd(t, ctx, cmd, 4)
		for range 2 {
			r := h.run(ctx, from, "crcheckpoint", "-timeout", "30", strconv.Itoa(j.cmd.Process.Pid))
			if r.code != 0 {
				t.Fatalf("crcheckpoint: %v", r)
			}
			set = strings.TrimSpace(r.stdout)
		}
		j.cmd.Process.Signal(syscall.SIGTERM)
		j.wait(t, ctx)
		if err := os.WriteFile(gate, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		return set, want
	}
	restart := func(from int, set, want, what string) {
		t.Helper()
		r := h.run(ctx, from, "crrestart", set)
		if r.code != 0 || resultRE.FindString(r.stdout) != want {
			t.Fatalf("crrestart %s: want %s\n%v", what, want, r)
		}
		if n := strings.Count(r.stdout, " restarted at iteration "); n != 4 {
			t.Errorf("crrestart %s: %d ranks restarted, want 4\n%s", what, n, r.stdout)
		}
	}

	// One host → two.
	from := boot("one", map[int]int{0: 4})
	set, want := checkpointed(from, "sendrecv")
	halt(from)
	from = boot("two", map[int]int{0: 2, 1: 2})
	restart(from, set, want, "1 host → 2")

	// Two hosts → three, the ranks placed otherwise (1, 1, 2).
	set, want = checkpointed(from, "allreduce")
	halt(from)
	from = boot("three", map[int]int{0: 1, 1: 1, 2: 2})
	restart(from, set, want, "2 hosts → 3")
	halt(from)
	noSegments(t)
}

// TestCRLibTwoHostsMatrix is the dissertation's matrix (runCRCase) on a
// job of four ranks over two hosts (network namespaces, two CPUs each:
// -np 4 puts ranks 0 and 1 on the first, 2 and 3 on the second) over
// usysv: shared memory inside each host, tcp between them, both drained
// at each checkpoint. By default two lines of it, a point-to-point call
// (Ssend) and a collective (Allreduce); with LAMGO_TEST_CR_FULL=1 every
// line (TestCRLibMatrix's). Fewer iterations than on one host: an
// iteration between the hosts takes some 20 ms here (the loaded
// 2-processor machine), against about 1 ms inside one.
func TestCRLibTwoHostsMatrix(t *testing.T) {
	testUser(t)
	needShm(t)
	buildCRTools(t)
	full := os.Getenv("LAMGO_TEST_CR_FULL") == "1"
	limit := 3 * time.Minute
	if full {
		limit = 20 * time.Minute
	}
	ctx := testContext(t, limit)
	h := newHosts(t, 2)
	schema := h.schema(map[int]string{0: "cpu=2", 1: "cpu=2"})
	if r := h.run(ctx, 0, "lamboot", "-prefix", prefix, schema); r.code != 0 {
		t.Fatalf("lamboot: %v", r)
	}
	u := hostsFrom{h: h, from: 0}
	if full {
		crMatrix(t, ctx, u, "usysv", 300, 100)
	} else {
		for _, op := range []string{"ssend", "allreduce"} {
			t.Run(op, func(t *testing.T) { runCRCase(t, ctx, u, crCase{rpi: "usysv", op: op, elems: 8, iter: 100}) })
		}
	}
	if r := h.run(ctx, 0, "lamhalt"); r.code != 0 {
		t.Errorf("lamhalt: %v", r)
	}
	h.noLamds()
	noSegments(t)
}
