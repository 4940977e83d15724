// Command lamgrow adds one host to the running LAM universe: it boots a
// lamd there through the boot module, tells the universe about the new
// node, and hands the new lamd the node table. It runs on a node of the
// universe, never on the new host.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/lamgo/lam/shared/boot"
	_ "github.com/lamgo/lam/shared/boot/all"
	"github.com/lamgo/lam/shared/lamcli"
)

var tool = &lamcli.Tool{
	Name:         "lamgrow",
	NoDaemonExit: lamcli.ExitNoDaemon,
	Syntax: lamcli.Syntax{Long: lamcli.Longs(lamcli.SessionLong, map[string]int{
		"cpu": 1, "no-schedule": 0, "ssi": 2, "n": 1, "prefix": 1,
	})},
}

type cmd struct {
	lamcli.SSIOption      `embed:""`
	lamcli.SessionOptions `embed:""`
	Debug                 bool     `short:"d" help:"Debugging output."`
	Verbose               bool     `short:"v" help:"Report progress."`
	FaultTolerant         bool     `short:"x" help:"Fault-tolerant mode (the universe's setting wins)."`
	ID                    int32    `short:"n" default:"-1" help:"Node id of the new node (default: the highest plus one)."`
	CPUs                  int32    `name:"cpu" default:"1" help:"CPU count of the new node."`
	NoSchedule            bool     `name:"no-schedule" help:"Do not schedule processes on the new node by default."`
	Prefix                string   `name:"prefix" help:"LAM/Go's installation directory on the new host."`
	Host                  []string `arg:"" optional:"" help:"The host to add."`
}

func (c *cmd) Run(ctx context.Context, env *lamcli.Env) error {
	if len(c.Host) != 1 {
		return lamcli.Usagef("give exactly one host")
	}
	if c.CPUs < 1 {
		return lamcli.Usagef("-cpu needs a positive count")
	}
	cl, table, err := env.DaemonNodes(ctx, c.SessionPrefix, c.SessionSuffix)
	if err != nil {
		return err
	}
	defer cl.Close()
	secret, err := cl.Secret(ctx)
	if err != nil {
		return lamcli.RemoteExit(err)
	}
	dir, err := c.Session(env)
	if err != nil {
		return err
	}
	say := func(line string) {
		if c.Verbose {
			fmt.Fprintf(env.Stderr, "lamgrow: %s\n", line)
		}
	}
	cwd, _ := os.Getwd()
	n, err := boot.Grow(ctx, boot.GrowConfig{
		Settings: env.SSI, Getenv: env.Getenv, Cwd: cwd, Host: c.Host[0], ID: c.ID, CPUs: c.CPUs, Schedule: !c.NoSchedule,
		Table: table, Secret: secret, Bindir: env.Paths.Bindir, Prefix: c.Prefix, SessionSuffix: dir.Suffix,
		Debug: c.Debug, Progress: say,
	}, cl)
	var (
		he *boot.HostError
		ie *boot.NodeInUseError
	)
	switch {
	case errors.As(err, &he):
		return lamcli.Exit(lamcli.ExitBadHost, err)
	case errors.As(err, &ie):
		return lamcli.Exit(lamcli.ExitBadNode, err)
	case err != nil:
		return err
	}
	say(n.String() + " joined the universe")
	return nil
}

func main() { lamcli.Main(tool, &cmd{}) }
