package boot

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/bhost"
	"github.com/lamgo/lam/shared/linknet"
	"github.com/lamgo/lam/shared/wire"
)

// Host names are checked before anything is handed to the resolver: a
// schema's (any module's) and lamgrow's.
func TestResolveRefusesBadHost(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, h := range []string{"\xff\xfe\xc3(", "-oProxyCommand=x", "alice@localhost", "a b"} {
		nodes := []Node{{ID: 0, Host: "localhost", CPUs: 1}, {ID: 1, Host: h, CPUs: 1}}
		if err := Resolve(ctx, nodes, true); !errors.Is(err, bhost.ErrHostName) {
			t.Errorf("Resolve with host %q: %v; want an error wrapping bhost.ErrHostName", h, err)
		}
		n := &Node{ID: 3, Host: h}
		if err := ResolveHost(ctx, n); !errors.Is(err, bhost.ErrHostName) {
			t.Errorf("ResolveHost(%q): %v; want an error wrapping bhost.ErrHostName", h, err)
		}
	}
}

// lamgrow's cpu count and node id are bounded as the node table bounds
// them, before anything starts.
func TestGrowBounds(t *testing.T) {
	ctx := context.Background()
	for _, cpus := range []int32{0, -1, wire.MaxCPUs + 1} {
		_, err := Grow(ctx, GrowConfig{Host: "delta", CPUs: cpus}, nil)
		if err == nil || !strings.Contains(err.Error(), "cpu count") {
			t.Errorf("Grow with %d cpus: %v", cpus, err)
		}
	}
	table := &wire.Nodes{Self: 1, Nodes: []wire.Node{
		{ID: 0, Host: "alpha", Addr: "192.0.2.1", Flags: wire.NodeOrigin},
		{ID: 1, Host: "beta", Addr: "192.0.2.2"},
	}}
	if _, _, err := place(table, &Node{Host: "delta", Addr: "192.0.2.9"}, wire.MaxNodes); err == nil || !strings.Contains(err.Error(), "node id") {
		t.Errorf("place with id %d: %v", wire.MaxNodes, err)
	}
	table.Nodes = append(table.Nodes, wire.Node{ID: wire.MaxNodes - 1, Host: "gamma", Addr: "192.0.2.3"})
	if _, _, err := place(table, &Node{Host: "delta", Addr: "192.0.2.9"}, -1); err == nil || !strings.Contains(err.Error(), "node id") {
		t.Errorf("place after n%d: %v", wire.MaxNodes-1, err)
	}
}

// A universe whose node table would not fit in one message is refused
// before any lamd starts.
func TestNodeTableSize(t *testing.T) {
	nodes := nodesN(wire.MaxNodes)
	long := strings.Repeat(strings.Repeat("n", 62)+".", 4) + "n"
	if err := checkTable(nodes); err != nil {
		t.Fatalf("%d short names: %v", len(nodes), err)
	}
	for i := range nodes {
		nodes[i].Host = long
		nodes[i].Addr = "2001:db8::1234:5678:9abc:def0"
	}
	if err := checkTable(nodes); err == nil || !strings.Contains(err.Error(), "node table") {
		t.Errorf("%d long names: %v", len(nodes), err)
	}
	if err := checkNodes(nodesN(wire.MaxNodes + 1)); err == nil {
		t.Errorf("%d nodes accepted", wire.MaxNodes+1)
	}
	bad := nodesN(2)
	bad[1].CPUs = wire.MaxCPUs + 1
	if err := checkNodes(bad); err == nil || !strings.Contains(err.Error(), "cpu count") {
		t.Errorf("cpu count %d: %v", bad[1].CPUs, err)
	}
}

func TestResolveVsock(t *testing.T) {
	t.Setenv(linknet.EnvFake, t.TempDir())
	t.Setenv(linknet.EnvFakeCID, "6")
	nodes := []Node{{ID: 0, Host: "vsock:5"}, {ID: 1, Host: "vsock:6:2222"}}
	if err := Resolve(t.Context(), nodes, false); err != nil {
		t.Fatal(err)
	}
	if nodes[0].Addr != "vsock:5" || nodes[1].Addr != "vsock:6" || nodes[0].Origin || !nodes[1].Origin {
		t.Errorf("resolved %+v", nodes)
	}
	n := Node{ID: 3, Host: "vsock:1"}
	if err := ResolveHost(t.Context(), &n); err == nil || !strings.Contains(err.Error(), "n3: invalid vsock address") {
		t.Errorf("ResolveHost(vsock:1) = %v", err)
	}
	if err := Resolve(t.Context(), []Node{{Host: "vsock:7"}}, false); !errors.Is(err, ErrNoOrigin) {
		t.Errorf("a schema of other guests only: %v", err)
	}
}
