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
	"github.com/lamgo/lam/shared/ssi"
)

var tool = &lamcli.Tool{
	Name:          "recon",
	NoRootWarning: true,
	Syntax:        lamcli.Syntax{Long: map[string]int{"ssi": 2, "prefix": 1, "c": 1}},
}

type cmd struct {
	lamcli.SSIOption `embed:""`
	All              bool     `short:"a" help:"Check every host even after a failure."`
	Fast             bool     `short:"b" help:"Assume the remote shell is the local one."`
	Conf             string   `short:"c" help:"Process schema to check."`
	Debug            bool     `short:"d" help:"Debugging output."`
	Verbose          bool     `short:"v" help:"Report progress."`
	Names            bool     `short:"l" help:"Pass host names, not addresses."`
	Prefix           string   `name:"prefix"`
	Schema           []string `arg:"" optional:""`
}

func (c *cmd) Run(env *lamcli.Env) error {
	if len(c.Schema) > 1 {
		return lamcli.Usagef("give at most one boot schema")
	}
	settings := env.SSI
	if c.Fast {
		settings = ssi.NewSettings(append(c.SSI, ssi.Arg{Key: "boot_rsh_fast", Value: "1"}), env.Environ)
	}
	schema := ""
	if len(c.Schema) == 1 {
		schema = c.Schema[0]
	}
	ctx := context.Background()
	mod, nodes, err := boot.Plan(ctx, settings, schema, env.Getenv, env.Paths.Sysconfdir, true, env.Stderr, tool.Name)
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
