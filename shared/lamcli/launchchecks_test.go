package lamcli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/launch"
)

// launcher is a tool with LaunchOptions whose job never runs: with no lamd
// in its session, a command line that passes the checks ends in the
// no-lamd exit.
type launcher struct {
	LaunchOptions `embed:""`
	ran           bool
}

func (c *launcher) Run(ctx context.Context, env *Env) error {
	return c.Launch(ctx, env, func(context.Context, *lamclient.Client, launch.Options) error {
		c.ran = true
		return nil
	})
}

var launcherTool = &Tool{Name: "mpirun", Syntax: LaunchSyntax(nil), NoDaemonExit: ExitNoKernel}

// Counts and options are refused where they enter, with LAM's usage exit
// code, before any lamd is asked.
func TestLaunchChecks(t *testing.T) {
	tests := []struct {
		args   string
		code   int
		stderr string
	}{
		{"-np 0 ./hello", ExitUsage, "mpirun: -np needs a positive integer, not 0\n"},
		{"-np -1 ./hello", ExitUsage, "mpirun: -np needs a positive integer, not -1\n"},
		{"-c 0 ./hello", ExitUsage, "mpirun: -c needs a positive integer, not 0\n"},
		{"-c -1 ./hello", ExitUsage, "mpirun: -c needs a positive integer, not -1\n"},
		{"-np 1048577 ./hello", ExitUsage, "mpirun: -np 1048577: more than 1048576 processes\n"},
		{"-c 2000000000 ./hello", ExitUsage, "mpirun: -c 2000000000: more than 1048576 processes\n"},
		{"-np 2 -c 2 ./hello", ExitUsage, "mpirun: give -np or -c, not both\n"},
		// LAM's framed usage alone, no line naming the option (LAM 7.1.4).
		{"-frob -np 2 ./hello", ExitUsage, strings.Repeat("-", 77) + "\nSynopsis:"},
		{"--frob ./hello", ExitUsage, strings.Repeat("-", 77) + "\nSynopsis:"},
		{"-np 1048576 ./hello", ExitNoKernel, ""},
		{"-c 1 ./hello", ExitNoKernel, ""},
		{"N ./hello", ExitNoKernel, ""},
	}
	for _, tt := range tests {
		var o, e bytes.Buffer
		env := &Env{Stdout: &o, Stderr: &e, Euid: 1000, Environ: []string{"LAM_MPI_SESSION_PREFIX=" + t.TempDir(), "LAM_MPI_SESSION_SUFFIX="}}
		c := &launcher{}
		code := Run(context.Background(), launcherTool, c, strings.Fields(tt.args), env)
		if code != tt.code || !strings.HasPrefix(e.String(), tt.stderr) || c.ran {
			t.Errorf("mpirun %s: exit %d, stderr %q; want %d, %q", tt.args, code, e.String(), tt.code, tt.stderr)
		}
	}
}
