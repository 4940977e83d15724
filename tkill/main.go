// Command tkill stops the lamd of this host's session, as LAM's tkill
// did: it reads the session's kill file, stops each lamd listed there
// (only this user's processes that are lamds: a stale kill file cannot
// make it kill a stranger) and removes the session directory. lamwipe
// runs the same on every host of a boot schema; hboot -t runs it before
// booting.
package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/session"
	"github.com/lamgo/lam/shared/tkill"
)

var tool = &lamcli.Tool{
	Name: "tkill",
	Syntax: lamcli.Syntax{Long: lamcli.Longs(lamcli.SessionLong, map[string]int{
		"setsid": 0, "debug-output": 1, "batchid": 1,
	})},
}

type cmd struct {
	lamcli.SessionOptions `embed:""`
	Debug                 bool   `short:"d" help:"Say what is done."`
	Pretend               bool   `short:"N" help:"Only say what would be killed."`
	Verbose               bool   `short:"v" help:"Say which processes are stopped."`
	KillFile              string `short:"f" placeholder:"FILE" help:"The kill file (LAM/Go's is always the session's lam-killfile)."`
	Setsid                bool   `name:"setsid" help:"Accepted for LAM's sake; does nothing."`
	DebugOutput           string `name:"debug-output" placeholder:"WHERE" help:"Accepted for LAM's sake (stdout or syslog); debug goes to stdout."`
	Batchid               string `name:"batchid" placeholder:"ID" help:"Accepted for LAM's sake; the batch id comes from the environment."`
}

func (c *cmd) Run(ctx context.Context, env *lamcli.Env) error {
	if c.DebugOutput != "" && c.DebugOutput != "stdout" && c.DebugOutput != "syslog" {
		return lamcli.Usagef("-debug-output takes stdout or syslog, not %q", c.DebugOutput)
	}
	say := func(format string, args ...any) {
		if c.Debug || c.Verbose {
			fmt.Fprintf(env.Stdout, "tkill: "+format+"\n", args...)
		}
	}
	dir, err := c.Session(env)
	if err != nil {
		return err
	}
	if c.Debug {
		say("setting prefix to %s", dir.Prefix)
		say("got killname back: %s", dir.KillFile())
	}
	if c.KillFile != "" && c.KillFile != dir.KillFile() {
		return fmt.Errorf("-f %s: this session's kill file is %s (LAM/Go keeps no other)", c.KillFile, dir.KillFile())
	}
	if c.Pretend {
		return pretend(dir, func(format string, args ...any) {
			fmt.Fprintf(env.Stdout, "tkill: "+format+"\n", args...)
		})
	}
	res, err := tkill.Kill(ctx, dir, 5*time.Second)
	if err != nil {
		return fmt.Errorf("cannot kill: %w", err)
	}
	if !res.Found {
		say("nothing to kill: %q", dir.KillFile())
	}
	for _, pid := range res.Killed {
		say("killed lamd %d", pid)
	}
	return nil
}

// pretend says which lamds tkill would stop, and stops none.
func pretend(dir session.Dir, say func(string, ...any)) error {
	pids, err := dir.KillFilePIDs()
	if errors.Is(err, fs.ErrNotExist) {
		say("nothing to kill: %q", dir.KillFile())
		return nil
	}
	if err != nil {
		return err
	}
	for _, pid := range pids {
		if running, sure := session.LamdRunning(pid); running && sure {
			say("would kill lamd %d", pid)
		}
	}
	return nil
}

func main() { lamcli.Main(tool, &cmd{}) }
