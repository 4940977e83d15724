package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/nettest"
)

// BenchmarkCollSMP sets lam_basic against smp on two simulated hosts with
// 2, 3 and 4 ranks each (bench/coll: Allreduce of 4 MiB of float32, Bcast
// of 4 MiB, Barrier), the two modules taking turns in every round. Each
// module's median over the rounds is reported in µs per operation, with
// their ratio:
//
//	go test ./shared/integration -run '^$' -bench CollSMP -benchtime 3x
//
// -benchtime Nx is the number of rounds. Each host gets processors of its
// own, as BenchmarkCollHosts's do (LAM_BENCH_SHARED_CPUS=1: all of the
// machine's), and its schema line says how many; with more ranks than
// processors the numbers say as much about scheduling as about the
// algorithms. That is why the processes use the sysv rpi by default
// (waiters sleep after a few tens of microseconds instead of taking the
// processor from the process they wait for); LAM_BENCH_RPI names
// another (usysv, tcp).
func BenchmarkCollSMP(b *testing.B) {
	coll := buildBench(b, "coll")
	split := os.Getenv("LAM_BENCH_SHARED_CPUS") != "1"
	h := newHostsWith(b, nettest.Options{Hosts: 2, SplitCPUs: split})
	ctx := testContext(b, 30*time.Minute)
	cpus := map[int]string{0: "cpu=4", 1: "cpu=4"}
	if split {
		for i, host := range h.c.Hosts {
			cpus[i] = fmt.Sprintf("cpu=%d", len(host.CPUs))
		}
	}
	schema := h.schema(cpus)
	if r := h.run(ctx, 0, "lamboot", "-prefix", prefix, schema); r.code != 0 {
		b.Fatalf("lamboot: %v", r)
	}
	defer h.run(ctx, 0, "lamhalt")
	rpiName := os.Getenv("LAM_BENCH_RPI")
	if rpiName == "" {
		rpiName = "sysv"
	}
	for _, per := range []int{2, 3, 4} {
		var layout []int
		for n := 0; n < 2; n++ {
			for i := 0; i < per; i++ {
				layout = append(layout, n)
			}
		}
		for _, op := range []struct{ name, iters string }{{"allreduce", "20"}, {"bcast", "20"}, {"barrier", "2000"}} {
			b.Run(fmt.Sprintf("2x%d/%s", per, op.name), func(b *testing.B) {
				times := map[string][]float64{}
				for b.Loop() {
					for _, m := range []string{"lam_basic", "smp"} {
						args := append([]string{"-ssi", "coll", m, "-ssi", "rpi", rpiName}, layoutArgs(layout)...)
						args = append(args, coll, "-iters", op.iters, op.name)
						r := h.run(ctx, 0, "mpirun", args...)
						us, err := lastLatency(r.stdout)
						if r.code != 0 || err != nil || !strings.Contains(r.stdout, "coll module "+m) {
							b.Fatalf("%s with %s: %v (%v)", op.name, m, r, err)
						}
						times[m] = append(times[m], us)
					}
				}
				basic, smp := median(times["lam_basic"]), median(times["smp"])
				b.ReportMetric(basic, "lam_basic-us/op")
				b.ReportMetric(smp, "smp-us/op")
				b.ReportMetric(smp/basic, "smp/lam_basic")
			})
		}
	}
}

// buildBench builds a program of bench/ into the test installation.
func buildBench(b *testing.B, name string) string {
	b.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	out := bin(name)
	cmd := exec.Command("go", "build", "-o", out, "./bench/"+name)
	cmd.Dir = root
	if o, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build bench/%s: %v\n%s", name, err, o)
	}
	return out
}

// lastLatency is the value of the last "size value" line of an OSU-style
// report.
func lastLatency(out string) (float64, error) {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		f := strings.Fields(lines[i])
		if len(f) == 2 && !strings.HasPrefix(f[0], "#") {
			return strconv.ParseFloat(f[1], 64)
		}
	}
	return 0, fmt.Errorf("no measurement in %q", out)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// BenchmarkCollHosts is issue 19's 2×2 table: bench/coll on two simulated
