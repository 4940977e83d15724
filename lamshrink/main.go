// Command lamshrink removes one node from the running LAM universe: the
// node's lamd halts (after warning its processes and waiting, with -w) and
// every other lamd forgets it, so its id becomes invalid.
package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/lamgo/lam/shared/lamcli"
)

var tool = &lamcli.Tool{Name: "lamshrink", NoDaemonExit: lamcli.ExitNoKernel, Syntax: lamcli.Syntax{Long: map[string]int{"w": 1}}}

type cmd struct {
	Debug   bool     `short:"d" help:"Debugging output."`
	Verbose bool     `short:"v" help:"Report progress."`
	Wait    float64  `short:"w" help:"Warn the node's processes and wait this many seconds first."`
	Node    []string `arg:"" optional:"" help:"The node to remove, as n<id>."`
}

func (c *cmd) Run(ctx context.Context, env *lamcli.Env) error {
	if len(c.Node) != 1 {
		return lamcli.Usagef("give exactly one node, as n<id> (e.g. n3)")
	}
	id, err := parseNode(c.Node[0])
	if err != nil {
		return lamcli.Usagef("%v", err)
	}
	if c.Wait < 0 {
		return lamcli.Usagef("-w needs a non-negative number of seconds")
	}
	cl, err := env.Daemon(ctx, "", "")
	if err != nil {
		return err
	}
	defer cl.Close()
	wait := time.Duration(c.Wait * float64(time.Second))
	if c.Verbose {
		fmt.Fprintf(env.Stdout, "lamshrink: removing n%d\n", id)
	}
	cctx, cancel := context.WithTimeout(ctx, wait+time.Minute)
	defer cancel()
	if err := cl.RemoveNode(cctx, id, wait); err != nil {
		return lamcli.RemoteExit(err)
	}
	if c.Verbose {
		fmt.Fprintf(env.Stdout, "lamshrink: n%d removed\n", id)
	}
	return nil
}

// parseNode reads LAM's n<id> form.
func parseNode(s string) (int32, error) {
	if !strings.HasPrefix(s, "n") {
		return 0, fmt.Errorf("node %q: write it as n<id>, e.g. n3", s)
	}
	n, err := strconv.ParseInt(s[1:], 0, 32)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("node %q: write it as n<id>, e.g. n3", s)
	}
	return int32(n), nil
}

func main() { lamcli.Main(tool, &cmd{}) }
