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
	"github.com/lamgo/lam/shared/ssi"
)

var tool = &lamcli.Tool{
	Name: "lamwipe",
	Syntax: lamcli.Syntax{Long: map[string]int{
		"ssi": 2, "prefix": 1, "sessionprefix": 1, "sessionsuffix": 1, "w": 1,
	}},
}

type cmd struct {
	lamcli.SSIOption `embed:""`
	Fast             bool     `short:"b" help:"Assume the remote shell is the local one."`
	Debug            bool     `short:"d" help:"Debugging output."`
	NoBanner         bool     `short:"H" help:"Do not print the banner."`
	Verbose          bool     `short:"v" help:"Report progress."`
	Version          bool     `short:"V" help:"Print the banner and exit."`
	Count            int      `short:"w" default:"0" help:"Only the first n hosts."`
	Names            bool     `short:"l" help:"Pass host names, not addresses."`
	Prefix           string   `name:"prefix"`
	SessionPrefix    string   `name:"sessionprefix"`
	SessionSuffix    string   `name:"sessionsuffix"`
	Schema           []string `arg:"" optional:""`
}

func (c *cmd) Run(env *lamcli.Env) error {
	if len(c.Schema) > 1 {
		return lamcli.Usagef("give at most one boot schema")
	}
	if !c.NoBanner || c.Version {
		lamcli.Banner(env.Stdout)
	}
	if c.Version {
		return nil
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
		return err
	}
	if c.Count > 0 && c.Count < len(nodes) {
		nodes = nodes[:c.Count]
	}
	dir, err := env.Session(c.SessionPrefix, c.SessionSuffix)
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
