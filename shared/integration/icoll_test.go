package integration

import (
	"os"
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
	needPgrep(t)
	ctx, l := bootLocal(t, 3*time.Minute)
	for _, args := range [][]string{
		{"-np", "1"},
		{"-np", "2"},
		{"-np", "3"},
		{"-np", "5"},
		{"-ssi", "rpi", "tcp", "-np", "4"},
		{"-ssi", "coll_base_crossover", "1", "-np", "5"},
	} {
		r := l.run(ctx, "mpirun", append(args, bin("testprog"), "icoll")...)
		if r.code != 0 || r.stdout != "icoll ok\n" {
			t.Errorf("icoll %v: %v", args, r)
		}
	}
}

// Many nonblocking collectives outstanding at once on three
// communicators, started in rank-dependent orders across them, mixed
// with blocking ones, small and rendezvous-sized (testprog icollmany):
// more ranks than the machine's cores, over usysv and tcp.
func TestIcollMany(t *testing.T) {
	needPgrep(t)
	ctx, l := bootLocal(t, 3*time.Minute)
	for _, args := range [][]string{
		{"-np", "2"},
		{"-np", "5"},
		{"-ssi", "rpi", "tcp", "-np", "4"},
		{"-ssi", "coll_base_crossover", "1", "-ssi", "coll_base_check", "0", "-np", "6"},
	} {
		r := l.run(ctx, "mpirun", append(args, bin("testprog"), "icollmany")...)
		if r.code != 0 || r.stdout != "icollmany ok\n" {
			t.Errorf("icollmany %v: %v", args, r)
		}
	}
}

// BenchmarkIcoll is issue 15's proof of overlap (testprog icollbench):
// an Allreduce of 4 MiB of float64 between two processes then a busy loop
// as long as one Allreduce, against an Iallreduce, the loop, then Wait.
// Medians over the rounds, in µs:
//
//	go test ./shared/integration -run '^$' -bench Icoll -benchtime 1x
//
// LAM_BENCH_RPI names the rpi (usysv by default; sysv and tcp wait in
// the kernel instead of polling, which leaves the processor to the loop).
func BenchmarkIcoll(b *testing.B) {
	needPgrep(b)
	ctx, l := bootLocal(b, 10*time.Minute)
	times := map[string][]float64{}
	for b.Loop() {
		args := []string{"-np", "2"}
		if rpi := os.Getenv("LAM_BENCH_RPI"); rpi != "" {
			args = append(args, "-ssi", "rpi", rpi)
		}
		r := l.run(ctx, "mpirun", append(args, bin("testprog"), "icollbench", "15")...)
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
	for _, form := range []string{"allreduce", "iallreduce", "busy", "blocking", "nonblocking"} {
		b.ReportMetric(median(times[form]), form+"-us")
	}
}
