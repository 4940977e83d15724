package wireup

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/lamgo/lam/libmpi/internal/comm"
	"github.com/lamgo/lam/libmpi/internal/task"
	"github.com/lamgo/lam/shared/jobwire"
)

// answer serves the lamd's questions (mpitask, mpimsg) until the
// connection to the lamd closes: one goroutine blocked in the lamd for the
// next query, which answers from the call record (libmpi/internal/task)
// and, when asked, a copy of the unexpected queue. The process's own work
// goes on meanwhile.
func (p *Process) answer() {
	prog := filepath.Base(os.Args[0])
	pid := os.Getpid()
	for {
		m, err := p.client.Recv(context.Background(), jobwire.RankEvent(pid), jobwire.TypeQuery)
		if err != nil {
			return // the connection closed: Finalize, or the lamd went away
		}
		q, err := jobwire.DecodeQuery(m.Data)
		if err != nil {
			continue
		}
		deadline := time.Unix(0, q.Deadline)
		if time.Now().After(deadline) {
			continue // the lamd has given up on this one
		}
		st := p.status(prog, pid, q, deadline)
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		p.client.Send(ctx, m.From, q.ReplyEvent, q.ReplyType, st.Encode())
		cancel()
	}
}

// status is this process's answer to q.
func (p *Process) status(prog string, pid int, q *jobwire.Query, deadline time.Time) *jobwire.Status {
	st := &jobwire.Status{Rank: int32(p.Rank), Size: int32(p.Size), PID: int32(pid), Node: p.client.Node(),
		Program: prog, State: jobwire.StateRunning}
	st.Call = jobwire.Call{Peer: task.NoPeer, PeerW: -1, Tag: task.NoTag}
	if c, ok := task.Current(); ok {
		st.State = jobwire.StateBlocked
		st.Call = jobwire.Call{Func: c.Fn.Name(), Comm: commName(c.Context), Peer: c.Peer, PeerW: c.PeerW,
			Tag: c.Tag, Count: max(c.Count, 0), Datatype: c.Type.String()}
	}
	if q.Msgs && q.MaxMsgs > 0 {
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		pending, err := p.Engine.Unexpected(ctx, int(q.MaxMsgs)+1)
		cancel()
		if err == nil {
			if len(pending) > int(q.MaxMsgs) {
				pending, st.More = pending[:q.MaxMsgs], true
			}
			for _, m := range pending {
				st.Pending = append(st.Pending, jobwire.Pending{Comm: commName(m.Context), Source: m.Source,
					From: m.From, Tag: m.Tag, Bytes: int64(min(m.Bytes, 1<<62)), Sync: m.Sync, Coll: m.Context%2 == 1})
			}
		}
	}
	return st
}

// commName names a context as mpitask and mpimsg print it: WORLD and SELF
// (their collective traffic too), else the context id.
func commName(ctx uint32) string {
	switch ctx {
	case comm.WorldContext, comm.Hidden(comm.WorldContext):
		return "WORLD"
	case comm.SelfContext, comm.Hidden(comm.SelfContext):
		return "SELF"
	}
	return strconv.FormatUint(uint64(ctx), 10)
}
