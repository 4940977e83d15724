// Command lamnodes lists the nodes of the LAM universe, one per line in
// LAM's format: n<id>, a tab, the host, then :<cpus>:<flags>.
package main

import (
	"context"
	"fmt"

	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/nodespec"
	"github.com/lamgo/lam/shared/wire"
)

var tool = &lamcli.Tool{Name: "lamnodes", NoDaemonExit: lamcli.ExitNoDaemon}

type cmd struct {
	NoCPUs bool     `short:"c" help:"Do not print CPU counts and flags."`
	IP     bool     `short:"i" help:"Print IP addresses instead of host names."`
	NoIDs  bool     `short:"n" help:"Do not print node ids."`
	Where  []string `arg:"" optional:"" help:"Node or CPU specifications (default: every node)."`
}

func (c *cmd) Run(ctx context.Context, env *lamcli.Env) error {
	var specs []nodespec.Spec
	for _, w := range c.Where {
		s, err := nodespec.Parse(w)
		if err != nil {
			return lamcli.Usage() // LAM: the usage text alone
		}
		specs = append(specs, s)
	}
	cl, table, err := env.DaemonNodes(ctx, "", "")
	if err != nil {
		return err
	}
	defer cl.Close()
	byID := map[int]wire.Node{}
	for _, n := range table.Nodes {
		byID[int(n.ID)] = n
	}
	nodes := lamclient.SpecNodes(table)
	names := &resolver{ip: c.IP, cache: map[string]string{}}
	print := func(n wire.Node) {
		line := ""
		if !c.NoIDs {
			line = fmt.Sprintf("n%d\t", n.ID)
		}
		line += names.name(ctx, n)
		if !c.NoCPUs {
			line += fmt.Sprintf(":%d:%s", n.CPUs, flags(n, table.Self))
		}
		fmt.Fprintln(env.Stdout, line)
	}
	if len(specs) == 0 {
		for _, n := range table.Nodes {
			print(n)
		}
		return nil
	}
	for _, s := range specs {
		switch s.Kind {
		case nodespec.Nodes:
			// Each id on its own, so one bad id does not hide the others.
			for _, id := range s.IDs {
				if n, ok := byID[id]; ok {
					print(n)
				} else {
					fmt.Fprintf(env.Stdout, "n%d\tinvalid node\n", id)
				}
			}
		case nodespec.CPUs:
			for _, id := range s.IDs {
				ids, err := nodespec.Resolve([]nodespec.Spec{{Kind: nodespec.CPUs, IDs: []int{id}}}, nodes)
				if err != nil || len(ids) != 1 {
					fmt.Fprintln(env.Stdout, "invalid CPU specifier")
					continue
				}
				print(byID[ids[0]])
			}
		default:
			ids, err := nodespec.Resolve([]nodespec.Spec{s}, nodes)
			if err != nil {
				return lamcli.Exit(lamcli.ExitBadNode, err)
			}
			for _, id := range ids {
				print(byID[id])
			}
		}
	}
	return nil
}

func main() { lamcli.Main(tool, &cmd{}) }
