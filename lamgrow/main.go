// Command lamgrow adds one host to the running LAM universe: it boots a
// lamd there through the boot module, tells the universe about the new
// node, and hands the new lamd the node table. It runs on a node of the
// universe, never on the new host.
package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/lamgo/lam/shared/boot"
	_ "github.com/lamgo/lam/shared/boot/all"
	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/linkauth"
	"github.com/lamgo/lam/shared/wire"
)

var tool = &lamcli.Tool{
	Name:         "lamgrow",
	NoDaemonExit: lamcli.ExitNoDaemon,
	Syntax: lamcli.Syntax{Long: map[string]int{
		"cpu": 1, "no-schedule": 0, "ssi": 2, "sessionprefix": 1, "sessionsuffix": 1, "n": 1, "prefix": 1,
	}},
}

type cmd struct {
	lamcli.SSIOption `embed:""`
	Debug            bool     `short:"d" help:"Debugging output."`
	Verbose          bool     `short:"v" help:"Report progress."`
	FaultTolerant    bool     `short:"x" help:"Fault-tolerant mode (the universe's setting wins)."`
	ID               int32    `short:"n" default:"-1" help:"Node id of the new node (default: the highest plus one)."`
	CPUs             int32    `name:"cpu" default:"1" help:"CPU count of the new node."`
	NoSchedule       bool     `name:"no-schedule" help:"Do not schedule processes on the new node by default."`
	Prefix           string   `name:"prefix" help:"LAM/Go's installation directory on the new host."`
	SessionPrefix    string   `name:"sessionprefix"`
	SessionSuffix    string   `name:"sessionsuffix"`
	Host             []string `arg:"" optional:"" help:"The host to add."`
}

func (c *cmd) Run(ctx context.Context, env *lamcli.Env) error {
	if len(c.Host) != 1 {
		return lamcli.Usagef("give exactly one host")
	}
	if c.CPUs < 1 {
		return lamcli.Usagef("-cpu needs a positive count")
	}
	cl, err := env.Daemon(ctx, c.SessionPrefix, c.SessionSuffix)
	if err != nil {
		return err
	}
	defer cl.Close()
	table, err := cl.Nodes(ctx)
	if err != nil {
		return lamcli.RemoteExit(err)
	}
	mod, err := boot.Select(ctx, env.SSI)
	if err != nil {
		return err
	}
	cwd, _ := os.Getwd()
	nodes, err := mod.Nodes(ctx, &boot.Request{Host: c.Host[0], Getenv: env.Getenv, Cwd: cwd, Settings: env.SSI})
	if err != nil {
		return err
	}
	n := &nodes[0]
	if err := boot.ResolveHost(ctx, n); err != nil {
		return lamcli.Exit(lamcli.ExitBadHost, err)
	}
	var self, origin *wire.Node
	maxID := int32(-1)
	for i := range table.Nodes {
		t := &table.Nodes[i]
		if t.ID == table.Self {
			self = t
		}
		if t.Flags&wire.NodeOrigin != 0 {
			origin = t
		}
		maxID = max(maxID, t.ID)
		if t.Host == n.Host || t.Addr == n.Addr {
			return fmt.Errorf("%s is already in the universe as n%d", n.Host, t.ID)
		}
	}
	if self == nil {
		return errors.New("the local lamd is not in its own node table")
	}
	if len(table.Nodes) == 1 && net.ParseIP(self.Addr).IsLoopback() {
		return fmt.Errorf("this universe is a single node on %s (a loopback address), which the new host "+
			"cannot reach; lamboot it again with this host's real name or address, then lamgrow", self.Addr)
	}
	if boot.IsLocal(n.Addr) {
		return fmt.Errorf("%s is this host: run lamgrow on a node of the universe, for another host", n.Host)
	}
	n.ID = c.ID
	if n.ID < 0 {
		n.ID = maxID + 1
	}
	for _, t := range table.Nodes {
		if t.ID == n.ID {
			return lamcli.Exit(lamcli.ExitBadNode, fmt.Errorf("n%d is already in use", n.ID))
		}
	}
	n.CPUs, n.Schedule = c.CPUs, !c.NoSchedule
	key, err := cl.Secret(ctx)
	if err != nil {
		return lamcli.RemoteExit(err)
	}
	secret, err := linkauth.ParseSecret(key)
	if err != nil {
		return err
	}
	timeout, err := env.SSI.Duration(boot.ParamTimeout)
	if err != nil {
		return err
	}
	dir, err := env.Session(c.SessionPrefix, c.SessionSuffix)
	if err != nil {
		return err
	}
	originID := self.ID
	if origin != nil {
		originID = origin.ID
	}
	var added bool
	b := &boot.Lamds{
		Module: mod, Nodes: nodes, Joined: table.Nodes, Origin: originID, Secret: secret,
		ListenAddr: self.Addr, Bindir: env.Paths.Bindir, Prefix: c.Prefix, SessionSuffix: dir.Suffix, Debug: c.Debug,
		Heartbeat: time.Duration(table.HeartbeatMS) * time.Millisecond,
		Options: boot.Options{Algorithm: boot.Linear, Timeout: timeout, Progress: func(line string) {
			if c.Verbose {
				fmt.Fprintf(env.Stderr, "lamgrow: %s\n", line)
			}
		}},
		BeforeUniverse: func(ctx context.Context, u *wire.Universe) error {
			for _, wn := range u.Nodes {
				if wn.ID == n.ID {
					if err := cl.AddNode(ctx, wn); err != nil {
						return fmt.Errorf("add n%d to the universe: %w", n.ID, err)
					}
					added = true
				}
			}
			return nil
		},
	}
	if _, err := b.Boot(ctx); err != nil {
		if added {
			rctx, cancel := context.WithTimeout(ctx, timeout)
			cl.RemoveNode(rctx, n.ID, 0)
			cancel()
		}
		return fmt.Errorf("cannot grow the universe with %s: %w", n, err)
	}
	if c.Verbose {
		fmt.Fprintf(env.Stderr, "lamgrow: %s joined the universe\n", n)
	}
	return nil
}

func main() { lamcli.Main(tool, &cmd{}) }
