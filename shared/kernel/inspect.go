package kernel

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/wire"
)

// inspectTimeout bounds how long a lamd waits for its MPI processes to
// answer an Inspect: a process answers from a goroutine of its own, so
// only a stopped or overloaded one is late.
const inspectTimeout = 2 * time.Second

// queryEvents are the events a lamd receives its processes' answers on:
// above every pid (tools' events) and outside the ranks' (negative).
const queryEventBase = 1 << 30

var queryEvent atomic.Int32

// mpiClient is an MPI process attached to this lamd.
type mpiClient struct {
	pid  int
	name string
}

// inspect serves an Inspect (mpitask, mpimsg): it asks every MPI process
// attached here what it is doing, adds the ranks it started that are not
// (yet, or any more) attached, and lists the out-of-band queue.
func (k *Kernel) inspect(r *request, m *wire.Inspect) {
	k.mu.Lock()
	attached := map[int]mpiClient{}
	for c := range k.clients {
		// counted is set under k.mu once the client said hello (admit),
		// after its role, name and credentials: only then are they read.
		if c.counted && c.role == wire.RoleMPI {
			attached[c.cred.PID] = mpiClient{pid: c.cred.PID, name: c.name}
		}
	}
	k.mu.Unlock()

	out := &wire.Inspection{Node: k.cfg.Self}
	started := map[int]*proc{}
	for _, p := range k.procs.match("", 0) {
		started[p.pid] = p
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	deadline := time.Now().Add(inspectTimeout)
	for _, c := range attached {
		ip := wire.InspectedProc{PID: int32(c.pid), Name: c.name, Rank: -1, State: wire.ProcSilent}
		if p := started[c.pid]; p != nil {
			ip.Rank, ip.Job, ip.Name = int32(p.rank), p.job, p.name
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if st := k.ask(r.ctx, c.pid, m, deadline); st != nil {
				ip.State, ip.Status = wire.ProcAnswered, st
			}
			mu.Lock()
			out.Procs = append(out.Procs, ip)
			mu.Unlock()
		}()
	}
	wg.Wait()
	for pid, p := range started {
		if _, ok := attached[pid]; ok || p.rank < 0 {
			continue
		}
		state := wire.ProcStarting
		if p.leftMPI.Load() {
			state = wire.ProcFinalized
		}
		out.Procs = append(out.Procs, wire.InspectedProc{PID: int32(pid), Name: p.name, Rank: int32(p.rank), Job: p.job, State: state})
	}
	slices.SortFunc(out.Procs, func(a, b wire.InspectedProc) int {
		if a.Job != b.Job {
			return strings.Compare(a.Job, b.Job)
		}
		if a.Rank != b.Rank {
			return int(a.Rank - b.Rank)
		}
		return int(a.PID - b.PID)
	})
	if len(out.Procs) > wire.MaxInspectProcs {
		out.Procs = out.Procs[:wire.MaxInspectProcs]
	}
	if m.Msgs {
		out.Queue, out.More = k.oob.list(int(m.MaxMsgs))
	}
	r.finish(out)
}

// ask sends process pid a query through the out-of-band queue and waits
// for its answer until deadline. It returns nil when none came.
func (k *Kernel) ask(ctx context.Context, pid int, m *wire.Inspect, deadline time.Time) []byte {
	ev := queryEventBase + queryEvent.Add(1)&(1<<29-1)
	q := &jobwire.Query{ReplyEvent: ev, ReplyType: jobwire.TypeStatus, Deadline: deadline.UnixNano(), Msgs: m.Msgs, MaxMsgs: m.MaxMsgs}
	if !k.oob.put(&wire.Msg{From: k.cfg.Self, Event: jobwire.RankEvent(pid), Type: jobwire.TypeQuery, Data: q.Encode()}) {
		return nil
	}
	msg, w := k.oob.take(ev, jobwire.TypeStatus, false, false)
	if msg != nil {
		return msg.Data
	}
	if w == nil {
		return nil
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	select {
	case msg := <-w.ch:
		return msg.Data
	case <-ctx.Done():
		k.oob.cancel(w)
		// The process did not take the query: take it back, so it does
		// not answer a question nobody waits for. An answer that comes
		// after all is dropped by the process itself (past the deadline)
		// or taken here.
		k.oob.take(jobwire.RankEvent(pid), jobwire.TypeQuery, false, true)
		k.oob.take(ev, jobwire.TypeStatus, false, true)
		return nil
	}
}

// list returns up to max queued messages (and whether there are more),
// leaving out the lamd's own questions and answers.
func (q *oobQueue) list(max int) ([]wire.QueuedMsg, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []wire.QueuedMsg
	for i, m := range q.msgs {
		if m.Event >= queryEventBase || (m.Event < 0 && m.Type == jobwire.TypeQuery) {
			continue
		}
		if len(out) >= max {
			return out, true
		}
		head := m.Data[:min(len(m.Data), wire.MaxInspectHead)]
		out = append(out, wire.QueuedMsg{Seq: int32(i + 1), From: m.From, Event: m.Event, Type: m.Type,
			Len: int32(len(m.Data)), Head: slices.Clone(head)})
	}
	return out, false
}

// rankOf reads a rank's number from its start environment (mpirun's
// LAMRANK), or -1.
func rankOf(env []string) int {
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, jobwire.EnvRank+"="); ok {
			if r, err := strconv.Atoi(v); err == nil && r >= 0 {
				return r
			}
		}
	}
	return -1
}

// leftMPI records that MPI process pid detached from this lamd (after
// MPI_Finalize, or dying): if it is one this lamd started and it still
// runs, mpitask shows it as finalized.
func (k *Kernel) leftMPI(c *client) {
	if c.role != wire.RoleMPI || c.cred.PID <= 0 {
		return
	}
	for _, p := range k.procs.match("", c.cred.PID) {
		p.leftMPI.Store(true)
	}
}

// progName is the program's name as mpitask shows it.
func progName(argv []string) string { return filepath.Base(argv[0]) }
