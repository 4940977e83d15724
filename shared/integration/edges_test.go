package integration

import (
	"testing"
	"time"
)

// The corners the p2p suite leaves out (ready sends, zero-length
// messages, synchronous sends completing only once matched, inactive
// requests in the any/some functions, every error class), through mpirun
// over every rpi module, with more ranks than cores.
func TestMPIRunEdges(t *testing.T) {
	ctx, l := bootLocal(t, 4*time.Minute)
	for _, c := range []struct {
		module string
		nps    []string
	}{
		{"usysv", []string{"1", "2", "8"}},
		{"sysv", []string{"3"}},
		{"tcp", []string{"2", "5"}},
		{"crtcp", []string{"3"}},
		{"lamd", []string{"2"}},
	} {
		for _, np := range c.nps {
			if r := l.run(ctx, "mpirun", "-ssi", "rpi", c.module, "-np", np, bin("testprog"), "edges"); r.code != 0 || r.stdout != "edges ok\n" {
				t.Errorf("edges over %s with %s ranks: %v", c.module, np, r)
			}
		}
	}
	noneLeft(t, "testprog")
}
