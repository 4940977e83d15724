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
)

// BenchmarkCollSMP sets lam_basic against smp on two simulated hosts with
// 2, 3 and 4 ranks each (bench/coll: Allreduce of 4 MiB of float32, Bcast
// of 4 MiB, Barrier), the two modules taking turns in every round. Each
// module's median over the rounds is reported in µs per operation, with
// their ratio:
//
//	go test ./shared/integration -run '^$' -bench CollSMP -benchtime 3x
//
// -benchtime Nx is the number of rounds. The hosts share this machine's
// processors, so with more ranks than processors the numbers say as much
// about scheduling as about the algorithms. That is why the processes use
// the sysv rpi by default (waiters sleep after a few tens of microseconds
// instead of taking the processor from the process they wait for);
// LAM_BENCH_RPI names another (usysv, tcp).
func BenchmarkCollSMP(b *testing.B) {
	coll := buildBench(b, "coll")
	h := newHosts(b, 2)
	ctx := testContext(b, 30*time.Minute)
	schema := h.schema(map[int]string{0: "cpu=4", 1: "cpu=4"})
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
	f := strings.Fields(lines[len(lines)-1])
	if len(f) != 2 {
		return 0, fmt.Errorf("no measurement in %q", out)
	}
	return strconv.ParseFloat(f[1], 64)
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
