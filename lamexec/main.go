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
	Syntax: lamcli.Syntax{
		Long:    map[string]int{"np": 1, "c": 1, "wd": 1, "x": 1, "nw": 0, "w": 0, "D": 0, "f": 0, "v": 0, "s": 1},
		Program: true,
		IsSpec:  launch.IsSpec,
	},
}

type cmd struct {
	launch.Options `embed:""`
}

func (c *cmd) Run(ctx context.Context, env *lamcli.Env) error {
	return launch.Run(ctx, env, &c.Options, launch.Config{Tool: "lamexec"})
}

func main() { lamcli.Main(tool, &cmd{}) }
