package integration

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// TestAttrsLocal runs testprog attrs (attributes across ranks) and checks
// that MPI_UNIVERSE_SIZE is the CPU count lamnodes shows.
func TestAttrsLocal(t *testing.T) {
	needPgrep(t)
	ctx, l := bootLocal(t, 2*time.Minute)
	r := l.run(ctx, "lamnodes")
	if r.code != 0 {
		t.Fatalf("lamnodes: %v", r)
	}
	cpus := 0
	for _, m := range regexp.MustCompile(`(?m)^n\d+\t[^:\n]*:(\d+):`).FindAllStringSubmatch(r.stdout, -1) {
		n, _ := strconv.Atoi(m[1])
		cpus += n
	}
	if cpus == 0 {
		t.Fatalf("no CPU count in lamnodes' %q", r.stdout)
	}
	want := fmt.Sprintf("attrs ok universe %d\nself deleted\n", cpus)
	for _, np := range []string{"1", "3"} {
		if r := l.run(ctx, "mpirun", "-np", np, bin("testprog"), "attrs"); r.code != 0 || r.stdout != want {
			t.Errorf("attrs on %s ranks: %v, want stdout %q", np, r, want)
		}
	}
}
