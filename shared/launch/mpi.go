package launch

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/lamclient"
)

// MPIOptions are mpirun's own options.
type MPIOptions struct {
	StatusAll    bool   // -sa: print every process's exit status
	StatusFail   bool   // -sf: print them when the job fails
	StatusPrefix string // -p: the prefix of those lines
	TagOutput    bool   // -tag-output: prefix every forwarded line with [rank]
	// VeryVerbose (-vv) prints LAM's progress lines on Stdout: "mpirun:
	// waiting for MPI_FINALIZE from N processes", "mpirun: got
	// MPI_FINALIZE from n0/PID 1234".
	VeryVerbose bool
	// MaxClients is the most local clients a lamd serves at once
	// (boot_base_max_clients; 0: no such cap). Every rank is a client of
	// its node's lamd, so a job with more ranks on a node is refused
	// before it starts instead of failing in MPI_Init.
	MaxClients int
	// CR are the job's checkpoint settings (see CRSettings).
	CR CROptions
}

// LAMEnviron returns the LAM_MPI_* variables of environ that mpirun passes
// on to the ranks (all but LAM_MPI_SESSION_PREFIX, which is per node).
func LAMEnviron(environ []string) []string {
	var out []string
	for _, kv := range environ {
		if strings.HasPrefix(kv, "LAM_MPI_") && !strings.HasPrefix(kv, "LAM_MPI_SESSION_PREFIX=") {
			out = append(out, kv)
		}
	}
	return out
}

// RunMPI is mpirun: Run, plus the MPI wire-up. Once every rank has called
// MPI_Init it hands each the job's process table; it reports the first
// rank that fails, calls MPI_Abort, never calls MPI_Init, or exits without
// MPI_Finalize.
func RunMPI(ctx context.Context, cl *lamclient.Client, o Options, m MPIOptions) error {
	o.maxClients = m.MaxClients
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return err
	}
	w := newWireup(jobwire.JobID{PID: int32(os.Getpid())}, secret)
	if m.VeryVerbose {
		w.verbose = o.Stdout
	}
	w.cr = &crState{opts: m.CR, lines: o, noCR: map[int]string{}, stopped: map[int]bool{}}
	np := 0
	h := hooks{
		Count: func(n int, self int32) {
			np, w.id.Node = n, self
			if m.CR.Dir != "" {
				w.cr.jobDir = filepath.Join(m.CR.Dir, jobDirName(self, os.Getpid(), time.Now()))
			}
		},
		EnvFor: func(rank, app int) []string {
			return []string{jobwire.EnvRank + "=" + fmt.Sprint(rank), jobwire.EnvWorld + "=" + fmt.Sprint(np), jobwire.EnvJob + "=" + w.id.String(),
				jobwire.EnvAppNum + "=" + fmt.Sprint(app)}
		},
		Started:  w.start,
		Exited:   w.exited,
		Failed:   w.failed,
		Describe: func(p *Proc) string { return fmt.Sprintf("rank %d (pid %d) on n%d", p.Rank, p.PID, p.Node) },
		MPI:      true,
	}
	if m.TagOutput {
		h.Tag = func(p *Proc) string { return fmt.Sprintf("[%d] ", p.Rank) }
	}
	if m.StatusAll || m.StatusFail {
		h.Finished = func(procs []*Proc, failed bool) {
			if m.StatusAll || failed {
				printStatus(o.Stdout, m.StatusPrefix, procs)
			}
		}
	}
	err := run(ctx, cl, o, h)
	w.waitCR()
	return err
}

// The bounds of mpirun's waits for reports that travel apart from a rank's
// exit (through the lamds, not with the exit).
const (
	// abortGrace is how long a failed rank's MPI_Abort report is awaited:
	// the rank sends it before it exits.
	abortGrace = 500 * time.Millisecond
	// finalizeGrace is how long a rank that exited 0 may take to have its
	// MPI_Finalize report arrive.
	finalizeGrace = 2 * time.Second
	// deadPeerGrace is how long an MPI_Abort called on seeing another
	// rank die waits for that rank's exit (see blame): both travel
	// through the lamds, the exit by another way than the abort.
	deadPeerGrace = 3 * time.Second
)

