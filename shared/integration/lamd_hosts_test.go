package integration

import (
	"fmt"
	"strconv"
	"testing"
	"time"
)

// The lamd rpi across two hosts: every message between n0 and n1 crosses
// the link between their lamds, the others stay in a lamd.
func TestLamdRPIHosts(t *testing.T) {
	h := newHosts(t, 2)
	ctx := testContext(t, 4*time.Minute)
	if r := h.run(ctx, 0, "lamboot", "-prefix", prefix, h.schema(nil)); r.code != 0 {
		t.Fatalf("lamboot: %v", r)
	}
	defer h.run(ctx, 0, "lamhalt")
	for _, suite := range []string{"p2p", "coll", "edges"} {
		want := suite + " ok"
		args := append([]string{"-ssi", "rpi", "lamd"}, layoutArgs([]int{0, 1, 0, 1})...)
		r := h.run(ctx, 0, "mpirun", append(args, bin("testprog"), suite)...)
		if r.code != 0 || len(r.stdout) < len(want) || r.stdout[:len(want)] != want {
			t.Errorf("%s over lamd across hosts: %v", suite, r)
		}
	}
}

// BenchmarkLamdRPIHosts measures bench/pingpong's one-way latency over
// the lamd rpi between two simulated hosts (client → its lamd → the
// peer's lamd → peer) at 1 B, 4 KiB, 64 KiB and 1 MiB, reporting each
// size's median over the rounds (-benchtime Nx):
//
//	go test ./shared/integration -run '^$' -bench LamdRPIHosts -benchtime 5x
func BenchmarkLamdRPIHosts(b *testing.B) {
	pingpong := buildBench(b, "pingpong")
	h := newHosts(b, 2)
	ctx := testContext(b, 30*time.Minute)
	if r := h.run(ctx, 0, "lamboot", "-prefix", prefix, h.schema(nil)); r.code != 0 {
		b.Fatalf("lamboot: %v", r)
	}
	defer h.run(ctx, 0, "lamhalt")
	sizes := []int{1, 4096, 65536, 1 << 20}
	times := map[int][]float64{}
	for b.Loop() {
		for _, size := range sizes {
			s := strconv.Itoa(size)
			r := h.run(ctx, 0, "mpirun", "-ssi", "rpi", "lamd", "n0", "n1", pingpong, "-min", s, "-max", s, "-iters", "1000")
			us, err := lastLatency(r.stdout)
			if r.code != 0 || err != nil {
				b.Fatalf("pingpong %d B: %v (%v)", size, r, err)
			}
			times[size] = append(times[size], us)
		}
	}
	for _, size := range sizes {
		b.ReportMetric(median(times[size]), fmt.Sprintf("us-%dB", size))
	}
}
