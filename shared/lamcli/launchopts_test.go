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

// LAM 7.1.4's words (lam-helpfile, mpirun:abnormal-exit and mpirun:no-init).
const (
	abnormalExit = `One of the processes started by mpirun has exited with a nonzero exit
code.  This typically indicates that the process finished in error.
If your process did not finish in error, be sure to include a "return
0" or "exit(0)" in your C code before exiting the application.

`
	noInit = `It seems that [at least] one of the processes that was started with
mpirun did not invoke MPI_INIT before quitting (it is possible that
more than one process did not invoke MPI_INIT -- mpirun was only
notified of the first one, which was on node n0).

mpirun can *only* be used with MPI programs (i.e., programs that
invoke MPI_INIT and MPI_FINALIZE).  You can use the "lamexec" program
to run non-MPI programs over the lambooted nodes.
`
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
		{&launch.ExitError{Proc: "12 (n0)", Status: 3}, 3, ""}, // lamexec's line goes to stdout
		{&launch.ExitError{Proc: "rank 1 (pid 12) on n0", Signal: 9, PID: 12, Node: 0, Addr: "127.0.0.1", MPI: true}, 9, msg.Rule + "\n" + abnormalExit + "PID 12 failed on node n0 (127.0.0.1) due to signal 9.\n" + msg.Rule + "\n"},
		{&launch.ExitError{Status: 3, PID: 12, Node: 1, Addr: "10.0.0.2", MPI: true}, 3, msg.Rule + "\n" + abnormalExit + "PID 12 failed on node n1 (10.0.0.2) with exit status 3.\n" + msg.Rule + "\n"},
		{&launch.NoInitError{Rank: 1, PID: 12, Node: 0, Program: "/bin/true"}, 252, msg.Rule + "\n" + noInit + msg.Rule + "\n"},
		{&launch.NoFinalizeError{Rank: 1, PID: 12, Node: 0, Addr: "127.0.0.1"}, 1, "PID 12 failed on node n0 (127.0.0.1) with exit status 0.\n" + msg.Rule + "\n"},
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
		var o, e bytes.Buffer
		env := &Env{Tool: toyTool, Stdout: &o, Stderr: &e}
		code := finish(context.Background(), toyTool, env, LaunchExit(env, tt.err))
		got := e.String()
		if i := strings.Index(got, msg.Rule); i > 0 {
			got = got[:i] // the usage text after a usage error
		}
		if _, ok := tt.err.(*launch.NoFinalizeError); ok {
			got = got[strings.Index(got, "PID "):]
		}
		var xe *launch.ExitError
		if errors.As(tt.err, &xe) && !xe.MPI && o.String() != xe.Error()+"\n" {
			t.Errorf("%v: stdout %q, want LAM's line", tt.err, o.String())
		}
		if code != tt.code || got != tt.stderr {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", tt.err, code, got, tt.code, tt.stderr)
		}
	}
}
