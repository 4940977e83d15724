// Command lamwipe forcibly stops the lamds of a universe: on every host of
// the boot schema it stops the session's lamd (through its kill file) and
// removes the session directory. It needs no running lamd, so it works on
// a half-dead universe, and it goes on past hosts that fail.
package main

import (
	"context"
	"fmt"
	"time"

	"github.com/lamgo/lam/shared/boot"
	_ "github.com/lamgo/lam/shared/boot/all"
	"github.com/lamgo/lam/shared/lamcli"
)

var tool = &lamcli.Tool{
	Name:   "lamwipe",
	Syntax: lamcli.Syntax{Long: lamcli.Longs(lamcli.SchemaLong, lamcli.SessionLong, map[string]int{"w": 1})},
}

type cmd struct {
	lamcli.SchemaOptions  `embed:""`
	lamcli.SessionOptions `embed:""`
	NoBanner              bool `short:"H" help:"Do not print the banner."`
	Version               bool `short:"V" help:"Print the banner and exit."`
	Count                 int  `short:"w" default:"0" help:"Only the first n hosts."`
}

func (c *cmd) Run(ctx context.Context, env *lamcli.Env) error {
	if !c.NoBanner || c.Version {
		lamcli.Banner(env.Stdout)
	}
	if c.Version {
		return nil
	}
	mod, nodes, settings, err := c.Plan(ctx, env, false)
	if err != nil {
		return err
	}
	if c.Count > 0 && c.Count < len(nodes) {
		nodes = nodes[:c.Count]
	}
	dir, err := c.Session(env)
	if err != nil {
		return err
	}
	timeout, err := settings.Duration(boot.ParamTimeout)
	if err != nil {
		return err
	}
	b := &boot.Lamds{Bindir: env.Paths.Bindir, Prefix: c.Prefix, SessionPrefix: c.SessionPrefix, SessionSuffix: dir.Suffix}
	wctx, cancel := context.WithTimeout(ctx, timeout+5*time.Second)
	defer cancel()
	if c.Verbose {
		for i := range nodes {
			fmt.Fprintf(env.Stderr, "lamwipe: wiping %s\n", &nodes[i])
		}
	}
	if err := boot.Wipe(wctx, mod, nodes, b.WipeArgv); err != nil {
		return fmt.Errorf("some hosts could not be wiped:\n%w", err)
	}
	return nil
}

func main() { lamcli.Main(tool, &cmd{}) }