// hosts with two processes each (LAM/Go's default modules: smp between
// the hosts, shmem inside each; its default rpis: usysv inside, tcp
// between), side by side with bench/c/coll.c built with Open MPI's mpicc
// and run by Open MPI's mpirun over the same hosts (tcp between them,
// vader inside), the two taking turns in every round. Per operation and
// size it reports both medians in µs per operation and the median of the
// per-round ratios LAM/Go / Open MPI, and the median of the ratios of the
// slowest ranks' times (SIZE-slowest-ratio; bench/c/coll.c says why they
// differ):
//
//	go test ./shared/integration -run '^$' -bench CollHosts -benchtime 3x
//
// LAM_BENCH_OPS and LAM_BENCH_SIZES (comma-separated) narrow the table;
// LAM_BENCH_ITERS sets the programs' -iters (1000; 200 before session
// 20, when the 8-byte rooted calls took 1.3–2.5 times as long per call as
// over 5000: their first calls weigh);
// LAM_BENCH_SSI adds SSI settings to LAM/Go's runs (name=value pairs,
// space-separated: "coll_base_check=0 rpi_tcp_short=1024").
// Needs Open MPI (openmpi-bin libopenmpi-dev); its mpirun reaches the
// second host through the cluster's ssh.
//
// Each host gets processors of its own (nettest's SplitCPUs: one each on
// a two-processor machine), as real hosts have, and its schema line says
// how many. On a machine with fewer than two per host, its two processes
// share them: LAM/Go's see that (a process's processors are those it may
// run on) and yield while they wait, and Open MPI's are told to
// (mpi_yield_when_idle 1, what its mpirun sets when it knows a node is
// oversubscribed). With LAM_BENCH_SHARED_CPUS=1 every host's processes
// run on all of the machine's processors instead, as before 2026-11-29:
// on two processors that is four processes each of which believes it has
// a processor to itself, and both MPIs' waiters then take the processor
// from the processes they wait for (milliseconds per collective at every
// size; bench/README.md, "2026-11-29, net21").
func BenchmarkCollHosts(b *testing.B) {
	ompiCC, err := exec.LookPath("mpicc.openmpi")
	ompiRun, err2 := exec.LookPath("mpirun.openmpi")
	if err != nil || err2 != nil {
		b.Skip("Open MPI is not installed (openmpi-bin libopenmpi-dev)")
	}
	ours := buildBench(b, "coll")
	_, file, _, _ := runtime.Caller(0)
	theirs := filepath.Join(b.TempDir(), "coll-ompi")
	if out, err := exec.Command(ompiCC, "-O2", "-o", theirs, filepath.Join(filepath.Dir(file), "..", "..", "bench", "c", "coll.c")).CombinedOutput(); err != nil {
		b.Fatalf("mpicc.openmpi: %v\n%s", err, out)
	}
	os.Chmod(filepath.Dir(theirs), 0o755)
	split := os.Getenv("LAM_BENCH_SHARED_CPUS") != "1"
	h := newHostsWith(b, nettest.Options{Hosts: 2, SplitCPUs: split}, "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	ctx := testContext(b, 30*time.Minute)
	const perHost = 2
	cpus := map[int]string{0: "cpu=2", 1: "cpu=2"}
	var ompiYield []string
	if split {
		for i, host := range h.c.Hosts {
			cpus[i] = fmt.Sprintf("cpu=%d", len(host.CPUs))
			if len(host.CPUs) < perHost {
				ompiYield = []string{"--mca", "mpi_yield_when_idle", "1"}
			}
		}
	}
	schema := h.schema(cpus)
	if r := h.run(ctx, 0, "lamboot", "-prefix", prefix, schema); r.code != 0 {
		b.Fatalf("lamboot: %v", r)
	}
	defer h.run(ctx, 0, "lamhalt")
	ops := []string{"barrier", "allreduce", "bcast", "gather", "scatter", "allgather", "alltoall"}
	if s := os.Getenv("LAM_BENCH_OPS"); s != "" {
		ops = strings.Split(s, ",")
	}
	sizes := "0,8,4096,65536,1048576,4194304"
	if s := os.Getenv("LAM_BENCH_SIZES"); s != "" {
		sizes = s
	}
	var extraSSI []string
	for _, kv := range strings.Fields(os.Getenv("LAM_BENCH_SSI")) {
		name, value, ok := strings.Cut(kv, "=")
		if !ok {
			b.Fatalf("LAM_BENCH_SSI: %q is not name=value", kv)
		}
		extraSSI = append(extraSSI, "-ssi", name, value)
	}
	hostList := fmt.Sprintf("%s:%d,%s:%d", h.c.Hosts[0].Name, perHost, h.c.Hosts[1].Name, perHost)
	for _, op := range ops {
		b.Run(op, func(b *testing.B) {
			opSizes := sizes
			if op == "barrier" {
				opSizes = "0"
			}
			iters := "1000"
			if s := os.Getenv("LAM_BENCH_ITERS"); s != "" {
				iters = s
			}
			ourT, theirT, ratios := map[string][]float64{}, map[string][]float64{}, map[string][]float64{}
			slowRatios := map[string][]float64{}
			for b.Loop() {
				args := append([]string{"-ssi", "coll_base_associative", "1"}, extraSSI...)
				args = append(args, layoutArgs([]int{0, 0, 1, 1})...)
				r := h.run(ctx, 0, "mpirun", append(args, ours, "-iters", iters, "-sizes", opSizes, op)...)
				mine, err := latencies(r.stdout)
				mineSlow := slowest(r.stdout)
				if r.code != 0 || err != nil {
					b.Fatalf("LAM/Go %s: %v (%v)", op, r, err)
				}
				oargs := append([]string{"-np", "4", "--host", hostList,
					"--mca", "plm_rsh_agent", h.c.SSHAgent(), "--mca", "btl", "tcp,vader,self",
					"--mca", "btl_tcp_if_include", "eth0", "--mca", "oob_tcp_if_include", "eth0"}, ompiYield...)
				r = h.run(ctx, 0, ompiRun, append(oargs, theirs, "-iters", iters, "-sizes", opSizes, op)...)
				other, err := latencies(r.stdout)
				if r.code != 0 || err != nil {
					b.Fatalf("Open MPI %s: %v (%v)", op, r, err)
				}
				otherSlow := slowest(r.stdout)
				for size, us := range mine {
					ourT[size] = append(ourT[size], us)
					theirT[size] = append(theirT[size], other[size])
					if other[size] > 0 {
						ratios[size] = append(ratios[size], us/other[size])
					}
					if mineSlow[size] > 0 && otherSlow[size] > 0 {
						slowRatios[size] = append(slowRatios[size], mineSlow[size]/otherSlow[size])
					}
				}
			}
			for _, size := range strings.Split(opSizes, ",") {
				b.ReportMetric(median(ourT[size]), size+"B-lamgo-us")
				b.ReportMetric(median(theirT[size]), size+"B-ompi-us")
				b.ReportMetric(median(ratios[size]), size+"B-ratio")
				if len(slowRatios[size]) > 0 {
					b.ReportMetric(median(slowRatios[size]), size+"B-slowest-ratio")
				}
			}
		})
	}
}

// latencies reads an OSU-style report: size → µs.
func latencies(out string) (map[string]float64, error) {
	m := map[string]float64{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) != 2 || strings.HasPrefix(f[0], "#") {
			continue
		}
		us, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			return nil, fmt.Errorf("line %q: %w", line, err)
		}
		m[f[0]] = us
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("no measurement in %q", out)
	}
	return m, nil
}

