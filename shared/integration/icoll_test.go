package integration

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Nonblocking collectives across real processes (testprog icoll): each
// against its blocking twin on a duplicate, all outstanding at once, two
// Iallreduces waited for in the opposite order beside a blocking one;
// over usysv and tcp, 1 to 5 processes.
func TestIcollLocal(t *testing.T) {
	runSuite(t, "icoll", [][]string{
		{"-np", "1"},
		{"-np", "2"},
		{"-np", "3"},
		{"-np", "5"},
		{"-ssi", "rpi", "tcp", "-np", "4"},
		{"-ssi", "coll_base_crossover", "1", "-np", "5"},
	})
}

// Many nonblocking collectives outstanding at once on three
// communicators, started in rank-dependent orders across them, mixed
// with blocking ones, small and rendezvous-sized (testprog icollmany):
// more ranks than the machine's cores, over usysv and tcp.
func TestIcollMany(t *testing.T) {
	runSuite(t, "icollmany", [][]string{
		{"-np", "2"},
		{"-np", "5"},
		{"-ssi", "rpi", "tcp", "-np", "4"},
		{"-ssi", "coll_base_crossover", "1", "-ssi", "coll_base_check", "0", "-np", "6"},
	})
}

// First collectives that are nonblocking, on fresh communicators (two
// duplicates, the halves, a Create, an intercommunicator), started in
// rank-dependent orders (testprog icollfirst): the communicators' coll
// modules were set up when they were made (shmem's setup communicates),
// so nobody waits in a setup the others have not reached. Over usysv
// (shmem), tcp and with lam_basic.
func TestIcollFirst(t *testing.T) {
	runSuite(t, "icollfirst", [][]string{
		{"-np", "2"},
		{"-np", "5"},
		{"-ssi", "rpi", "tcp", "-np", "4"},
		{"-ssi", "coll", "lam_basic", "-np", "3"},
	})
}

// Point-to-point requests and nonblocking collectives (neighbour ones
// too) in one list, completed by each of Waitany, Waitsome, Testany,
// Testsome, Testall and Waitall (testprog icollmix), which advance the
// collectives' schedules on the caller's goroutine.
func TestIcollMix(t *testing.T) {
	runSuite(t, "icollmix", [][]string{
		{"-np", "2"},
		{"-np", "5"},
		{"-ssi", "rpi", "tcp", "-np", "4"},
		{"-ssi", "rpi", "sysv", "-np", "3"},
	})
}

// Nonblocking collectives started and waited for one after another,
// with the first request of each kind kept (testprog icollreuse): a
// reported request's pooled parts serve the later collectives, which
// complete with their own results, while the kept requests stay
// inactive; on shmem's board a start and its Wait allocate at most 256
// bytes, and a ring exchange by Irecv, Isend and Waitall reuses its core
// requests too. Over usysv (shmem, more ranks than cores), tcp and
// lam_basic.
func TestIcollReuse(t *testing.T) {
	runSuite(t, "icollreuse", [][]string{
		{"-np", "2"},
		{"-np", "4"},
		{"-ssi", "rpi", "tcp", "-np", "3"},
		{"-ssi", "coll", "lam_basic", "-np", "3"},
	})
}

// runSuite runs testprog's suite under mpirun with each of cases' mpirun
// options in a universe on this host.
func runSuite(t *testing.T, suite string, cases [][]string) {
	t.Helper()
	needPgrep(t)
	ctx, l := bootLocal(t, 3*time.Minute)
	for _, args := range cases {
		r := l.run(ctx, "mpirun", append(args, bin("testprog"), suite)...)
		if r.code != 0 || r.stdout != suite+" ok\n" {
			t.Errorf("%s %v: %v", suite, args, r)
		}
	}
}

// The icoll, icollmany, icollfirst and icollmix suites on two hosts with two processes each,
// where World gets smp: its hierarchical Ibarrier, Ibcast, Ireduce and
// Iallreduce schedules run across real processes and nodes (the halves
// and duplicates get lam_basic's); icollfirst starts the first
// collectives of fresh communicators in rank-dependent orders.
func TestIcollSMP(t *testing.T) {
	testUser(t)
	ctx := testContext(t, 10*time.Minute)
	h := newHosts(t, 2)
	schema := h.schema(map[int]string{0: "cpu=2", 1: "cpu=2"})
	if r := h.run(ctx, 0, "lamboot", "-prefix", prefix, schema); r.code != 0 {
		t.Fatalf("lamboot: %v", r)
	}
	for _, suite := range []string{"icoll", "icollmany", "icollfirst", "icollmix"} {
		args := []string{"-ssi", "coll_base_associative", "1", "n0", "n0", "n1", "n1", bin("testprog"), suite}
		if r := h.run(ctx, 0, "mpirun", args...); r.code != 0 || r.stdout != suite+" ok\n" {
			t.Errorf("%s on 2 nodes × 2: %v", suite, r)
		}
	}
	if r := h.run(ctx, 0, "lamhalt"); r.code != 0 {
		t.Errorf("lamhalt: %v", r)
	}
}

