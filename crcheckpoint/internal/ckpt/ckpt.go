// Package ckpt is crcheckpoint (and lamcheckpoint): its command line and
// its exchange with mpirun (jobwire.Checkpoint, CheckpointReply).
package ckpt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/launch"
	"github.com/lamgo/lam/shared/ssi"
)

// Exit codes beyond lamcli's.
const (
	// ExitNoProcess is ESRCH: no process of that pid on the node.
	ExitNoProcess = 3
	// ExitRefused: mpirun answered that it took no checkpoint.
	ExitRefused = 1
)

// replyType is the out-of-band type of mpirun's answer (the event is
// this process's pid): a bit no other message to a pid's event carries.
const replyType int32 = 1 << 12

// answerGrace is how much longer than the checkpoint's deadline the tool
// waits for mpirun's answer (mpirun answers at the deadline at the
// latest).
const answerGrace = 5 * time.Second

// Tool is the tool's description, under name (crcheckpoint or
// lamcheckpoint).
func Tool(name string) *lamcli.Tool {
	return &lamcli.Tool{Name: name, NoDaemonExit: lamcli.ExitNoDaemon,
		Syntax: lamcli.Syntax{Long: map[string]int{"ssi": 2, "pid": 1, "stop": 0, "timeout": 1}}}
}

// Cmd is the command line.
type Cmd struct {
	lamcli.SSIOption `embed:""`
	PID              string   `name:"pid" help:"mpirun's process id (or <node>:<pid>)."`
	Stop             bool     `name:"stop" help:"End the job once the checkpoint is taken."`
	Timeout          string   `name:"timeout" help:"Longest wait for the checkpoint (seconds or a Go duration; default cr_base_timeout)."`
	Args             []string `arg:"" optional:"" help:"mpirun's process id, or the job id <node>:<pid>."`
}

// Target is the job a checkpoint is asked of: mpirun's node (-1: the
// local node) and pid.
type Target struct {
	Node int32
	PID  int32
}

// ParseTarget reads "<pid>" or "<node>:<pid>" (the node as a number or
// n<number>, LAMJOBID's form).
func ParseTarget(s string) (Target, error) {
	t := Target{Node: -1}
	nodePart, pidPart, hasNode := strings.Cut(s, ":")
	if !hasNode {
		pidPart = nodePart
	} else {
		n, err := strconv.ParseInt(strings.TrimPrefix(nodePart, "n"), 10, 32)
		if err != nil || n < 0 {
			return t, fmt.Errorf("bad node in job id %q", s)
		}
		t.Node = int32(n)
	}
	p, err := strconv.ParseInt(pidPart, 10, 32)
	if err != nil || p <= 0 {
		return t, fmt.Errorf("bad process id %q", s)
	}
	t.PID = int32(p)
	return t, nil
}

// target reads the job from -pid or the argument.
func (c *Cmd) target() (Target, error) {
	var s string
	switch {
	case c.PID != "" && len(c.Args) > 0:
		return Target{}, lamcli.Usagef("give mpirun's pid once (-pid or an argument)")
	case len(c.Args) > 1:
		return Target{}, lamcli.Usagef("one job at a time: %s", strings.Join(c.Args, " "))
	case c.PID != "":
		s = c.PID
	case len(c.Args) == 1:
		s = c.Args[0]
	default:
		return Target{}, lamcli.Usage()
	}
	t, err := ParseTarget(s)
	if err != nil {
		return t, lamcli.Usagef("%v", err)
	}
	return t, nil
}

// timeout is -timeout, else cr_base_timeout.
func (c *Cmd) timeout(s *ssi.Settings) (time.Duration, error) {
	if c.Timeout == "" {
		d, err := s.Duration(launch.ParamCRTimeout)
		if err != nil {
			return 0, err
		}
		if d <= 0 {
			d = time.Minute
		}
		return d, nil
	}
	d, err := ssi.ParseDuration(c.Timeout)
	if err != nil || d <= 0 {
		return 0, lamcli.Usagef("-timeout %q: give a positive number of seconds or a Go duration", c.Timeout)
	}
	return d, nil
}

// checkModule refuses a cr module other than self (LAM's blcr).
func checkModule(s *ssi.Settings) error {
	v, _ := s.Value(string(ssi.CR))
	for _, m := range strings.Split(v, ",") {
		if m != "" && m != "self" {
			return lamcli.Exit(ExitRefused, fmt.Errorf("cr module %q is not available: LAM/Go checkpoints with the self module (-ssi cr self)", m))
		}
	}
	return nil
}

// Run asks mpirun for a checkpoint and prints the set's directory.
func (c *Cmd) Run(ctx context.Context, env *lamcli.Env) error {
	t, err := c.target()
	if err != nil {
		return err
	}
	if err := checkModule(env.SSI); err != nil {
		return err
	}
	timeout, err := c.timeout(env.SSI)
	if err != nil {
		return err
	}
	cl, err := env.Daemon(ctx, "", "")
	if err != nil {
		return err
	}
	defer cl.Close()
	if t.Node < 0 || t.Node == cl.Node() {
		t.Node = cl.Node()
		if err := alive(t.PID); err != nil {
			return err
		}
	}
	deadline := time.Now().Add(timeout)
	me := int32(os.Getpid())
	req := &jobwire.Checkpoint{ReplyEvent: me, ReplyType: replyType, Deadline: deadline.UnixNano(), Stop: c.Stop}
	if err := cl.Send(ctx, t.Node, t.PID, jobwire.TypeCheckpoint, req.Encode()); err != nil {
		return lamcli.RemoteExit(fmt.Errorf("send the request to n%d: %w", t.Node, err))
	}
	rctx, cancel := context.WithDeadline(ctx, deadline.Add(answerGrace))
	defer cancel()
	m, err := cl.Recv(rctx, me, replyType)
	if err != nil {
		if rctx.Err() != nil && ctx.Err() == nil {
			return lamcli.Exit(lamcli.ExitTimeout, fmt.Errorf("no answer from mpirun %d on n%d within %v (is it the mpirun of a running job of this universe?)", t.PID, t.Node, timeout+answerGrace))
		}
		return lamcli.RemoteExit(err)
	}
	r, err := jobwire.DecodeCheckpointReply(m.Data)
	if err != nil {
		return fmt.Errorf("a bad answer from n%d: %w", m.From, err)
	}
	if r.Err != "" {
		return lamcli.Exit(ExitRefused, errors.New(r.Err))
	}
	fmt.Fprintln(env.Stdout, r.Dir)
	return nil
}

// alive checks that a local process of pid exists and is ours.
func alive(pid int32) error {
	switch err := syscall.Kill(int(pid), 0); {
	case err == nil:
		return nil
	case errors.Is(err, syscall.ESRCH):
		return lamcli.Exit(ExitNoProcess, fmt.Errorf("no process %d on this node", pid))
	case errors.Is(err, syscall.EPERM):
		return lamcli.Exit(ExitRefused, fmt.Errorf("process %d belongs to another user", pid))
	default:
		return fmt.Errorf("process %d: %w", pid, err)
	}
}
