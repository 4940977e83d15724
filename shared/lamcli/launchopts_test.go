package lamcli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/lamgo/lam/shared/launch"
	"github.com/lamgo/lam/shared/msg"
	"github.com/lamgo/lam/shared/nodespec"
	"github.com/lamgo/lam/shared/wire"
)

// launch's typed errors end as LAM's messages and exit codes.
func TestLaunchExit(t *testing.T) {
	lamdErr := func(code int32) error { return fmt.Errorf("spawn: %w", &wire.Error{Code: code, Msg: "refused"}) }
	tests := []struct {
		err    error
		code   int
		stderr string
	}{
		{&launch.UsageError{Err: errors.New("no program to run")}, ExitUsage, "toy: no program to run\n"},
		{&launch.StartError{Program: "./a", Node: "n0 (o)", Err: lamdErr(wire.CodeNoEntry)}, int(wire.CodeNoEntry), "toy: cannot start ./a on n0 (o): No such file or directory\n"},
		{&launch.StartError{Program: "./a", Node: "n9", Err: &nodespec.NodeError{ID: 9}}, ExitBadNode, "toy: cannot start ./a on n9: invalid node\n"},
		{&launch.StartError{Program: "./a", Node: "n1", Err: errors.New("boom")}, 1, "toy: cannot start ./a on n1: boom\n"},
		{&launch.ExitError{Proc: "12 (n0)", Status: 3}, 3, "12 (n0) exited with status 3\n"},
		{&launch.ExitError{Proc: "rank 1 (pid 12) on n0", Signal: 9}, 9, "rank 1 (pid 12) on n0 exited due to signal 9\n"},
		{&launch.AbortError{Rank: 1, Code: 0x105, Msg: "bad"}, 5, "toy: rank 1 called MPI_Abort (bad); the job is stopped\n"},
		{&launch.AbortError{Rank: -1, Code: 1}, 1, "toy: a rank called MPI_Abort\n"},
		{&launch.MPIError{Err: lamdErr(7)}, 1, "toy: spawn: refused\n"},
		{&launch.InterruptedError{Cause: &InterruptError{Signal: syscall.SIGTERM}}, 143, "toy: interrupted; the processes were killed\n"},
		{&launch.InterruptedError{Cause: context.Canceled}, 130, "toy: interrupted; the processes were killed\n"},
		{fmt.Errorf("schedule: %w", nodespec.ErrBadNode), ExitBadNode, "toy: schedule: invalid node\n"},
		{fmt.Errorf("12 (n1): %w", lamdErr(202)), 202, "toy: 12 (n1): spawn: refused\n"},
		{&launch.StartError{Program: "./a", Node: "n0 (o)", Dir: "/f", Err: &os.PathError{Op: "chdir", Path: "/f", Err: syscall.ENOTDIR}}, 20, "toy: cannot start ./a on n0 (o): working directory /f: not a directory\n"},
		{&launch.StartError{Program: "./a", Node: "n1", Dir: "/d", Err: lamdErr(wire.CodeNoEntry)}, 2, "toy: cannot start ./a on n1: working directory /d: no such file or directory\n"},
		{&launch.CapacityError{Node: "n0 (o)", Want: 9, Capacity: launch.Capacity{PerNode: 8, Why: launch.ParamMaxPerNode}}, 1, "toy: n0 (o) would run 9 processes; its lamd can run at most 8 (launch_max_per_node)\n"},
		{&launch.LostError{Procs: []*launch.Proc{{Rank: 3, Node: 1}}, Err: lamdErr(wire.CodeDeadNode)}, 202, "toy: rank 3 (n1): spawn: refused\n"},
	}
	for _, tt := range tests {
		var e bytes.Buffer
		env := &Env{Tool: toyTool, Stderr: &e}
		code := finish(context.Background(), toyTool, env, LaunchExit(env, tt.err))
		got := e.String()
		if i := strings.Index(got, msg.Rule); i >= 0 {
			got = got[:i] // the usage text after a usage error
		}
		if code != tt.code || got != tt.stderr {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", tt.err, code, got, tt.code, tt.stderr)
		}
	}
}
