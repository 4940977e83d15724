package boot

import (
	"context"
	"fmt"
	"net"
	"strings"

	"github.com/lamgo/lam/shared/bhost"
	"github.com/lamgo/lam/shared/ssi"
	"github.com/lamgo/lam/shared/wire"
)

// PlanConfig is what Plan needs from the tool that boots.
type PlanConfig struct {
	Settings   *ssi.Settings
	Schema     string // the boot schema named on the command line ("" = the default)
	Getenv     func(string) string
	Cwd        string // where a relative schema name is looked for first
	Sysconfdir string // the installation's etc
	// Names passes host names, not addresses, to the nodes (lamboot -l;
	// lamwipe and recon, which need no reachable origin).
	Names bool
	// Warn reports a schema line that was skipped, and why.
	Warn func(string)
}

// Plan is the common start of lamboot, lamwipe and recon: choose the boot
// module, read and resolve the nodes of the boot schema.
func Plan(ctx context.Context, c PlanConfig) (Module, []Node, error) {
	mod, err := Select(ctx, c.Settings)
	if err != nil {
		return nil, nil, err
	}
	nodes, err := mod.Nodes(ctx, &Request{Schema: c.Schema, Getenv: c.Getenv, Cwd: c.Cwd, Sysconfdir: c.Sysconfdir, Settings: c.Settings, Warn: c.Warn})
	if err != nil {
		return nil, nil, err
	}
	if err := checkNodes(nodes); err != nil {
		return nil, nil, err
	}
	if err := Resolve(ctx, nodes, c.Names); err != nil {
		return nil, nil, err
	}
	return mod, nodes, nil
}

// checkNodes checks what a module's nodes carry against the node table's
// bounds (package wire) before anything resolves or starts them: the
// number of nodes, each cpu count (0 stands for 1) and each host name
// (bhost.CheckHost). The rsh module's boot schema is checked line by line
// already (package bhost); this holds for every module.
func checkNodes(nodes []Node) error {
	if len(nodes) > wire.MaxNodes {
		return fmt.Errorf("%d nodes: a universe has at most %d", len(nodes), wire.MaxNodes)
	}
	for i := range nodes {
		n := &nodes[i]
		if err := bhost.CheckHost(n.Host); err != nil {
			return fmt.Errorf("n%d: %w", n.ID, err)
		}
		if n.CPUs < 0 || n.CPUs > wire.MaxCPUs {
			return fmt.Errorf("%s: cpu count %d out of range [1, %d]", n, n.CPUs, wire.MaxCPUs)
		}
	}
	return nil
}

// checkTable checks that the node table of nodes (resolved) fits in one
// message, with the longest link address each lamd could report.
func checkTable(nodes []Node) error {
	u := &wire.Universe{ID: strings.Repeat("u", 256), Nodes: make([]wire.Node, len(nodes))}
	for i, n := range nodes {
		u.Nodes[i] = wire.Node{ID: n.ID, Host: n.Host, Addr: n.Addr, Link: net.JoinHostPort(n.Addr, "65535"), CPUs: 1}
	}
	if size := len(wire.AppendFrame(nil, 0, 0, u)) - wire.HeaderSize; size > wire.MaxFrame {
		return fmt.Errorf("the node table of these %d nodes would take %d bytes, more than the %d a message carries: "+
			"boot fewer hosts, or name them by shorter names or by address", len(nodes), size, wire.MaxFrame)
	}
	return nil
}
