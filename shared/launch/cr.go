package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/lamgo/lam/shared/crset"
	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/ssi"
	"github.com/lamgo/lam/shared/wire"
)

// The SSI parameters of mpirun's side of checkpoint/restart (the cr
// framework's base; the modules' own live with the library).
const (
	// ParamCRDir is where mpirun keeps checkpoint sets: a directory per
	// job, made owner-only. LAM's cr_blcr_base_dir played this part (and
	// LAM 7.1.1's manual called it cr_base_dir). It must be on a file
	// system every node of the job sees at the same path.
	ParamCRDir = "cr_base_dir"
	// ParamCRKeep is how many of a job's newest sets are kept (0: all).
	ParamCRKeep = "cr_base_keep"
	// ParamCRPeriod takes a checkpoint every so often (0: never);
	// mpirun's -cr-period sets it too.
	ParamCRPeriod = "cr_base_period"
	// ParamCRTimeout bounds one checkpoint: every rank must have written
	// its state by then, or the set is discarded.
	ParamCRTimeout = "cr_base_timeout"
	// ParamCRRestartArgs is LAM's cr_restart_args: the mpirun arguments
	// lamrestart runs again (LAM's self module).
	ParamCRRestartArgs = "cr_restart_args"
)

// DefaultCRDir is the sets' directory under $HOME when ParamCRDir is not
// set.
const DefaultCRDir = "lam-checkpoints"

func init() {
	ssi.RegisterParams(ssi.CR, "base",
		ssi.Param{Name: "dir", Type: ssi.String,
			Help: "Directory of checkpoint sets, one subdirectory per job (default $HOME/" + DefaultCRDir + "); every node must see it at the same path"},
		ssi.Param{Name: "keep", Default: "0", Type: ssi.Int,
			Help: "How many of a job's newest checkpoint sets mpirun keeps (0: all)"},
		ssi.Param{Name: "period", Default: "0", Type: ssi.Duration,
			Help: "Take a checkpoint of the job this often, in seconds or as a Go duration (0: only when asked)"},
		ssi.Param{Name: "timeout", Default: "60", Type: ssi.Duration,
			Help: "Longest a checkpoint may take before mpirun gives it up and discards its set"},
	)
	ssi.RegisterParams(ssi.CR, "",
		ssi.Param{Name: "restart_args", Type: ssi.String,
			Help: "lamrestart: the mpirun arguments to run again, as LAM's self module did (crrestart takes a checkpoint set instead)"},
	)
}

// CROptions are mpirun's checkpoint settings.
type CROptions struct {
	// Requested says the job was started with a cr module asked for
	// (-ssi cr self): a rank that cannot be checkpointed then ends the
	// job at MPI_Init (*NoCRError).
	Requested bool
	// Dir is where the job's directory of sets is made.
	Dir string
	// Keep is how many sets to keep (0: all).
	Keep int
	// Period takes a checkpoint this often (0: never).
	Period time.Duration
	// Timeout bounds one checkpoint asked without a deadline (periodic
	// ones); 0 means a minute.
	Timeout time.Duration
	// SSI are mpirun's -ssi parameters (key=value), recorded in each set.
	SSI []string
	// Log receives a line for each checkpoint taken (nil: none) and each
	// periodic checkpoint that fails.
	Log io.Writer
}

// NoCRError is a job started with a cr module whose rank cannot be
// checkpointed (its rpi or coll module cannot be drained): mpirun shows
// LAM's mpirun:no-cr-support message.
type NoCRError struct {
	Rank int
	Node int32
	Why  string
}

func (e *NoCRError) Error() string {
	return fmt.Sprintf("rank %d on n%d cannot be checkpointed: %s", e.Rank, e.Node, e.Why)
}

// CheckpointError is a checkpoint that was not taken: Why says why, and
// the previous sets are untouched.
type CheckpointError struct {
	Seq int
	Why error
}

func (e *CheckpointError) Error() string {
	return fmt.Sprintf("checkpoint %d not taken: %v", e.Seq, e.Why)
}

func (e *CheckpointError) Unwrap() error { return e.Why }

