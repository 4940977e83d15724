// Command mpirun starts an MPI job on the LAM universe: it starts the
// ranks through the lamds (as lamexec does), hands every rank the job's
// process table once all have called MPI_Init, forwards their standard
// streams, and reports the first rank that fails — or that never called
// MPI_Init, or exited without MPI_Finalize.
package main

import (
	"context"

	"github.com/lamgo/lam/shared/boot"
	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/launch"
)

var tool = &lamcli.Tool{
	Name:         "mpirun",
	NoDaemonExit: lamcli.ExitNoKernel,
	Syntax:       lamcli.LaunchSyntax(map[string]int{"ssi": 2, "nx": 0, "O": 0, "sa": 0, "sf": 0, "p": 1, "tag-output": 0}),
}

type cmd struct {
	lamcli.LaunchOptions `embed:""`
	lamcli.SSIOption     `embed:""`
	NoExport             bool   `name:"nx" help:"Do not export LAM_MPI_* variables."`
	Homogeneous          bool   `short:"O" help:"Ignored: the universe is homogeneous."`
	StatusAll            bool   `name:"sa" help:"Report the exit status of every process."`
	StatusFail           bool   `name:"sf" help:"Report the exit status of every process on failure."`
	StatusPrefix         string `short:"p" default:"mpirun:" help:"Prefix of -sa/-sf lines."`
	TagOutput            bool   `name:"tag-output" help:"Prefix every line of output with [rank]."`
}

func (c *cmd) Run(ctx context.Context, env *lamcli.Env) error {
	return c.Launch(ctx, env, func(ctx context.Context, cl *lamclient.Client, o launch.Options) error {
		if !c.NoExport {
			o.Env = launch.LAMEnviron(env.Environ)
		}
		o.Env = append(o.Env, env.SSI.Environ()...)
		o.Stdin = env.Stdin
		maxClients, err := env.SSI.Int(boot.ParamMaxClients)
		if err != nil {
			return err
		}
		return launch.RunMPI(ctx, cl, o, launch.MPIOptions{
			StatusAll: c.StatusAll, StatusFail: c.StatusFail, StatusPrefix: c.StatusPrefix, TagOutput: c.TagOutput,
			MaxClients: maxClients,
		})
	})
}

func main() { lamcli.Main(tool, &cmd{}) }
