// Command recon checks that a universe could be booted on every host of a
// boot schema: it runs hboot in pretend mode on each host through the boot
// module, without starting anything.
package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/lamgo/lam/shared/boot"
	_ "github.com/lamgo/lam/shared/boot/all"
	"github.com/lamgo/lam/shared/boot/rsh"
	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/msg"
)

var tool = &lamcli.Tool{
	Name:   "recon",
	RootOK: true,
	Syntax: lamcli.Syntax{Long: lamcli.Longs(lamcli.SchemaLong, map[string]int{"c": 1})},
}

type cmd struct {
	lamcli.SchemaOptions `embed:""`
	All                  bool   `short:"a" help:"Check every host even after a failure."`
	Conf                 string `short:"c" help:"Process schema to check."`
}

func (c *cmd) Run(ctx context.Context, env *lamcli.Env) error {
	mod, nodes, settings, err := c.Plan(ctx, env, false)
	if err != nil {
		msg.Show(env.Stderr, "recon", "unhappiness", err.Error(), agent(mod))
		return lamcli.ExitQuiet(1)
	}
	timeout, err := settings.Duration(boot.ParamTimeout)
	if err != nil {
		return err
	}
	b := &boot.Lamds{Bindir: env.Paths.Bindir, Prefix: c.Prefix}
	var failures []string
	for i := range nodes {
		n := &nodes[i]
		if c.Verbose {
			fmt.Fprintf(env.Stderr, "recon: testing %s\n", n)
		}
		argv := []string{b.WipeArgv(n)[0], "-N"}
		if c.Conf != "" {
			argv = append(argv, "-c", c.Conf)
		}
		nctx, cancel := context.WithTimeout(ctx, timeout)
		err := mod.Launch(nctx, n, argv, nil)
		cancel()
		if err != nil {
			failures = append(failures, fmt.Sprintf("%s: %v", n, err))
			if !c.All {
				break
			}
		}
	}
	if len(failures) > 0 {
		msg.Show(env.Stderr, "recon", "unhappiness", strings.Join(failures, "\n"), agent(mod))
		return lamcli.ExitQuiet(1)
	}
	msg.Show(env.Stdout, "recon", "happiness")
	return nil
}

func agent(m boot.Module) string {
	if r, ok := m.(*rsh.Module); ok {
		return strings.Join(r.Agent(), " ")
	}
	return "the boot module"
}

func main() { lamcli.Main(tool, &cmd{}) }