// crState is the checkpoint side of a running job: what the wire-up
// learned (under wireup.mu) and the coordinator's own numbering.
type crState struct {
	opts   CROptions
	lines  Options // the job as mpirun was given it
	jobDir string
	seq    int
	// noCR holds each rank's reason it cannot be checkpointed ("": it
	// can); rpi the module the job chose.
	noCR map[int]string
	rpi  string
	// stopped holds the ranks that wrote a checkpoint asked with Stop:
	// their exit with status 0 is their end, not a missing MPI_Finalize.
	stopped map[int]bool
	// ended says a checkpoint with Stop was taken: the job is over.
	ended bool
}

// jobDirName names a job's directory of sets: its node, mpirun's pid and
// its start time, so that jobs never share one.
func jobDirName(node int32, pid int, start time.Time) string {
	return fmt.Sprintf("n%d-%d-%s", node, pid, start.UTC().Format("20060102T150405Z"))
}

// serveCR answers checkpoint requests and takes the periodic checkpoints
// until ctx ends. A request waits for the one before it (the lamd holds
// it meanwhile). It returns an error only when a checkpoint with Stop
// failed after some ranks had already stopped: the job cannot go on.
// end is called once a checkpoint with Stop succeeded.
func (w *wireup) serveCR(ctx context.Context, j *Job, end func()) error {
	cl := j.Client()
	reqs := make(chan *wire.Msg)
	go func() {
		defer close(reqs)
		for {
			m, err := cl.Recv(ctx, w.id.PID, jobwire.TypeCheckpoint)
			if err != nil {
				return
			}
			select {
			case reqs <- m:
			case <-ctx.Done():
				w.refuse(cl, m, 0, errors.New("the job is ending"))
				return
			}
		}
	}()
	var tick <-chan time.Time
	if p := w.cr.opts.Period; p > 0 {
		t := time.NewTicker(p)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick:
			if w.outsideMPI() {
				continue // the job is starting or finalizing: no warning for that
			}
			seq, dir, _, err := w.checkpoint(ctx, j, time.Now().Add(w.timeout()), false)
			w.logCR(seq, dir, err, true)
		case m, ok := <-reqs:
			if !ok {
				return nil
			}
			req, err := jobwire.DecodeCheckpoint(m.Data)
			if err != nil {
				continue // nobody to answer: the reply address is in what could not be read
			}
			if req.Deadline != 0 && time.Now().UnixNano() > req.Deadline {
				w.reply(cl, m.From, req, &jobwire.CheckpointReply{Err: "the request's deadline passed before mpirun could take it"})
				continue
			}
			deadline := time.Now().Add(w.timeout())
			if req.Deadline != 0 {
				deadline = time.Unix(0, req.Deadline)
			}
			seq, dir, drain, err := w.checkpoint(ctx, j, deadline, req.Stop)
			w.logCR(seq, dir, err, false)
			r := &jobwire.CheckpointReply{Seq: int32(seq), Dir: dir, Drain: drain}
			if err != nil {
				r.Err = err.Error()
			}
			w.reply(cl, m.From, req, r)
			if req.Stop {
				w.mu.Lock()
				stopped := len(w.cr.stopped)
				w.mu.Unlock()
				switch {
				case err == nil:
					end()
					return nil
				case stopped > 0:
					return &MPIError{Err: fmt.Errorf("a checkpoint with stop failed after %d ranks had stopped: %w", stopped, err)}
				}
			}
		}
	}
}

func (w *wireup) timeout() time.Duration {
	if t := w.cr.opts.Timeout; t > 0 {
		return t
	}
	return time.Minute
}

// logCR reports a checkpoint on the log: each one taken; a periodic one
// that failed (one asked by a tool is reported to the tool).
func (w *wireup) logCR(seq int, dir string, err error, periodic bool) {
	lw := w.cr.opts.Log
	switch {
	case lw == nil:
	case err == nil:
		fmt.Fprintf(lw, "mpirun: checkpoint %d written to %s\n", seq, dir)
	case periodic:
		fmt.Fprintf(lw, "mpirun: warning: periodic %v\n", err)
	}
}

func (w *wireup) reply(cl *lamclient.Client, node int32, req *jobwire.Checkpoint, r *jobwire.CheckpointReply) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = cl.Send(ctx, node, req.ReplyEvent, req.ReplyType, r.Encode())
}

