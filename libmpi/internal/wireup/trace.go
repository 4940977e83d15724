package wireup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/lamgo/lam/libmpi/internal/task"
	"github.com/lamgo/lam/shared/jobwire"
)

// envTrace is the variable mpirun -t/-ton ("on") and -toff ("off") set in
// the ranks' environment.
const envTrace = "LAMTRACE"

// startTrace enables tracing when mpirun asked for it.
func startTrace() {
	switch os.Getenv(envTrace) {
	case "on", "1", "yes":
		task.EnableTracing(true)
	case "off", "0", "no":
		task.EnableTracing(false)
	}
}

// sendTrace sends this process's trace records to mpirun's node, where
// lamtrace collects them (a process that was not traced sends nothing).
func (p *Process) sendTrace(ctx context.Context) error {
	if !task.Traced() || p.client == nil {
		return nil
	}
	task.SetTracing(false)
	events, dropped := task.Events()
	tr := &jobwire.Trace{Job: p.job.String(), Rank: int32(p.Rank), Size: int32(p.Size), Node: p.client.Node(),
		PID: int32(os.Getpid()), Program: filepath.Base(os.Args[0]), Dropped: int32(min(dropped, 1<<31-1))}
	tr.Events = make([]jobwire.TraceEvent, len(events))
	for i, e := range events {
		comm := ""
		if e.Begin {
			comm = commName(e.Ctx)
		}
		tr.Events[i] = jobwire.TraceEvent{T: e.T, Begin: e.Begin, Func: e.Fn.Name(), Peer: max(e.Peer, -1), Tag: e.Tag, Comm: comm, Count: e.Count}
	}
	if err := p.client.Send(ctx, p.job.Node, jobwire.EventTrace, jobwire.TypeTrace, tr.Encode()); err != nil {
		return fmt.Errorf("send the trace (%s events) to mpirun's node: %w", strconv.Itoa(len(events)), err)
	}
	return nil
}
