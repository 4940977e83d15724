// Command laminfo describes this LAM/Go installation: its version, paths,
// configuration, SSI modules and their parameters, in LAM 7.1.4's pretty
// and parsable formats.
package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/msg"

	// Every module set, so laminfo always shows the whole system.
	_ "github.com/lamgo/lam/libmpi/coll/all"
	_ "github.com/lamgo/lam/libmpi/cr/all"
	_ "github.com/lamgo/lam/libmpi/rpi/all"
	_ "github.com/lamgo/lam/shared/boot/all"
)

var tool = &lamcli.Tool{
	Name: "laminfo",
	Syntax: lamcli.Syntax{Long: map[string]int{
		"all": 0, "arch": 0, "config": 0, "param": 2, "parsable": 0, "pretty": 0,
		"path": 1, "version": 2, "hostname": 0, "ssi": 2,
	}},
	HelpExit: lamcli.ExitUsage, // as LAM's laminfo -h
	RootOK:   true,
}

type cmd struct {
	lamcli.SSIOption `embed:""`
	All              bool         `name:"all" help:"Everything."`
	Arch             bool         `name:"arch" help:"The target architecture."`
	Config           bool         `name:"config" help:"How this build was configured."`
	Param            lamcli.Pairs `name:"param" help:"SSI parameters of a type and module."`
	Parsable         bool         `name:"parsable" xor:"format" help:"key:value output."`
	Pretty           bool         `name:"pretty" xor:"format" help:"Aligned output (default)."`
	Path             []string     `name:"path" sep:"none" help:"One installation directory."`
	Version          lamcli.Pairs `name:"version" help:"A version number and scope."`
	Hostname         bool         `name:"hostname" hidden:"" help:"Prefix the parsable arch key with the host name."`
	Ignored          []string     `arg:"" optional:"" hidden:"" help:"Ignored, as LAM does."`
}

func (c *cmd) Run(ctx context.Context, env *lamcli.Env) error {
	lamcli.WarnUnknownParams(env)
	req := Request{All: c.All, Arch: c.Arch, Config: c.Config, Paths: c.Path, Parsable: c.Parsable, Hostname: c.Hostname}
	for _, p := range c.Param {
		req.Params = append(req.Params, [2]string{p.A, p.B})
	}
	for _, v := range c.Version {
		req.Versions = append(req.Versions, [2]string{v.A, v.B})
	}
	err := Render(env.Stdout, inventory(env.Paths), req)
	var bad errBadValue
	if errors.As(err, &bad) {
		// LAM prints its usage and exits 1 for a value it does not know.
		fmt.Fprintf(env.Stderr, "%s: %v\n", tool.Name, bad)
		msg.Show(env.Stderr, tool.Name, "usage")
		return lamcli.ExitQuiet(1)
	}
	return err
}

// inventory is current, except in tests.
var inventory = current

func main() { lamcli.Main(tool, &cmd{}) }
