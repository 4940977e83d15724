package integration

import (
	"testing"
	"time"
)

// TestDtypesMove runs the derived-datatype transfer suite (testprog
// dtmove) over every rpi: each constructor at eager, rendezvous and
// single-copy sizes, its data moved in place (gathered from and scattered
// into the user's memory), compared with Pack and Unpack. The usysv and
// sysv runs also go through the single-copy paths (process_vm_readv and
// writev with the layout's pieces on one side).
func TestDtypesMove(t *testing.T) {
	needPgrep(t)
	ctx, l := bootLocal(t, 8*time.Minute)
	for _, rpi := range []string{"usysv", "sysv", "tcp", "crtcp", "lamd"} {
		r := l.run(ctx, "mpirun", "-ssi", "rpi", rpi, "-np", "2", bin("testprog"), "dtmove")
		if r.code != 0 || r.stdout != "dtmove ok\n" {
			t.Errorf("dtmove over %s: %v", rpi, r)
		}
	}
}
