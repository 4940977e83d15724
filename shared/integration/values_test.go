package integration

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// Go values as messages across real processes (testprog values): point to
// point, every Value collective on World and on a split, encoding failures
// and receivers in several goroutines; over usysv and tcp.
func TestValuesLocal(t *testing.T) {
	needPgrep(t)
	ctx, l := bootLocal(t, 3*time.Minute)
	for _, args := range [][]string{
		{"-np", "2"},
		{"-np", "4"},
		{"-ssi", "rpi", "tcp", "-np", "3"},
	} {
		r := l.run(ctx, "mpirun", append(args, bin("testprog"), "values")...)
		if r.code != 0 || r.stdout != "values ok\n" {
			t.Errorf("values %v: %v", args, r)
		}
	}
}

// BenchmarkValues passes 1000 structs of 32 bytes between two processes
// (testprog valuebench): as a gob value, as a fixed-size value, as bytes
// received after a Probe, as bytes with Send and Recv, and with a derived
// datatype; each form's median over
// the rounds is reported in µs per one-way message:
//
//	go test ./shared/integration -run '^$' -bench Values -benchtime 3x
func BenchmarkValues(b *testing.B) {
	needPgrep(b)
	ctx, l := bootLocal(b, 10*time.Minute)
	times := map[string][]float64{}
	for b.Loop() {
		r := l.run(ctx, "mpirun", "-np", "2", bin("testprog"), "valuebench", "300")
		if r.code != 0 {
			b.Fatalf("valuebench: %v", r)
		}
		for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			f := strings.Fields(line)
			us, err := strconv.ParseFloat(f[len(f)-1], 64)
			if len(f) != 3 || f[0] != "valuebench" || err != nil {
				b.Fatalf("valuebench printed %q", r.stdout)
			}
			times[f[1]] = append(times[f[1]], us)
		}
	}
	for _, form := range []string{"gob", "fast", "probe", "bytes", "datatype"} {
		b.ReportMetric(median(times[form]), form+"-us/msg")
	}
}
