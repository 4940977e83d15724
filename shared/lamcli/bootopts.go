package lamcli

import (
	"context"
	"os"

	"github.com/lamgo/lam/shared/boot"
	"github.com/lamgo/lam/shared/session"
	"github.com/lamgo/lam/shared/ssi"
)

// SchemaOptions are the options of the tools that read a boot schema
// (lamboot, lamwipe, recon), for embedding in their grammars:
//
//	lamcli.SchemaOptions `embed:""`
type SchemaOptions struct {
	SSIOption `embed:""`
	Fast      bool     `short:"b" help:"Assume the remote shell is the local one."`
	Debug     bool     `short:"d" help:"Debugging output."`
	Verbose   bool     `short:"v" help:"Report progress."`
	Names     bool     `short:"l" help:"Pass host names, not addresses, to the nodes."`
	Prefix    string   `name:"prefix" help:"LAM/Go's installation directory on remote hosts."`
	Schema    []string `arg:"" optional:"" help:"Boot schema (default lam-bhost.def)."`
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
	return "", Usagef("give at most one boot schema")
}

// Settings resolves SSI parameters with what the options imply (-b sets
// boot_rsh_fast).
func (o *SchemaOptions) Settings(env *Env) *ssi.Settings {
	if !o.Fast {
		return env.SSI
	}
	return ssi.NewSettings(append(o.SSI, ssi.Arg{Key: "boot_rsh_fast", Value: "1"}), env.Environ)
}

// Plan chooses the boot module and reads and resolves the schema's nodes.
// Only lamboot needs an origin that the other nodes can reach (lamwipe and
// recon pass reachable false).
func (o *SchemaOptions) Plan(ctx context.Context, env *Env, reachable bool) (boot.Module, []boot.Node, *ssi.Settings, error) {
	schema, err := o.SchemaArg()
	if err != nil {
		return nil, nil, nil, err
	}
	s := o.Settings(env)
	cwd, _ := os.Getwd()
	mod, nodes, err := boot.Plan(ctx, boot.PlanConfig{
		Settings: s, Schema: schema, Getenv: env.Getenv, Cwd: cwd, Sysconfdir: env.Paths.Sysconfdir,
		Names: o.Names || !reachable,
		Warn:  func(w string) { env.Warnf("%s (line skipped)", w) },
	})
	return mod, nodes, s, err
}

// SessionOptions are -sessionprefix and -sessionsuffix, for embedding:
//
//	lamcli.SessionOptions `embed:""`
type SessionOptions struct {
	SessionPrefix string `name:"sessionprefix" help:"Where the session directory is."`
	SessionSuffix string `name:"sessionsuffix" help:"The session directory's suffix."`
}

// SessionLong lists the single-dash long options of SessionOptions.
var SessionLong = map[string]int{"sessionprefix": 1, "sessionsuffix": 1}

// Session resolves the session directory from the options and the
// environment.
func (o *SessionOptions) Session(env *Env) (session.Dir, error) {
	return env.Session(o.SessionPrefix, o.SessionSuffix)
}
