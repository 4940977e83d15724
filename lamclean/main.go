// Command lamclean cleans the LAM universe without stopping it: on every
// node it kills the processes the lamd started and drops undelivered
// out-of-band messages, so the next job starts clean.
package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/wire"
)

var tool = &lamcli.Tool{Name: "lamclean", NoDaemonExit: lamcli.ExitNoDaemon}

type cmd struct {
	Verbose bool `short:"v" help:"Report each phase on each node."`
}

// The phases, in LAM's order and with its -v labels.
var phases = []struct {
	label string
	phase uint8
}{
	{"killing processes", wire.CleanKill},
	{"closing files", wire.CleanFiles},
	{"sweeping traces", wire.CleanTraces},
	{"cleaning up registered objects", wire.CleanObjects},
	{"sweeping messages", wire.CleanMessages},
}

func (c *cmd) Run(ctx context.Context, env *lamcli.Env) error {
	cl, ns, err := env.DaemonNodes(ctx, "", "")
	if err != nil {
		return err
	}
	defer cl.Close()
	back := strings.Repeat("\b", 10)
	var failed []string
	for _, ph := range phases {
		if c.Verbose {
			// LAM's layout: each node's name overwrites the last with
			// backspaces, for a terminal.
			fmt.Fprintf(env.Stdout, "%s,%11s", ph.label, "")
		}
		for _, n := range ns.Nodes {
			if n.Flags&wire.NodeDead != 0 {
				continue
			}
			if c.Verbose {
				fmt.Fprintf(env.Stdout, "%s%-10.10s", back, nodeName(n)+"...")
			}
			if err := cl.Clean(ctx, n.ID, ph.phase); err != nil {
				failed = append(failed, fmt.Sprintf("n%d: %s: %v", n.ID, ph.label, err))
			}
		}
		if c.Verbose {
			fmt.Fprintf(env.Stdout, "%s%-10.10s\n", back, "done")
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("cleaning failed on some nodes:\n  %s", strings.Join(failed, "\n  "))
	}
	return nil
}

func nodeName(n wire.Node) string {
	if n.Flags&wire.NodeOrigin != 0 {
		return fmt.Sprintf("n%d (o)", n.ID)
	}
	return fmt.Sprintf("n%d", n.ID)
}

func main() { lamcli.Main(tool, &cmd{}) }
