// Command mpitask shows what the MPI processes of the universe are doing,
// in LAM's table: each process (its rank and program), the MPI call it is
// blocked in with the call's peer or root, tag, communicator, count and
// datatype, or <running>, or <finalized>.
//
// Each node's lamd asks its own MPI processes, which answer from a
// goroutine of their own without stopping their work.
package main

import (
	"context"
	"time"

	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/taskview"
)

var tool = &lamcli.Tool{Name: "mpitask", NoDaemonExit: lamcli.ExitNoDaemon,
	Syntax: lamcli.Syntax{Long: map[string]int{"gps": 0}}}

type cmd struct {
	Comm  bool     `short:"c" xor:"cd" help:"Print the communicator of each blocked process's call."`
	Type  bool     `short:"d" xor:"cd" help:"Print the datatype of each blocked process's call."`
	GPS   bool     `name:"gps" help:"Name processes by node and process id (GPS) rather than rank."`
	Where []string `arg:"" optional:"" help:"Nodes (n<list>, c<list>, N, C, h, o; default: every node) and processes (p<list>: process ids, %<list>: ranks)."`
}

func (c *cmd) Run(ctx context.Context, env *lamcli.Env) error {
	cl, table, err := env.DaemonNodes(ctx, "", "")
	if err != nil {
		return err
	}
	defer cl.Close()
	sel, err := taskview.Parse(c.Where)
	if err != nil {
		return lamcli.Usagef("%v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	nodes, err := taskview.Gather(ctx, cl, table, sel, false, 0)
	taskview.PrintTasks(env.Stdout, nodes, taskview.TaskOptions{GPS: c.GPS, Comm: c.Comm, Type: c.Type})
	if err != nil {
		return lamcli.RemoteExit(err)
	}
	return nil
}

func main() { lamcli.Main(tool, &cmd{}) }
