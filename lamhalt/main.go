// Command lamhalt stops the LAM universe: every lamd, and every process
// the lamds started. Nodes whose lamd does not answer are reported, not
// waited for forever.
package main

import (
	"context"
	"fmt"
	"time"

	"github.com/lamgo/lam/shared/boot"
	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/wire"
)

var tool = &lamcli.Tool{Name: "lamhalt", NoDaemonExit: lamcli.ExitNoDaemon}

type cmd struct {
	Debug    bool `short:"d" help:"Debugging output."`
	NoBanner bool `short:"H" help:"Do not print the banner."`
	NoWait   bool `short:"i" help:"Do not wait for the local lamd to exit."`
	Verbose  bool `short:"v" help:"Report progress."`
}

func (c *cmd) Run(ctx context.Context, env *lamcli.Env) error {
	if !c.NoBanner {
		lamcli.Banner(env.Stdout)
	}
	if c.Debug {
		c.Verbose = true
	}
	timeout, err := env.SSI.Duration(boot.ParamHalt)
	if err != nil {
		return err
	}
	cl, err := env.Daemon(ctx, "", "")
	if err != nil {
		return err
	}
	defer cl.Close()
	dir, _ := env.Session("", "")
	say := func(format string, args ...any) {
		if c.Verbose {
			fmt.Fprintf(env.Stdout, format+"\n", args...)
		}
	}
	say("Shutting down LAM")
	if c.Debug {
		if ns, err := cl.Nodes(ctx); err == nil {
			for _, n := range ns.Nodes {
				if n.ID != ns.Self {
					say("hreq: sending HALT_PING to n%d (%s)", n.ID, n.Addr)
				}
			}
			say("hreq: waiting for HALT ACKs from remote LAM daemons")
		}
	}
	var dead []string
	hctx, cancel := context.WithTimeout(ctx, timeout+10*time.Second)
	defer cancel()
	err = cl.Halt(hctx, timeout, func(p *wire.HaltProgress) {
		if p.Acked {
			say("hreq: received HALT_ACK from n%d (%s)", p.Node, p.Host)
			return
		}
		dead = append(dead, fmt.Sprintf("n%d (%s)", p.Node, p.Host))
		fmt.Fprintf(env.Stderr, "lamhalt: n%d (%s) did not acknowledge the halt: %s\n", p.Node, p.Host, p.Err)
	})
	if err != nil {
		return lamcli.RemoteExit(err)
	}
	if c.Debug {
		say("lamhalt: local LAM daemon halted")
	}
	if !c.NoWait {
		say("lamhalt: sleeping to wait for lamds to die")
		// The directory, not the socket: the lamd removes its socket
		// first and its session directory last, and a lamboot that finds
		// the directory while the lamd still runs refuses to boot.
		dir.WaitGone(ctx, timeout)
	}
	say("LAM halted")
	if len(dead) > 0 {
		return lamcli.Exit(lamcli.ExitDeadNode, fmt.Errorf("%d node(s) did not answer; their lamds may still run (use lamwipe)", len(dead)))
	}
	return nil
}

func main() { lamcli.Main(tool, &cmd{}) }
