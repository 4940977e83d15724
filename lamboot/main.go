// Command lamboot boots a LAM universe: one lamd on every host of a boot
// schema (default lam-bhost.def), through the boot module chosen by SSI
// (rsh: ssh by default). When it returns 0 the universe is up and every
// lamd knows every node.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/lamgo/lam/shared/boot"
	_ "github.com/lamgo/lam/shared/boot/all"
	"github.com/lamgo/lam/shared/buildinfo"
	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/session"
	"github.com/lamgo/lam/shared/wire"
)

var tool = &lamcli.Tool{
	Name:   "lamboot",
	Syntax: lamcli.Syntax{Long: lamcli.Longs(lamcli.SchemaLong, lamcli.SessionLong, map[string]int{"c": 1})},
}

type cmd struct {
	lamcli.SchemaOptions  `embed:""`
	lamcli.SessionOptions `embed:""`
	Conf                  string `short:"c" help:"Process schema for hboot."`
	NoBanner              bool   `short:"H" help:"Do not print the banner."`
	CloseStdio            bool   `short:"s" help:"Close the standard streams of the local lamd (always done)."`
	Version               bool   `short:"V" help:"Print the banner and configuration, then exit."`
	FaultTolerant         bool   `short:"x" help:"Fault-tolerant mode: heartbeats between lamds."`
	Force                 bool   `short:"f" help:"Replace a universe already running for this session."`
}

func (c *cmd) Run(ctx context.Context, env *lamcli.Env) error {
	if _, err := c.SchemaArg(); err != nil {
		return err
	}
	if !c.NoBanner || c.Version {
		lamcli.Banner(env.Stdout)
	}
	if c.Version {
		fmt.Fprintf(env.Stdout, "\tArch:\t\t%s\n\tPrefix:\t\t%s\n", buildinfo.Arch(), env.Paths.Prefix)
		return nil
	}
	c.Verbose = c.Verbose || c.Debug
	dir, err := c.Session(env)
	if err != nil {
		return err
	}
	if err := refuseRunning(ctx, env, dir, c.Force, c.Verbose); err != nil {
		return err
	}
	mod, nodes, settings, err := c.Plan(ctx, env, true)
	if err != nil {
		return err
	}
	if !anySchedulable(nodes) {
		env.Warnf("no node of the boot schema is schedulable (every one has schedule=no): mpirun C and N will find nothing to run on")
	}
	pid := os.Getpid()
	// On failure or interrupt, boot.Universe stops every lamd it started.
	_, err = boot.Universe(ctx, boot.UniverseConfig{
		Module: mod, Nodes: nodes, Settings: settings, Bindir: env.Paths.Bindir, Prefix: c.Prefix, Conf: c.Conf,
		SessionPrefix: c.SessionPrefix, SessionSuffix: dir.Suffix, Debug: c.Debug, FaultTolerant: c.FaultTolerant,
		Progress: func(alg, line string) {
			if c.Verbose {
				fmt.Fprintf(env.Stderr, "n-1<%d> ssi:boot:base:%s: %s\n", pid, alg, line)
			}
		},
	})
	if err != nil && c.Verbose {
		fmt.Fprintln(env.Stderr, "lamboot did NOT complete successfully")
	}
	var (
		ne *boot.NodeError
		ie *lamcli.InterruptError
	)
	switch {
	case errors.As(err, &ie):
		// LAM's lamboot exits with the signal's number.
		return lamcli.Exit(int(ie.Signal), fmt.Errorf("%v: the boot is stopped and every lamd it started too", ie))
	case errors.As(err, &ne):
		return lamcli.Exit(1, fmt.Errorf("cannot boot %s: %w", ne.Node, ne.Err))
	}
	return err
}

func anySchedulable(nodes []boot.Node) bool {
	for _, n := range nodes {
		if n.Schedule {
			return true
		}
	}
	return false
}

// refuseRunning refuses to boot over a live universe of the same session,
// unless forced (LAM silently killed it). A session directory whose lamd
// is provably gone (killed with SIGKILL, say) is removed, and with -v
// lamboot says so. One whose lamd does not answer but may be alive (its
// socket accepts, or the lamd of its kill file runs) is refused too,
// unless forced; hboot -t then stops that lamd.
func refuseRunning(ctx context.Context, env *lamcli.Env, dir session.Dir, force, verbose bool) error {
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := lamclient.Dial(dctx, dir, "lamboot", wire.RoleTool)
	if err == nil {
		defer c.Close()
		if !force {
			return fmt.Errorf("a universe is already running for this session (lamd pid %d, %s); "+
				"run lamhalt first, or lamboot -f to replace it", c.LamdPID(), dir.Path)
		}
		env.Warnf("replacing the universe already running for this session (lamd pid %d)", c.LamdPID())
		timeout, err := env.SSI.Duration(boot.ParamHalt)
		if err != nil {
			return err
		}
		// As lamhalt: the lamds' own bound, and the caller's beyond it.
		hctx, hcancel := context.WithTimeout(ctx, timeout+10*time.Second)
		defer hcancel()
		if err := c.Halt(hctx, timeout, nil); err != nil {
			return err
		}
		dir.WaitGone(ctx, timeout)
		return nil
	}
	st, serr := dir.RemoveStale(ctx)
	switch {
	case serr == nil:
		if st.Removed && verbose {
			fmt.Fprintf(env.Stderr, "lamboot: removed the stale session directory %s (%s)\n", dir.Path, gone(st.PIDs))
		}
		return nil
	case errors.Is(serr, session.ErrLive) && !force:
		return fmt.Errorf("the lamd of this session does not answer (%v), and %w; "+
			"run lamwipe, or lamboot -f to replace it", err, serr)
	case errors.Is(serr, session.ErrLive):
		env.Warnf("replacing the lamd of this session, which does not answer: %v", serr)
		return nil // hboot -t stops it
	}
	return serr
}

// gone says which lamd of a stale session is gone.
func gone(pids []int) string {
	switch len(pids) {
	case 0:
		return "no lamd listens on it"
	case 1:
		return fmt.Sprintf("its lamd, pid %d, is gone", pids[0])
	}
	return fmt.Sprintf("its lamds, pids %v, are gone", pids)
}

func main() { lamcli.Main(tool, &cmd{}) }
