package integration

import (
	"testing"
	"time"
)

// TestDtypesLocal runs the derived-datatype suite (testprog dtypes)
// between real processes: Go struct slices, columns, a distributed array,
// the collectives over derived types and external32, over the shared
// memory and tcp transports.
func TestDtypesLocal(t *testing.T) {
	needPgrep(t)
	ctx, l := bootLocal(t, 3*time.Minute)
	for _, args := range [][]string{
		{"-np", "1"},
		{"-np", "3"},
		{"-ssi", "coll_base_check", "2", "-np", "3"},
		{"-ssi", "rpi", "tcp", "-np", "4"},
		{"-ssi", "rpi", "lamd", "-np", "2"},
	} {
		r := l.run(ctx, "mpirun", append(args, bin("testprog"), "dtypes")...)
		if r.code != 0 || r.stdout != "dtypes ok\n" {
			t.Errorf("dtypes %v: %v", args, r)
		}
	}
}
