package main

import (
	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/ssi"
)

func sarg(k, v string) ssi.Arg { return ssi.Arg{Key: k, Value: v} }

// settingsWith resolves SSI parameters with extra command-line arguments
// (those implied by options such as -b).
func settingsWith(env *lamcli.Env, args []ssi.Arg) *ssi.Settings {
	return ssi.NewSettings(args, env.Environ)
}
