// Command hboot starts the LAM daemon on this host, as lamboot does on
// every node (locally, or through the remote shell). It reads the process
// schema (lam-conf.lamd), stops a stale lamd of the same session first
// with -t, starts the lamd detached from the terminal and the remote shell
// (new session, standard streams closed), and returns at once so that the
// remote shell can exit.
//
// With -k, hboot reads the universe secret on its standard input and hands
// it to the lamd through a pipe.
package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/lamgo/lam/shared/install"
	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/linkauth"
	"github.com/lamgo/lam/shared/tkill"
)

var tool = &lamcli.Tool{
	Name:   "hboot",
	Syntax: lamcli.Syntax{Long: lamcli.Longs(lamcli.SessionLong, map[string]int{"prefix": 1, "c": 1, "I": 1})},
	RootOK: true,
}

type cmd struct {
	Conf                  string `short:"c" default:"lam-conf.lamd" help:"Process schema."`
	Debug                 bool   `short:"d" help:"Print debugging output; the lamd logs next to its session directory."`
	Topo                  string `short:"I" help:"Topology arguments for lamd ($inet_topo)."`
	Pretend               bool   `short:"N" help:"Pretend: start nothing."`
	CloseStdio            bool   `short:"s" help:"Close the standard streams of the daemon (always done)."`
	Kill                  bool   `short:"t" help:"Stop a stale lamd of this session first."`
	Verbose               bool   `short:"v" help:"Report progress."`
	ShowSchema            bool   `short:"V" help:"Print the process schema."`
	Key                   bool   `short:"k" help:"Read the universe secret on standard input."`
	Prefix                string `name:"prefix" help:"LAM/Go's installation directory."`
	lamcli.SessionOptions `embed:""`
}

func (c *cmd) Run(ctx context.Context, env *lamcli.Env) error {
	say := func(format string, args ...any) {
		if c.Debug || c.Verbose {
			fmt.Fprintf(env.Stdout, "hboot: "+format+"\n", args...)
		}
	}
	paths := env.Paths
	if c.Prefix != "" {
		paths.Bindir = filepath.Join(c.Prefix, "bin")
		paths.Sysconfdir = install.Sysconfdir(c.Prefix)
	}
	dir, err := c.Session(env)
	if err != nil {
		return err
	}
	if c.Kill {
		say("performing tkill")
		res, err := tkill.Kill(ctx, dir, 5*time.Second)
		if err != nil {
			return fmt.Errorf("stop the stale lamd: %w", err)
		}
		if len(res.Killed) > 0 {
			say("stopped stale lamd %v", res.Killed)
		}
	}
	confPath, err := findConf(c.Conf, env, paths.Sysconfdir)
	if err != nil {
		return err
	}
	vars := map[string][]string{"$inet_topo": strings.Fields(c.Topo)}
	if c.Debug {
		vars["$debug"] = []string{"-d"}
	}
	if c.SessionPrefix != "" {
		vars["$session_prefix"] = []string{"-sessionprefix", c.SessionPrefix}
	}
	if c.SessionSuffix != "" {
		vars["$session_suffix"] = []string{"-sessionsuffix", c.SessionSuffix}
	}
	progs, err := parseSchema(confPath, vars)
	if err != nil {
		return err
	}
	if c.ShowSchema {
		for _, p := range progs {
			fmt.Fprintln(env.Stdout, strings.Join(p, " "))
		}
	}
	if c.Pretend {
		return nil
	}
	var secret *linkauth.Secret
	if c.Key {
		s, err := linkauth.ReadSecret(env.Stdin)
		if err != nil {
			return err
		}
		secret = &s
	}
	say("booting...")
	for i, argv := range progs {
		path := resolveProgram(argv[0], paths.Bindir)
		args := append([]string(nil), argv[1:]...)
		if c.Debug && filepath.Base(path) == "lamd" {
			args = append(args, "-log", dir.Path+".log")
		}
		say("fork %s", path)
		pid, err := startDetached(path, args, secret)
		if err != nil {
			return fmt.Errorf("start %s: %w", path, err)
		}
		if c.Debug {
			fmt.Fprintf(env.Stdout, "[%d]  %d %s %s\n", i+1, pid, argv[0], strings.Join(args, " "))
		}
	}
	return nil
}

func main() { lamcli.Main(tool, &cmd{}) }
