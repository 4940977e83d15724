package integration

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCollSent runs testprog collsent: thousands of rooted collectives
// back to back (whose writers return at once at coll_base_check=1 and 0)
// mixed with synchronising ones, every byte checked, at 2 to 5 ranks on
// this machine's cores, with shmem's default buffers and with 2 small
// ones; then who gets the errors of calls whose counts differ at levels
// 1 and 2, shmem's and lam_basic's alike.
func TestCollSent(t *testing.T) {
	needPgrep(t)
	ctx, l := bootLocal(t, 8*time.Minute)
	small := []string{"-ssi", "coll_base_shmem_message_pool_size", "4096", "-ssi", "coll_base_shmem_num_segments", "2"}
	for _, c := range []struct {
		np     int
		args   []string
		level  string
		module string
	}{
		{2, nil, "1", "shmem"},
		{3, nil, "1", "shmem"},
		{4, nil, "1", "shmem"},
		{5, nil, "1", "shmem"},
		{4, small, "1", "shmem"},
		{5, small, "1", "shmem"},
		{3, append([]string{"-ssi", "coll_base_check", "0"}, small...), "0", "shmem"},
		{4, []string{"-ssi", "coll_base_check", "2"}, "2", "shmem"},
		{4, []string{"-ssi", "coll", "lam_basic"}, "1", "lam_basic"},
	} {
		args := append(append([]string{}, c.args...), "-np", strconv.Itoa(c.np), bin("testprog"), "collsent", c.level)
		r := l.run(ctx, "mpirun", args...)
		if want := "collsent ok " + c.module + "\n"; r.code != 0 || r.stdout != want {
			t.Errorf("mpirun %s: %v, want %q", strings.Join(args, " "), r, want)
		}
	}
	noneLeft(t, "testprog")
	noSegments(t)
}
