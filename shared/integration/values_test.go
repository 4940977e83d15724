package integration

import (
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
