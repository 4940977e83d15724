// Command lamd is the LAM daemon. hboot starts it on every node of a
// universe; it calls back the booting lamboot (or lamgrow) to join the
// universe, then serves the node's tools and processes until lamhalt, a
// SIGTERM, or the removal of its session directory.
//
// The universe's secret comes on the file descriptor named by -k (hboot
// passes a pipe), never in argv or the environment.
package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/lamgo/lam/shared/boot"
	"github.com/lamgo/lam/shared/kernel"
	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/linkauth"
	"github.com/lamgo/lam/shared/linknet"
	"github.com/lamgo/lam/shared/session"
	"github.com/lamgo/lam/shared/ssi"
)

var tool = &lamcli.Tool{
	Name: "lamd",
	Syntax: lamcli.Syntax{Long: map[string]int{
		"sessionprefix": 1, "sessionsuffix": 1, "log": 1,
	}},
	HelpExit: lamcli.ExitUsage,
	RootOK:   true, // the tool that started it warned already
}

type cmd struct {
	Host          string `short:"H" required:"" help:"Address of the booting tool."`
	Port          int    `short:"P" required:"" help:"Its rendezvous port."`
	Node          int32  `short:"n" required:"" help:"This node's id."`
	Origin        int32  `short:"o" help:"The origin's node id."`
	CPUs          int32  `short:"c" default:"-1" help:"CPU count (-1: as the boot schema says)."`
	FaultTolerant bool   `short:"x" help:"Fault-tolerant mode (heartbeats come with the node table)."`
	Debug         bool   `short:"d" help:"Log debugging output."`
	KeyFD         int    `short:"k" default:"-1" help:"File descriptor carrying the universe secret."`
	SessionPrefix string `name:"sessionprefix"`
	SessionSuffix string `name:"sessionsuffix"`
	Log           string `name:"log" help:"Append the log to this file (default: standard error)."`
}

func (c *cmd) Run(ctx context.Context, env *lamcli.Env) error {
	logOut := env.Stderr
	if c.Log != "" {
		f, err := os.OpenFile(c.Log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return err
		}
		defer f.Close()
		logOut = f
	}
	level := slog.LevelInfo
	if c.Debug {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: level})).With("lamd", os.Getpid(), "node", c.Node)

	if c.KeyFD < 0 {
		return lamcli.Usagef("no universe secret: lamd is started by hboot (-k <fd>)")
	}
	kf := os.NewFile(uintptr(c.KeyFD), "universe secret")
	secret, err := linkauth.ReadSecret(kf)
	kf.Close()
	if err != nil {
		return err
	}
	dir, err := session.Resolve(session.Options{Prefix: c.SessionPrefix, Suffix: c.SessionSuffix, Getenv: env.Getenv})
	if err != nil {
		return err
	}
	timeout, err := env.SSI.Duration(boot.ParamTimeout)
	if err != nil {
		return err
	}
	maxClients, err := atLeastOne(env.SSI, boot.ParamMaxClients)
	if err != nil {
		return err
	}
	maxLinkAttempts, err := atLeastOne(env.SSI, boot.ParamMaxLinkAttempts)
	if err != nil {
		return err
	}
	// lamcli.Main's context ends on SIGINT and SIGTERM; the lamd stops on SIGHUP too.
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGHUP)
	defer stop()
	return kernel.Join(ctx, kernel.JoinConfig{
		Booter: linknet.JoinHostPort(c.Host, c.Port), Secret: secret, Session: dir,
		Node: c.Node, CPUs: c.CPUs, Timeout: timeout, Log: log,
		MaxClients: maxClients, MaxLinkAttempts: maxLinkAttempts,
	})
}

// atLeastOne reads an integer parameter that must be 1 or more.
func atLeastOne(s *ssi.Settings, name string) (int, error) {
	n, err := s.Int(name)
	if err == nil && n < 1 {
		v, src := s.Value(name)
		err = &ssi.ParamError{Name: name, Value: v, Source: src, Err: errors.New("must be at least 1")}
	}
	return n, err
}

func main() { lamcli.Main(tool, &cmd{}) }