// slowest reads the programs' "# slowest SIZE US" lines (the slowest
// rank's time): size → µs.
func slowest(out string) map[string]float64 {
	m := map[string]float64{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) != 4 || f[0] != "#" || f[1] != "slowest" {
			continue
		}
		if us, err := strconv.ParseFloat(f[3], 64); err == nil {
			m[f[2]] = us
		}
	}
	return m
}

// TestLastLatency: the report's last measurement, past the comment lines
// bench/coll prints after it (allocations per operation).
func TestLastLatency(t *testing.T) {
	for _, tc := range []struct {
		out  string
		want float64
		ok   bool
	}{
		{"# LAM/Go MPI barrier latency test\n# Size Avg Latency(us)\n0 848.97\n# allocs/op 0 1.37\n", 848.97, true},
		{"# Size Latency\n8 1.5\n4096 3.25\n", 3.25, true},
		{"# only comments\n", 0, false},
		{"", 0, false},
		{"8 x\n", 0, false},
	} {
		got, err := lastLatency(tc.out)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("lastLatency(%q) = %v, %v; want %v (ok %v)", tc.out, got, err, tc.want, tc.ok)
		}
	}
}

// TestSlowest: the "# slowest" lines, past the other comments and the
// average's lines.
func TestSlowest(t *testing.T) {
	out := "# LAM/Go MPI gather latency test\n8 4.5\n# slowest 8 9.25\n# allocs/op 8 0.00\n65536 80\n# slowest 65536 x\n# slowest 4096\n"
	got := slowest(out)
	if len(got) != 1 || got["8"] != 9.25 {
		t.Errorf("slowest = %v, want map[8:9.25]", got)
	}
}
