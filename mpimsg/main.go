// Command mpimsg shows the messages waiting in the universe, in LAM's
// table: the MPI messages that arrived at a process and wait unmatched in
// its queue, and the messages buffered in the lamds' out-of-band queues
// (the lamd rpi's traffic among them).
package main

import (
	"context"
	"time"

	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/taskview"
	"github.com/lamgo/lam/shared/wire"
)

var tool = &lamcli.Tool{Name: "mpimsg", NoDaemonExit: lamcli.ExitNoDaemon,
	Syntax: lamcli.Syntax{Long: map[string]int{"gps": 0, "c": 1, "d": 1, "m": 1, "e": 1, "B": 1}}}

type cmd struct {
	All      bool     `short:"a" help:"Show the collectives' messages too (marked * in COMM)."`
	GPS      bool     `name:"gps" help:"Name processes by node and process id (GPS) rather than rank."`
	Homog    bool     `short:"O" help:"Accepted for LAM compatibility: contents are shown as bytes."`
	Comm     int      `short:"c" default:"0" placeholder:"#" help:"Print the communicator of message #."`
	Type     int      `short:"d" default:"0" placeholder:"#" help:"Print the datatype of message #."`
	Body     int      `short:"m" default:"0" placeholder:"#" help:"Print the contents of message #."`
	Elements int      `short:"e" default:"0" placeholder:"#" help:"Print at most # bytes of contents."`
	Max      int      `short:"B" default:"0" placeholder:"#" help:"Print at most # messages (default: every one the lamds list)."`
	Where    []string `arg:"" optional:"" help:"Nodes (n<list>, c<list>, N, C, h, o; default: every node) and processes (p<list>: process ids, %<list>: ranks)."`
}

func (c *cmd) Run(ctx context.Context, env *lamcli.Env) error {
	if c.Elements < 0 || c.Max < 0 || c.Comm < 0 || c.Type < 0 || c.Body < 0 {
		return lamcli.Usagef("counts and message numbers must not be negative")
	}
	if (c.Comm > 0 && c.Type > 0) || (c.Comm > 0 && c.Body > 0) || (c.Type > 0 && c.Body > 0) {
		return lamcli.Usagef("-c, -d and -m exclude one another")
	}
	cl, table, err := env.DaemonNodes(ctx, "", "")
	if err != nil {
		return err
	}
	defer cl.Close()
	sel, err := taskview.Parse(c.Where)
	if err != nil {
		return lamcli.Usagef("%v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	limit := wire.MaxInspectMsgs
	if c.Max > 0 {
		limit = min(c.Max, limit)
	}
	nodes, err := taskview.Gather(ctx, cl, table, sel, true, limit)
	o := taskview.MsgOptions{GPS: c.GPS, Limit: c.Max, All: c.All, Elements: c.Elements}
	switch {
	case c.Comm > 0:
		o.Comm, o.Seq = true, c.Comm
	case c.Type > 0:
		o.Type, o.Seq = true, c.Type
	case c.Body > 0:
		o.Body, o.Seq = true, c.Body
	}
	taskview.PrintMsgs(env.Stdout, nodes, o)
	if err != nil {
		return lamcli.RemoteExit(err)
	}
	return nil
}

func main() { lamcli.Main(tool, &cmd{}) }
