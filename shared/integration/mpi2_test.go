package integration

import (
	"testing"
	"time"
)

// Matched probes by four goroutines at once across ranks, CreateGroup
// over part of World, SplitType by node and Idup, through mpirun over the
// shared-memory and TCP rpi modules.
func TestMPIRunMPI2(t *testing.T) {
	ctx, l := bootLocal(t, 3*time.Minute)
	for _, c := range []struct{ module, np string }{
		{"usysv", "4"}, {"tcp", "5"}, {"sysv", "1"}, {"lamd", "3"},
	} {
		if r := l.run(ctx, "mpirun", "-ssi", "rpi", c.module, "-np", c.np, bin("testprog"), "mpi2"); r.code != 0 || r.stdout != "mpi2 ok\n" {
			t.Errorf("mpi2 over %s with %s ranks: %v", c.module, c.np, r)
		}
	}
	noneLeft(t, "testprog")
}
