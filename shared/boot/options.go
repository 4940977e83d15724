package boot

import (
	"context"

	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/ssi"
)

// Options shared by the tools that read a boot schema (lamboot, lamwipe,
// recon), for embedding in their grammars:
//
//	boot.SchemaOptions `embed:""`
type SchemaOptions struct {
	lamcli.SSIOption `embed:""`
	Fast             bool     `short:"b" help:"Assume the remote shell is the local one."`
	Debug            bool     `short:"d" help:"Debugging output."`
	Verbose          bool     `short:"v" help:"Report progress."`
	Names            bool     `short:"l" help:"Pass host names, not addresses, to the nodes."`
	Prefix           string   `name:"prefix" help:"LAM/Go's installation directory on remote hosts."`
	Schema           []string `arg:"" optional:"" help:"Boot schema (default lam-bhost.def)."`
}

// SchemaLong lists the single-dash long options of SchemaOptions.
var SchemaLong = map[string]int{"ssi": 2, "prefix": 1}

// SchemaArg returns the boot schema named on the command line ("" for the
// default), or a usage error if several are.
func (o *SchemaOptions) SchemaArg() (string, error) {
	switch len(o.Schema) {
	case 0:
		return "", nil
	case 1:
		return o.Schema[0], nil
	}
	return "", lamcli.Usagef("give at most one boot schema")
}

// Settings resolves SSI parameters with what the options imply (-b sets
// boot_rsh_fast).
func (o *SchemaOptions) Settings(env *lamcli.Env) *ssi.Settings {
	if !o.Fast {
		return env.SSI
	}
	return ssi.NewSettings(append(o.SSI, ssi.Arg{Key: "boot_rsh_fast", Value: "1"}), env.Environ)
}

// Plan chooses the boot module and reads and resolves the schema's nodes.
// Only lamboot needs an origin that the other nodes can reach (lamwipe and
// recon pass reachable false).
func (o *SchemaOptions) Plan(ctx context.Context, env *lamcli.Env, reachable bool) (Module, []Node, *ssi.Settings, error) {
	schema, err := o.SchemaArg()
	if err != nil {
		return nil, nil, nil, err
	}
	s := o.Settings(env)
	mod, nodes, err := Plan(ctx, s, schema, env.Getenv, env.Paths.Sysconfdir, o.Names || !reachable, env.Stderr, env.Tool.Name)
	return mod, nodes, s, err
}
