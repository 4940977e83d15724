// Command lamexec runs programs (not necessarily MPI programs) on the
// nodes of the LAM universe, forwarding their standard output and error
// line by line, and exits with the status of the first process that fails.
package main

import (
	"context"

	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/launch"
)

var tool = &lamcli.Tool{
	Name:         "lamexec",
	NoDaemonExit: lamcli.ExitNoKernel,
	Syntax:       lamcli.LaunchSyntax(nil),
}

type cmd struct {
	lamcli.LaunchOptions `embed:""`
}

func (c *cmd) Run(ctx context.Context, env *lamcli.Env) error {
	return c.Launch(ctx, env, launch.Run)
}

func main() { lamcli.Main(tool, &cmd{}) }