// wireup is mpirun's side of the MPI wire-up: what each rank has reported.
type wireup struct {
	id     jobwire.JobID
	secret []byte

	mu        sync.Mutex
	changed   chan struct{} // closed, and replaced, on every report
	inited    map[int]bool
	finalized map[int]bool
	aborted   map[int]*AbortError // the report of a rank that called MPI_Abort
	tableSent bool                // every rank called MPI_Init and has the table
	cr        *crState
	crDone    chan struct{} // closed when the checkpoint coordinator ends

	verbose io.Writer // -vv: LAM's progress lines go here (nil: none)
}

func newWireup(id jobwire.JobID, secret []byte) *wireup {
	return &wireup{id: id, secret: secret, changed: make(chan struct{}),
		inited: map[int]bool{}, finalized: map[int]bool{}, aborted: map[int]*AbortError{},
		cr: &crState{noCR: map[int]string{}, stopped: map[int]bool{}}}
}

// record applies a report and wakes those waiting for one.
func (w *wireup) record(f func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f()
	close(w.changed)
	w.changed = make(chan struct{})
}

// await waits until cond, read under the lock, holds, for at most d or
// until ctx ends; it reports whether cond held.
func (w *wireup) await(ctx context.Context, d time.Duration, cond func() bool) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		w.mu.Lock()
		ok, changed := cond(), w.changed
		w.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-changed:
		case <-timer.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// start runs the wire-up (run) and, beside it, the checkpoint
// coordinator (serveCR) until the wire-up is over: every rank finalized,
// or a checkpoint with Stop ended the job.
func (w *wireup) start(ctx context.Context, j *Job) error {
	runCtx, endRun := context.WithCancel(ctx)
	defer endRun()
	crCtx, endCR := context.WithCancel(ctx)
	crErr := make(chan error, 1)
	w.mu.Lock()
	w.crDone = make(chan struct{})
	w.mu.Unlock()
	go func() {
		defer close(w.crDone)
		crErr <- w.serveCR(crCtx, j, endRun)
	}()
	err := w.run(runCtx, j)
	endCR()
	if cerr := <-crErr; err == nil {
		err = cerr
	}
	return err
}

// waitCR waits for the checkpoint coordinator to end (the job's failure
// ends it): a checkpoint it was taking is then discarded and answered.
func (w *wireup) waitCR() {
	w.mu.Lock()
	done := w.crDone
	w.mu.Unlock()
	if done != nil {
		<-done
	}
}

// run collects every rank's Init, sends every rank the table, then
// follows the ranks' Finalize and Abort messages.
func (w *wireup) run(ctx context.Context, j *Job) error {
	cl := j.Client()
	n := len(j.Procs)
	procs := make([]jobwire.Proc, n)
	var rpiName string
	for got := 0; got < n; got++ {
		m, err := cl.Recv(ctx, w.id.PID, jobwire.TypeInit|jobwire.TypeAbort)
		if err != nil {
			return nil // the job is ending; the exits tell why
		}
		if m.Type&jobwire.TypeAbort != 0 {
			return w.abort(m.Data)
		}
		in, err := jobwire.DecodeInit(m.Data)
		if err != nil || int(in.Rank) >= n || procs[in.Rank].PID != 0 {
			return &MPIError{Err: fmt.Errorf("a bad MPI_Init report from n%d: %v", m.From, err)}
		}
		if rpiName == "" {
			rpiName = in.RPI
		}
		procs[in.Rank] = jobwire.Proc{Node: in.Node, PID: in.PID, Addr: in.Addr, Where: in.Where}
		w.record(func() {
			w.inited[int(in.Rank)] = true
			w.cr.noCR[int(in.Rank)] = in.NoCR
		})
	}
	if w.cr.opts.Requested {
		for r, p := range procs {
			if why := w.cr.noCR[r]; why != "" {
				return &NoCRError{Rank: r, Node: p.Node, Why: why}
			}
		}
	}
	// From here on a checkpoint may be asked: its requests reach each
	// rank after the table.
	w.record(func() { w.tableSent, w.cr.rpi = true, rpiName })
	table := (&jobwire.Table{RPI: rpiName, Secret: w.secret, Procs: procs}).Encode()
	for _, p := range procs {
		if err := cl.Send(ctx, p.Node, jobwire.RankEvent(int(p.PID)), jobwire.TypeTable, table); err != nil {
			return &MPIError{Err: fmt.Errorf("send the process table: %w", err)}
		}
	}
	if w.verbose != nil {
		fmt.Fprintf(w.verbose, "mpirun: waiting for MPI_FINALIZE from %d processes\n", n)
	}
	for done := 0; done < n; {
		m, err := cl.Recv(ctx, w.id.PID, jobwire.TypeFinalize|jobwire.TypeAbort)
		if err != nil {
			return nil
		}
		if m.Type&jobwire.TypeAbort != 0 {
			return w.abort(m.Data)
		}
		rank, err := jobwire.DecodeRank(m.Data)
		if err != nil {
			continue
		}
		fresh := false
		w.record(func() {
			if !w.finalized[int(rank)] {
				w.finalized[int(rank)] = true
				done++
				fresh = true
			}
		})
		if fresh && w.verbose != nil && rank >= 0 && int(rank) < n {
			fmt.Fprintf(w.verbose, "mpirun: got MPI_FINALIZE from n%d/PID %d\n", procs[rank].Node, procs[rank].PID)
		}
	}
	return nil
}

