package boot

import (
	"context"

	"github.com/lamgo/lam/shared/ssi"
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
	if err := Resolve(ctx, nodes, c.Names); err != nil {
		return nil, nil, err
	}
	return mod, nodes, nil
}
