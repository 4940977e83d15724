package kernel

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/lamgo/lam/shared/boot"
	"github.com/lamgo/lam/shared/linkauth"
	"github.com/lamgo/lam/shared/linknet"
	"github.com/lamgo/lam/shared/session"
	"github.com/lamgo/lam/shared/wire"
)

// JoinConfig is what a lamd started by a booting tool (lamboot, or lamgrow,
// through hboot) needs to join its universe.
type JoinConfig struct {
	// Booter is the host:port of the booting tool's rendezvous.
	Booter  string
	Secret  linkauth.Secret
	Session session.Dir
	Node    int32 // this node's id
	CPUs    int32 // this node's CPU count; -1: as the boot schema says
	// Timeout bounds the join: the callback, the wait for the node table,
	// and linking to every node.
	Timeout time.Duration
	// Log receives the daemon's log; nil discards it.
	Log *slog.Logger
	// MaxClients and MaxLinkAttempts are as in Config (zero: default).
	MaxClients      int
	MaxLinkAttempts int
}

// Join joins the universe being booted, then serves it. It calls the
// booting tool back with the address of this lamd's link listener (on the
// interface that reaches the booter, which its peers can reach too),
// receives the node table, starts serving, and acknowledges the table once
// linked to every node, so that the universe is whole when the boot
// returns. Any failure before that is reported to the booter.
//
// Join returns when the lamd stops: halted (nil), ctx ended (a signal), or
// its session directory removed.
func Join(ctx context.Context, cfg JoinConfig) error {
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	jctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()

	caller, err := boot.Dial(jctx, cfg.Booter, cfg.Secret)
	if err != nil {
		return err
	}
	links, err := linknet.Listen(caller.LocalHost())
	if err != nil {
		caller.Ack(err)
		return fmt.Errorf("link listener: %w", err)
	}
	host, _ := os.Hostname()
	// The wait for the table is bounded by the timeout, not by ctx: when
	// ctx ends (a signal), tell the booter, which closes the connection and
	// so ends the wait.
	abandon := context.AfterFunc(ctx, func() { caller.Ack(fmt.Errorf("lamd n%d stopped: %w", cfg.Node, context.Cause(ctx))) })
	u, err := caller.Hello(jctx, &wire.BootHello{Node: cfg.Node, Link: linknet.AddrString(links.Addr()), CPUs: cfg.CPUs, PID: int32(os.Getpid()), Host: host})
	if !abandon() {
		err = context.Cause(ctx) // the booter was told
	}
	if err != nil {
		links.Close()
		return err
	}
	k, err := New(Config{
		Session: cfg.Session, Secret: cfg.Secret, Universe: u, Self: cfg.Node, Links: links, Joining: u.Join, Log: log,
		MaxClients: cfg.MaxClients, MaxLinkAttempts: cfg.MaxLinkAttempts,
	})
	if err != nil {
		caller.Ack(err)
		links.Close()
		return err
	}
	ran := make(chan error, 1)
	go func() { ran <- k.Run(ctx) }()
	err = k.WaitLinked(jctx)
	if ackErr := caller.Ack(err); err != nil || ackErr != nil {
		if err == nil {
			err = fmt.Errorf("acknowledge the node table: %w", ackErr)
		}
		k.Stop(err)
		<-ran
		return err
	}
	err = <-ran
	log.Info("lamd exiting", "err", err)
	return err
}
