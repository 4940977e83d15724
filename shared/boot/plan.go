package boot

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/lamgo/lam/shared/ssi"
)

// Plan is the common start of lamboot, lamwipe and recon: choose the boot
// module, read and resolve the nodes of the boot schema.
func Plan(ctx context.Context, s *ssi.Settings, schema string, getenv func(string) string, sysconfdir string, names bool, warn io.Writer, tool string) (Module, []Node, error) {
	mod, err := Select(ctx, s)
	if err != nil {
		return nil, nil, err
	}
	cwd, _ := os.Getwd()
	nodes, err := mod.Nodes(ctx, &Request{Schema: schema, Getenv: getenv, Cwd: cwd, Sysconfdir: sysconfdir, Settings: s,
		Warn: func(w string) { fmt.Fprintf(warn, "%s: warning: %s (line skipped)\n", tool, w) }})
	if err != nil {
		return nil, nil, err
	}
	if err := Resolve(ctx, nodes, names); err != nil {
		return nil, nil, err
	}
	return mod, nodes, nil
}