// BenchmarkIcoll is issue 15's proof of overlap (testprog icollbench):
// an Allreduce of 4 MiB of float64 between two processes then a busy loop
// as long as one Allreduce, against an Iallreduce, the loop, then Wait.
// Medians over the rounds, in µs:
//
//	go test ./shared/integration -run '^$' -bench 'Icoll$' -benchtime 1x
//
// LAM_BENCH_RPI names the rpi (usysv by default; sysv and tcp wait in
// the kernel instead of polling, which leaves the processor to the loop),
// LAM_BENCH_NP the number of processes (2 by default). hidden-us is the
// compute time hidden, the median over the rounds of blocking minus
// nonblocking (at best the loop's length, allreduce-us).
func BenchmarkIcoll(b *testing.B) {
	needPgrep(b)
	ctx, l := bootLocal(b, 10*time.Minute)
	np := os.Getenv("LAM_BENCH_NP")
	if np == "" {
		np = "2"
	}
	args := []string{"-np", np}
	if rpi := os.Getenv("LAM_BENCH_RPI"); rpi != "" {
		args = append(args, "-ssi", "rpi", rpi)
	}
	icollBenchRounds(b, func() result {
		return l.run(ctx, "mpirun", append(args, bin("testprog"), "icollbench", "15")...)
	})
}

// BenchmarkIcollWire is the same measurement between two simulated hosts
// whose links carry LAM_BENCH_RATE (default 1gbit, tc's notation) each
// way, as a cluster's Ethernet does: each host's eth0 sends through a
// token-bucket filter (tc tbf), so a message spends time on the wire that
// is not processor time, which is what a nonblocking collective can hide.
// One process per host, tcp between them.
//
//	go test ./shared/integration -run '^$' -bench IcollWire -benchtime 1x
func BenchmarkIcollWire(b *testing.B) {
	if _, err := exec.LookPath("tc"); err != nil {
		b.Skip("tc (iproute2) is not installed")
	}
	rate := os.Getenv("LAM_BENCH_RATE")
	if rate == "" {
		rate = "1gbit"
	}
	ctx := testContext(b, 10*time.Minute)
	h := newHosts(b, 2)
	for i := range h.c.Hosts {
		tc := h.c.Command(ctx, i, "tc", "qdisc", "add", "dev", "eth0", "root", "tbf",
			"rate", rate, "burst", "128kb", "latency", "100ms")
		if out, err := tc.CombinedOutput(); err != nil {
			b.Skipf("tc tbf on host %d (the kernel needs sch_tbf): %v: %s", i, err, out)
		}
	}
	if r := h.run(ctx, 0, "lamboot", "-prefix", prefix, h.schema(nil)); r.code != 0 {
		b.Fatalf("lamboot: %v", r)
	}
	icollBenchRounds(b, func() result {
		return h.run(ctx, 0, "mpirun", "n0", "n1", bin("testprog"), "icollbench", "9")
	})
	if r := h.run(ctx, 0, "lamhalt"); r.code != 0 {
		b.Errorf("lamhalt: %v", r)
	}
}

// icollBenchRounds runs testprog icollbench once per benchmark iteration
// and reports the medians of what it printed.
func icollBenchRounds(b *testing.B, run func() result) {
	times := map[string][]float64{}
	for b.Loop() {
		r := run()
		if r.code != 0 {
			b.Fatalf("icollbench: %v", r)
		}
		for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			f := strings.Fields(line)
			if len(f) != 3 || f[0] != "icollbench" {
				b.Fatalf("icollbench printed %q", r.stdout)
			}
			us, err := strconv.ParseFloat(f[2], 64)
			if err != nil {
				b.Fatalf("icollbench printed %q", r.stdout)
			}
			times[f[1]] = append(times[f[1]], us)
		}
	}
	for _, form := range []string{"allreduce", "iallreduce", "busy", "blocking", "nonblocking", "hidden"} {
		b.ReportMetric(median(times[form]), form+"-us")
	}
}
