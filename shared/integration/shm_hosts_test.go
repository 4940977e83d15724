package integration

import (
	"testing"
	"time"
)

// Shared memory inside each host and tcp between them, in one job under
// one matching engine: two hosts with several ranks each.
func TestHostsSharedMemory(t *testing.T) {
	testUser(t)
	needShm(t)
	ctx := testContext(t, 4*time.Minute)
	h := newHosts(t, 2)
	schema := h.schema(map[int]string{0: "cpu=2", 1: "cpu=3"})
	if r := h.run(ctx, 0, "lamboot", "-prefix", prefix, schema); r.code != 0 {
		t.Fatalf("lamboot: %v", r)
	}
	for _, module := range []string{"usysv", "sysv"} {
		for _, mode := range []string{"p2p", "comm", "edges"} {
			// C: 2 ranks on the first host, 3 on the second.
			if r := h.run(ctx, 1, "mpirun", "-ssi", "rpi", module, "C", bin("testprog"), mode); r.code != 0 || r.stdout != mode+" ok\n" {
				t.Errorf("%s over %s across hosts: %v", mode, module, r)
			}
		}
		// n0 n0 n1 n1: ranks 0,1 share memory; 1→2 crosses hosts.
		if r := h.run(ctx, 0, "mpirun", "-ssi", "rpi", module, "-np", "4", "n0", "n0", "n1", "n1", bin("testprog"), "p2p"); r.code != 0 || r.stdout != "p2p ok\n" {
			t.Errorf("p2p over %s on n0 n0 n1 n1: %v", module, r)
		}
	}
	if r := h.run(ctx, 0, "lamhalt"); r.code != 0 {
		t.Errorf("lamhalt: %v", r)
	}
	h.noLamds()
	noSegments(t)
}