// refuse answers a request read but not served.
func (w *wireup) refuse(cl *lamclient.Client, m *wire.Msg, seq int, why error) {
	if req, err := jobwire.DecodeCheckpoint(m.Data); err == nil {
		w.reply(cl, m.From, req, &jobwire.CheckpointReply{Seq: int32(seq), Err: why.Error()})
	}
}

// checkpoint takes one checkpoint set: it asks every rank for its state
// in a fresh partial directory, waits for every rank's answer until
// deadline, then commits the set (crset.Partial.Commit). On any failure
// the partial set is removed and the error says why.
func (w *wireup) checkpoint(ctx context.Context, j *Job, deadline time.Time, stop bool) (seq int, dir string, drain jobwire.DrainCounts, err error) {
	cl := j.Client()
	n := len(j.Procs)
	w.mu.Lock()
	seq = w.cr.seq + 1
	why := w.checkpointable(n)
	if why == nil {
		w.cr.seq = seq // an attempt: its number is used, whatever comes of it
	}
	w.mu.Unlock()
	defer func() {
		if err != nil {
			err = &CheckpointError{Seq: seq, Why: err}
		}
	}()
	if why != nil {
		return seq, "", drain, why
	}
	// CRDone answers of an earlier checkpoint that came too late.
	for {
		if _, err := cl.TryRecv(ctx, w.id.PID, jobwire.TypeCRDone); err != nil {
			break
		}
	}
	p, err := crset.Begin(w.cr.jobDir, seq)
	if err != nil {
		return seq, "", drain, fmt.Errorf("make the checkpoint directory: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			p.Discard()
		}
	}()
	dctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	req := (&jobwire.CRRank{Seq: int32(seq), Dir: p.Dir, Deadline: deadline.UnixNano(), Stop: stop}).Encode()
	// Every rank is asked at once: each send waits for the lamd's answer.
	asked := make(chan error, n)
	for _, pr := range j.Procs {
		go func() {
			if err := cl.Send(dctx, pr.Node, jobwire.RankEvent(int(pr.PID)), jobwire.TypeCRRank, req); err != nil {
				asked <- fmt.Errorf("ask rank %d (n%d): %w", pr.Rank, pr.Node, err)
				return
			}
			asked <- nil
		}()
	}
	var askErr error
	for range n {
		if err := <-asked; err != nil && askErr == nil {
			askErr = err
		}
	}
	if askErr != nil {
		return seq, "", drain, askErr
	}
	bytes := make([]int64, n)
	answered := make([]bool, n)
	for got := 0; got < n; {
		m, err := cl.Recv(dctx, w.id.PID, jobwire.TypeCRDone)
		if err != nil {
			if ctx.Err() != nil {
				return seq, "", drain, errors.New("the job ended during the checkpoint")
			}
			if dctx.Err() != nil {
				return seq, "", drain, fmt.Errorf("%s did not answer in time", rankList(missing(answered)))
			}
			return seq, "", drain, err
		}
		d, err := jobwire.DecodeCRDone(m.Data)
		if err != nil {
			return seq, "", drain, fmt.Errorf("a bad checkpoint answer from n%d: %w", m.From, err)
		}
		if int(d.Seq) != seq || int(d.Rank) >= n || answered[d.Rank] {
			continue // a late answer to an earlier checkpoint
		}
		if d.Err != "" {
			return seq, "", drain, fmt.Errorf("rank %d (n%d) refused the checkpoint: %s", d.Rank, m.From, d.Err)
		}
		answered[d.Rank], bytes[d.Rank] = true, d.Bytes
		drain.Add(d.Drain)
		got++
		if stop {
			w.record(func() { w.cr.stopped[int(d.Rank)] = true })
		}
	}
	desc := w.describe(j, bytes)
	dir, err = p.Commit(desc)
	if err != nil {
		return seq, "", drain, fmt.Errorf("write the set: %w", err)
	}
	committed = true
	if stop {
		w.record(func() { w.cr.ended = true })
	}
	if _, err := crset.Prune(w.cr.jobDir, w.cr.opts.Keep); err != nil && w.cr.opts.Log != nil {
		fmt.Fprintf(w.cr.opts.Log, "mpirun: warning: removing old checkpoint sets: %v\n", err)
	}
	return seq, dir, drain, nil
}

