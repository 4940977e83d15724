package integration

import (
	"fmt"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// BenchmarkOFIHybridHosts measures what ofi links to another host cost
// the messages between two ranks of one host: bench/pingpong's one-way
// latency between ranks 0 and 1 on n0, with ranks 2 and 3 on n1 holding
// their links open (-hold), under usysv (tcp to n1, whose descriptors the
// core reads every eighth pass) and under ofi (usysv on n0, ofi over the
// tcp provider to n1, polled once per pass). Each round runs both at
// each size, one after the other; it reports each one's median and the
// median of the per-round ratios ofi ÷ usysv:
//
//	go test ./shared/integration -run '^$' -bench OFIHybridHosts -benchtime 5x
func BenchmarkOFIHybridHosts(b *testing.B) {
	needOFIBench(b)
	h := newHosts(b, 2)
	ctx := testContext(b, 30*time.Minute)
	if r := h.run(ctx, 0, "lamboot", "-prefix", prefix, h.schema(nil)); r.code != 0 {
		b.Fatalf("lamboot: %v", r)
	}
	defer h.run(ctx, 0, "lamhalt")
	prog := bin("pingpong-ofi")
	sizes := []int{1, 4096}
	modules := map[string][]string{
		"usysv": {"-ssi", "rpi", "usysv"},
		"ofi":   {"-ssi", "rpi", "ofi", "-ssi", "rpi_ofi_provider", "tcp"},
	}
	times := map[string][]float64{}
	ratios := map[int][]float64{}
	for b.Loop() {
		for _, size := range sizes {
			s := strconv.Itoa(size)
			us := map[string]float64{}
			for _, m := range []string{"usysv", "ofi"} {
				args := append(append([]string{}, modules[m]...), "n0", "n0", "n1", "n1", prog, "-hold", "-min", s, "-max", s, "-iters", "5000")
				r := h.run(ctx, 0, "mpirun", args...)
				v, err := lastLatency(r.stdout)
				if r.code != 0 || err != nil {
					b.Fatalf("pingpong %d B over %s: %v (%v)", size, m, r, err)
				}
				us[m] = v
				times[fmt.Sprintf("%s-%dB", m, size)] = append(times[fmt.Sprintf("%s-%dB", m, size)], v)
			}
			ratios[size] = append(ratios[size], us["ofi"]/us["usysv"])
		}
	}
	for _, size := range sizes {
		for _, m := range []string{"usysv", "ofi"} {
			b.ReportMetric(median(times[fmt.Sprintf("%s-%dB", m, size)]), fmt.Sprintf("us-%s-%dB", m, size))
		}
		b.ReportMetric(median(ratios[size]), fmt.Sprintf("ofi/usysv-%dB", size))
	}
}

// needOFIBench builds bench/pingpong with the ofi module, or skips.
func needOFIBench(b *testing.B) {
	b.Helper()
	if err := exec.Command("pkg-config", "--exists", "libfabric").Run(); err != nil {
		b.Skip("libfabric is missing")
	}
	cmd := exec.Command("go", "build", "-tags", "ofi", "-o", bin("pingpong-ofi"), "./bench/pingpong")
	cmd.Dir = cRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build -tags ofi ./bench/pingpong: %v\n%s", err, out)
	}
}