func (w *wireup) abort(data []byte) error {
	a, err := jobwire.DecodeAbort(data)
	if err != nil {
		return &AbortError{Rank: -1, Code: 1, Dead: -1}
	}
	ae := &AbortError{Rank: int(a.Rank), Code: int(a.Code), Msg: a.Msg, Dead: int(a.Dead)}
	w.record(func() { w.aborted[ae.Rank] = ae })
	return ae
}

// failed reports a rank that exited with a non-zero status or a signal as
// the MPI_Abort it called, if it did: the report may arrive up to
// abortGrace after the exit. A rank whose MPI_Init report has not arrived
// by then never called MPI_Init (or died in it): as LAM's mpirun, it is
// reported so (*NoInitError), whatever its status.
func (w *wireup) failed(ctx context.Context, p *Proc) error {
	w.await(ctx, abortGrace, func() bool { return w.aborted[p.Rank] != nil })
	w.mu.Lock()
	defer w.mu.Unlock()
	if ae := w.aborted[p.Rank]; ae != nil {
		return ae
	}
	if !w.inited[p.Rank] && ctx.Err() == nil {
		return &NoInitError{Rank: p.Rank, PID: p.PID, Node: p.Node, Program: p.Program}
	}
	return nil
}

// exited checks a rank that exited with status 0: its Finalize (or its
// answer to a checkpoint with Stop, after which it exits without
// finalizing) may still be on its way through the lamd.
func (w *wireup) exited(ctx context.Context, p *Proc) error {
	if w.await(ctx, finalizeGrace, func() bool { return w.finalized[p.Rank] || w.cr.stopped[p.Rank] }) {
		return nil
	}
	if ctx.Err() != nil {
		return &InterruptedError{Cause: context.Cause(ctx)}
	}
	w.mu.Lock()
	inited := w.inited[p.Rank]
	w.mu.Unlock()
	if !inited {
		return &NoInitError{Rank: p.Rank, PID: p.PID, Node: p.Node, Program: p.Program}
	}
	return &NoFinalizeError{Rank: p.Rank, PID: p.PID, Node: p.Node, Addr: p.Addr}
}

// printStatus prints LAM's -sa/-sf lines: prefix, node, pid, whether a
// signal killed it, and its exit status or signal. As LAM 7.1.4's, the
// processes that ended by themselves come first, then those mpirun
// stopped after a failure, which LAM reports as "0 1" (exit status 1).
func printStatus(w io.Writer, prefix string, procs []*Proc) {
	line := func(p *Proc, killed, status int) {
		fmt.Fprintf(w, "%s n%d %d %d %d\n", prefix, p.Node, p.PID, killed, status)
	}
	for _, p := range procs {
		switch {
		case p.Exit == nil:
		case p.Exit.Signal != 0:
			line(p, 1, int(p.Exit.Signal))
		default:
			line(p, 0, int(p.Exit.Status))
		}
	}
	for _, p := range procs {
		if p.Exit == nil {
			line(p, 0, 1)
		}
	}
}