// checkpointable says why the job cannot be checkpointed now (nil: it
// can); the caller holds w.mu.
func (w *wireup) checkpointable(n int) error {
	if w.cr.opts.Dir == "" {
		return fmt.Errorf("no directory for checkpoint sets (set the SSI parameter %s)", ParamCRDir)
	}
	if !w.tableSent {
		return fmt.Errorf("the job is starting: %d of %d ranks have called MPI_Init", len(w.inited), n)
	}
	for r := range n {
		if why := w.cr.noCR[r]; why != "" {
			return fmt.Errorf("rank %d cannot be checkpointed: %s", r, why)
		}
	}
	for r := range n {
		if w.finalized[r] {
			return fmt.Errorf("the job is ending: rank %d has called MPI_Finalize", r)
		}
		if w.aborted[r] != nil {
			return fmt.Errorf("the job is ending: rank %d called MPI_Abort", r)
		}
	}
	if w.cr.ended {
		return errors.New("the job was stopped by its last checkpoint")
	}
	return nil
}

// outsideMPI says the ranks are not all between MPI_Init and
// MPI_Finalize: the job is starting, or a rank has finalized or aborted.
func (w *wireup) outsideMPI() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return !w.tableSent || len(w.finalized) > 0 || len(w.aborted) > 0
}

// missing lists the ranks not answered.
func missing(answered []bool) []int {
	var out []int
	for r, ok := range answered {
		if !ok {
			out = append(out, r)
		}
	}
	return out
}

// describe is the job description of a set.
func (w *wireup) describe(j *Job, bytes []int64) *crset.Desc {
	o := w.cr.lines
	d := &crset.Desc{Format: crset.Format, Time: time.Now().UTC(), Job: w.id.String(), World: len(j.Procs),
		Wd: o.Wd, ProgDir: o.ProgDir, SSI: w.cr.opts.SSI, Env: o.Env}
	if d.Wd == "" {
		d.Wd, _ = os.Getwd()
	}
	w.mu.Lock()
	d.RPI = w.cr.rpi
	w.mu.Unlock()
	for _, l := range o.Lines {
		a := crset.App{Program: l.Program, Args: l.Args, Wd: l.Wd, Source: l.Source}
		for _, s := range l.Where {
			a.Where = append(a.Where, s.String())
		}
		a.Export, _ = exportEnv(o.LookupEnv, l.Export)
		d.Apps = append(d.Apps, a)
	}
	for _, p := range j.Procs {
		if p.App >= 0 && p.App < len(d.Apps) {
			d.Apps[p.App].NP++
		}
		d.Ranks = append(d.Ranks, crset.Rank{Rank: p.Rank, App: p.App, Node: p.Node, PID: p.PID,
			Bytes: bytes[p.Rank], File: filepath.Base(jobwire.RankFile("", p.Rank))})
	}
	return d
}

// CRDir is the directory of checkpoint sets the settings name:
// cr_base_dir, else $HOME/lam-checkpoints (home is $HOME).
func CRDir(s *ssi.Settings, home string) (string, error) {
	if d := s.String(ParamCRDir); d != "" {
		return d, nil
	}
	if home == "" {
		return "", fmt.Errorf("no $HOME for the checkpoint sets: set the SSI parameter %s", ParamCRDir)
	}
	return filepath.Join(home, DefaultCRDir), nil
}

// CRSettings reads mpirun's checkpoint settings: the directory, the sets
// kept, the period and the timeout.
func CRSettings(s *ssi.Settings, home string) (CROptions, error) {
	var o CROptions
	var err error
	if o.Dir, err = CRDir(s, home); err != nil {
		return o, err
	}
	if o.Keep, err = s.Int(ParamCRKeep); err != nil {
		return o, err
	}
	if o.Keep < 0 {
		return o, fmt.Errorf("%s %d: give 0 (keep all) or more", ParamCRKeep, o.Keep)
	}
	if o.Period, err = s.Duration(ParamCRPeriod); err != nil {
		return o, err
	}
	if o.Timeout, err = s.Duration(ParamCRTimeout); err != nil {
		return o, err
	}
	if o.Period < 0 || o.Timeout < 0 {
		return o, fmt.Errorf("negative %s or %s", ParamCRPeriod, ParamCRTimeout)
	}
	if v, _ := s.Value(string(ssi.CR)); v != "" {
		o.Requested = true
	}
	for _, a := range s.Args() {
		o.SSI = append(o.SSI, a.Key+"="+a.Value)
	}
	return o, nil
}
