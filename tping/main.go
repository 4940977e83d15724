// Command tping echoes messages off the lamds of the universe, to check
// that they are alive and to measure round trips: one line per round, and
// a summary at the end (after -c rounds, or on SIGINT/SIGTERM). Every echo
// has a time limit, so a dead node is reported rather than waited for.
package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/nodespec"
)

// maxLength is LAM's MAXNMSGLEN.
const maxLength = 8192

// echoTimeout bounds one echo.
const echoTimeout = 10 * time.Second

var tool = &lamcli.Tool{Name: "tping", NoDaemonExit: lamcli.ExitNoKernel, Syntax: lamcli.Syntax{Long: map[string]int{"c": 1, "d": 1, "l": 1}}}

type cmd struct {
	Count  int      `short:"c" default:"0" help:"Rounds (0: until interrupted)."`
	Delay  float64  `short:"d" default:"1" help:"Seconds between rounds."`
	Length int      `short:"l" default:"1" help:"Bytes per message (at most 8192)."`
	Quiet  bool     `short:"v" help:"Print only the summary."`
	Where  []string `arg:"" optional:"" help:"Nodes to echo off."`
}

func (c *cmd) Run(ctx context.Context, env *lamcli.Env) error {
	// LAM attaches first: with no lamd every invocation fails the same way.
	cl, table, err := env.DaemonNodes(ctx, "", "")
	if err != nil {
		return err
	}
	defer cl.Close()
	if len(c.Where) == 0 {
		return lamcli.Usage() // LAM: the usage text alone
	}
	if c.Count < 0 || c.Delay < 0 || c.Length < 0 {
		return lamcli.Usagef("-c, -d and -l take non-negative numbers")
	}
	if c.Length > maxLength {
		fmt.Fprintf(env.Stdout, "tping: using max length (%d)\n", maxLength)
		c.Length = maxLength
	}
	nodes := lamclient.SpecNodes(table)
	var specs []nodespec.Spec
	local := false
	for _, w := range c.Where {
		s, err := nodespec.Parse(w)
		if err != nil {
			return lamcli.Usagef("%v", err)
		}
		local = local || s.Kind == nodespec.Local
		specs = append(specs, s)
	}
	ids, err := nodespec.Resolve(specs, nodes)
	if err != nil {
		if errors.Is(err, nodespec.ErrBadNode) {
			return lamcli.Exit(lamcli.ExitUsage, fmt.Errorf("invalid node %s", badNode(err, c.Where)))
		}
		return lamcli.Usagef("%v", err)
	}
	targets := unique(ids)
	from := describe(targets, table.Self, local, nodes)
	payload := make([]byte, c.Length)

	var n, bytes, rounds int
	var total, min, max time.Duration
	for round := 0; c.Count == 0 || round < c.Count; round++ {
		if round > 0 && c.Delay > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(time.Duration(c.Delay * float64(time.Second))):
			}
		}
		if ctx.Err() != nil {
			break
		}
		start := time.Now()
		for _, id := range targets {
			ectx, cancel := context.WithTimeout(ctx, echoTimeout)
			_, err := cl.Echo(ectx, int32(id), payload)
			cancel()
			if err != nil {
				if ctx.Err() != nil {
					break
				}
				if errors.Is(err, context.DeadlineExceeded) {
					err = fmt.Errorf("n%d did not answer within %v", id, echoTimeout)
				}
				c.summary(env, n, bytes, rounds, total, min, max)
				return lamcli.RemoteExit(err)
			}
		}
		if ctx.Err() != nil {
			break
		}
		d := time.Since(start)
		rounds++
		n += len(targets)
		bytes += len(targets) * c.Length
		total += d
		if rounds == 1 || d < min {
			min = d
		}
		if d > max {
			max = d
		}
		if !c.Quiet {
			fmt.Fprintf(env.Stdout, "%3d byte%s from %s: %3.3f secs\n", c.Length, plural(c.Length), from, d.Seconds())
		}
	}
	c.summary(env, n, bytes, rounds, total, min, max)
	return nil
}

func main() { lamcli.Main(tool, &cmd{}) }
