package boot

import (
	"errors"
	"strings"
	"testing"

	"github.com/lamgo/lam/shared/wire"
)

// place admits a new host only where the universe can reach it and gives
// it a free id.
func TestPlace(t *testing.T) {
	table := &wire.Nodes{Self: 1, Nodes: []wire.Node{
		{ID: 0, Host: "alpha", Addr: "192.0.2.1", Flags: wire.NodeOrigin},
		{ID: 1, Host: "beta", Addr: "192.0.2.2"},
		{ID: 4, Host: "gamma", Addr: "192.0.2.4"},
	}}
	n := &Node{Host: "delta", Addr: "192.0.2.9"}
	self, origin, err := place(table, n, -1)
	if err != nil || self.ID != 1 || origin != 0 || n.ID != 5 {
		t.Fatalf("place = %+v, %d, %v; n%d", self, origin, err, n.ID)
	}
	var inUse *NodeInUseError
	if _, _, err := place(table, &Node{Host: "delta", Addr: "192.0.2.9"}, 4); !errors.As(err, &inUse) || err.Error() != "n4 is already in use" {
		t.Errorf("id in use: %v", err)
	}
	if _, _, err := place(table, &Node{Host: "beta", Addr: "192.0.2.7"}, -1); err == nil || !strings.Contains(err.Error(), "already in the universe as n1") {
		t.Errorf("host in the universe: %v", err)
	}
	if _, _, err := place(&wire.Nodes{Self: 3}, n, -1); err == nil {
		t.Error("a table without the local node accepted")
	}
	lone := &wire.Nodes{Self: 0, Nodes: []wire.Node{{ID: 0, Host: "localhost", Addr: "127.0.0.1"}}}
	if _, _, err := place(lone, n, -1); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("loopback universe: %v", err)
	}
	if _, _, err := place(table, &Node{Host: "here", Addr: "127.0.0.1"}, -1); err == nil || !strings.Contains(err.Error(), "is this host") {
		t.Errorf("this host: %v", err)
	}
}
