package integration

import (
	"testing"
	"time"
)

// Process topologies through the real binaries (testprog topo): grids,
// shifts at the edges, sub-grids, graphs, distributed graphs and the
// neighbour collectives, with as many ranks as cells and more ranks than
// cores, over shared memory and tcp.
func TestTopoLocal(t *testing.T) {
	needPgrep(t)
	ctx, l := bootLocal(t, 3*time.Minute)
	for _, args := range [][]string{
		{"-np", "1"},
		{"-np", "2"},
		{"-np", "6"},
		{"-ssi", "rpi", "tcp", "-np", "4"},
		{"-ssi", "rpi", "usysv", "-np", "7"},
	} {
		if r := l.run(ctx, "mpirun", append(args, bin("testprog"), "topo")...); r.code != 0 || r.stdout != "topo ok\n" {
			t.Errorf("topo %v: %v", args, r)
		}
	}
	noneLeft(t, "testprog")
}

// reorder across hosts: ranks dealt round robin over two hosts; the suite
// checks that a reordered ring keeps each host's processes together.
func TestTopoHosts(t *testing.T) {
	testUser(t)
	ctx := testContext(t, 5*time.Minute)
	h := newHosts(t, 2)
	if r := h.run(ctx, 0, "lamboot", "-prefix", prefix, h.schema(map[int]string{0: "cpu=4", 1: "cpu=4"})); r.code != 0 {
		t.Fatalf("lamboot: %v", r)
	}
	for _, layout := range [][]int{{0, 1, 0, 1, 0, 1}, {0, 1, 0, 1, 0, 1, 0, 1}, {0, 0, 0, 1, 1}} {
		if r := h.run(ctx, 0, "mpirun", append(layoutArgs(layout), bin("testprog"), "topo")...); r.code != 0 || r.stdout != "topo ok\n" {
			t.Errorf("topo over two hosts, layout %v: %v", layout, r)
		}
	}
	if r := h.run(ctx, 0, "lamhalt"); r.code != 0 {
		t.Errorf("lamhalt: %v", r)
	}
}
