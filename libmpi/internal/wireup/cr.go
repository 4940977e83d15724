package wireup

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lamgo/lam/libmpi/cr"
	_ "github.com/lamgo/lam/libmpi/cr/all" // the cr modules a job chooses from
	"github.com/lamgo/lam/libmpi/internal/core"
	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/ssi"
)

// The rank's side of a checkpoint (jobwire/cr.go is the contract with
// mpirun). A goroutine waits for mpirun's CRRank; for each it quiesces the
// engine (every MPI call of the program waits, a blocked one between two
// polls), drains the links with every peer (core.Engine.Drain: the
// counters travel as typeDrain messages through the lamds), tells every
// peer it has drained, writes the process's state to its file in the set
// (the Checkpointer's Save: the library's state and the program's; mpirun
// syncs the files before it commits the set), waits
// until every peer has drained too (so that nothing it sends afterwards
// can reach a peer still draining), answers mpirun with a CRDone, and
// resumes — or exits, when the checkpoint stops the job.

// typeDrain is the type of the ranks' drain messages to each other (the
// lamds match types by shared bits: this one is used by nothing else a
// rank receives).
const typeDrain int32 = 512

// The phases of a drain message.
const (
	phaseCounters int32 = 1 // a round's counters with the receiver (core.Announcement)
	phaseDrained  int32 = 2 // this process has read everything written to it
)

// drainMsg is one drain message: seq, phase, rank, round, then the bytes
// written to the receiver and read from it (little endian).
type drainMsg struct {
	seq, phase, rank, round int32
	sent, read              uint64
}

const drainMsgSize = 32

func (m drainMsg) encode() []byte {
	b := make([]byte, drainMsgSize)
	binary.LittleEndian.PutUint32(b[0:], uint32(m.seq))
	binary.LittleEndian.PutUint32(b[4:], uint32(m.phase))
	binary.LittleEndian.PutUint32(b[8:], uint32(m.rank))
	binary.LittleEndian.PutUint32(b[12:], uint32(m.round))
	binary.LittleEndian.PutUint64(b[16:], m.sent)
	binary.LittleEndian.PutUint64(b[24:], m.read)
	return b
}

func decodeDrain(b []byte) (drainMsg, error) {
	if len(b) != drainMsgSize {
		return drainMsg{}, fmt.Errorf("drain message of %d bytes, not %d", len(b), drainMsgSize)
	}
	return drainMsg{seq: int32(binary.LittleEndian.Uint32(b[0:])), phase: int32(binary.LittleEndian.Uint32(b[4:])),
		rank: int32(binary.LittleEndian.Uint32(b[8:])), round: int32(binary.LittleEndian.Uint32(b[12:])),
		sent: binary.LittleEndian.Uint64(b[16:]), read: binary.LittleEndian.Uint64(b[24:])}, nil
}

// Checkpointer is the library's part of a checkpoint above the engine,
// given by the mpi package once MPI_Init is done.
type Checkpointer struct {
	// Save writes the process's state to w. It runs with the engine
	// quiesced and drained: it must not wait for the engine.
	Save func(w io.Writer) error
	// Continue runs once the engine has resumed after a checkpoint the
	// job survives (the program's continue callback).
	Continue func() error
}

// crState is the process's checkpoint machinery.
type crState struct {
	job   cr.Job // nil: no cr module selected
	noCR  string // why this process cannot be checkpointed ("" if it can)
	procs []jobwire.Proc
	hooks atomic.Pointer[Checkpointer]

	mu    sync.Mutex
	early []drainMsg // messages of a later checkpoint, kept for it
	in    chan drainMsg
}

// crSetup selects the job's cr module and says whether this process can
// be checkpointed: a cr module must be selected and the rpi module be
// drainable. A cr module named by the user that is not built in is an
// error.
func crSetup(ctx context.Context, settings *ssi.Settings, rpiName string, t rpi.Transport) (*crState, error) {
	c := &crState{}
	job, err := cr.Select(ctx, settings)
	switch {
	case errors.Is(err, cr.ErrNone):
		c.noCR = "no cr module selected (run the job with -ssi cr self)"
	case err != nil:
		return nil, err
	default:
		c.job = job
		if err := rpi.Drainable(rpiName, t); err != nil {
			c.noCR = err.Error()
		}
	}
	return c, nil
}

// CRJob is the job's cr module, nil when none is selected.
func (p *Process) CRJob() cr.Job {
	if p.cr == nil {
		return nil
	}
	return p.cr.job
}

// RestartDir is the checkpoint set this process was started again from,
// "" for a fresh start.
func (p *Process) RestartDir() string {
	if p.client == nil {
		return ""
	}
	return os.Getenv(jobwire.EnvRestart)
}

// SetCheckpointer makes the process answer checkpoints with c (before,
// it answers that it is still starting).
func (p *Process) SetCheckpointer(c *Checkpointer) {
	if p.cr != nil {
		p.cr.hooks.Store(c)
	}
}

// answerTimeout bounds sending a checkpoint's answer to mpirun.
const answerTimeout = 5 * time.Second

// serveCR answers mpirun's checkpoint requests until the connection to
// the lamd closes.
func (p *Process) serveCR() {
	pid := os.Getpid()
	go p.receiveDrain(pid)
	for {
		m, err := p.client.Recv(context.Background(), jobwire.RankEvent(pid), jobwire.TypeCRRank)
		if err != nil {
			return
		}
		req, err := jobwire.DecodeCRRank(m.Data)
		if err != nil {
			continue
		}
		deadline := time.Unix(0, req.Deadline)
		if time.Now().After(deadline) {
			continue // mpirun has given it up
		}
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		done := &jobwire.CRDone{Rank: int32(p.Rank), Seq: req.Seq}
		resume, err := p.checkpoint(ctx, req)
		if err != nil {
			done.Err = err.Error()
		} else {
			done.Bytes, done.Drain = resume.size, resume.drain
		}
		cancel()
		// The answer has its own bound: a checkpoint that failed at its
		// deadline must still say why (mpirun gives up at the deadline,
		// but a late answer is dropped there, never waited for).
		actx, acancel := context.WithTimeout(context.Background(), answerTimeout)
		serr := p.client.Send(actx, p.job.Node, p.job.PID, jobwire.TypeCRDone, done.Encode())
		acancel()
		if resume == nil {
			continue
		}
		if req.Stop && serr == nil {
			os.Exit(0) // the job ends here, as after MPI_Finalize
		}
		resume.run()
		if serr != nil {
			fmt.Fprintf(os.Stderr, "MPI: rank %d: answering checkpoint %d: %v\n", p.Rank, req.Seq, serr)
		}
	}
}

// receiveDrain passes the peers' drain messages to the checkpoint under
// way (or keeps them for the next).
func (p *Process) receiveDrain(pid int) {
	for {
		m, err := p.client.Recv(context.Background(), jobwire.RankEvent(pid), typeDrain)
		if err != nil {
			return
		}
		d, err := decodeDrain(m.Data)
		if err != nil || d.rank < 0 || int(d.rank) >= p.Size {
			continue
		}
		p.cr.in <- d
	}
}

// resumption is what a checkpoint that succeeded leaves to do.
type resumption struct {
	size   int64
	drain  jobwire.DrainCounts
	engine func()
	hooks  *Checkpointer
	rank   int
}

func (r *resumption) run() {
	r.engine()
	if r.hooks.Continue != nil {
		if err := r.hooks.Continue(); err != nil {
			fmt.Fprintf(os.Stderr, "MPI: rank %d: continue after a checkpoint: %v\n", r.rank, err)
		}
	}
}

// checkpoint takes this process's part of checkpoint req. On success the
// engine is still quiesced; the caller resumes it (or exits).
func (p *Process) checkpoint(ctx context.Context, req *jobwire.CRRank) (*resumption, error) {
	c := p.cr
	if c.noCR != "" {
		return nil, errors.New(c.noCR)
	}
	hooks := c.hooks.Load()
	if hooks == nil {
		return nil, errors.New("the process is still in MPI_Init")
	}
	announced := make(chan core.Announcement, 2*p.Size) // a peer is at most a round ahead
	drained := make(chan int32, p.Size)
	stop := make(chan struct{})
	sorted := make(chan struct{})
	go func() {
		defer close(sorted)
		c.sort(req.Seq, announced, drained, stop)
	}()
	resumeEngine := p.Engine.Quiesce()
	size, err := p.drainAndSave(ctx, req, hooks, announced, drained)
	close(stop)
	<-sorted
	if err != nil {
		resumeEngine()
		return nil, err
	}
	d := p.Engine.LastDrain() // quiesced: still this goroutine's
	counts := jobwire.DrainCounts{Polls: clampU32(d.Polls), Yields: clampU32(d.Yields), Sleeps: clampU32(d.Sleeps)}
	return &resumption{size: size, drain: counts, engine: resumeEngine, hooks: hooks, rank: p.Rank}, nil
}

// clampU32 is n as a uint32, saturating.
func clampU32(n int) uint32 {
	return uint32(min(max(n, 0), 1<<32-1))
}

// sort hands the drain messages of checkpoint seq to the drain until
// stop; those of a later checkpoint are kept, older ones dropped.
func (c *crState) sort(seq int32, announced chan<- core.Announcement, drained chan<- int32, stop <-chan struct{}) {
	c.mu.Lock()
	early := c.early
	c.early = nil
	c.mu.Unlock()
	hand := func(d drainMsg) {
		switch {
		case d.seq > seq:
			c.mu.Lock()
			c.early = append(c.early, d)
			c.mu.Unlock()
		case d.seq < seq:
		case d.phase == phaseCounters:
			select {
			case announced <- core.Announcement{Rank: int(d.rank), Round: int(d.round), Sent: d.sent, Read: d.read}:
			case <-stop:
			}
		case d.phase == phaseDrained:
			select {
			case drained <- d.rank:
			case <-stop:
			}
		}
	}
	for _, d := range early {
		hand(d)
	}
	for {
		select {
		case d := <-c.in:
			hand(d)
		case <-stop:
			return
		}
	}
}

func (p *Process) drainAndSave(ctx context.Context, req *jobwire.CRRank, hooks *Checkpointer, announced <-chan core.Announcement, drained <-chan int32) (int64, error) {
	// tell sends the drain messages at once: each send waits for its
	// lamd's answer, and one after the other they cost a round trip each.
	tell := func(msgs []drainMsg, to []int) error {
		errs := make(chan error, len(msgs))
		for i, m := range msgs {
			pr, r := p.cr.procs[to[i]], to[i]
			go func() {
				if err := p.oobSend(ctx, pr, m.encode()); err != nil {
					errs <- fmt.Errorf("telling rank %d: %w", r, err)
					return
				}
				errs <- nil
			}()
		}
		var first error
		for range msgs {
			if err := <-errs; err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	var msgs []drainMsg
	var to []int
	announce := func(as []core.Announcement) error {
		msgs, to = msgs[:0], to[:0]
		for _, a := range as {
			msgs = append(msgs, drainMsg{seq: req.Seq, phase: phaseCounters, rank: int32(p.Rank), round: int32(a.Round), sent: a.Sent, read: a.Read})
			to = append(to, a.Rank)
		}
		return tell(msgs, to)
	}
	if err := p.Engine.Drain(ctx, announce, announced); err != nil {
		return 0, err
	}
	msgs, to = msgs[:0], to[:0]
	for r := range p.cr.procs {
		if r != p.Rank {
			msgs = append(msgs, drainMsg{seq: req.Seq, phase: phaseDrained, rank: int32(p.Rank)})
			to = append(to, r)
		}
	}
	if err := tell(msgs, to); err != nil {
		return 0, err
	}
	size, err := writeRankFile(jobwire.RankFile(req.Dir, p.Rank), hooks.Save)
	if err != nil {
		return 0, err
	}
	for n := 0; n < p.Size-1; n++ {
		select {
		case <-drained:
		case <-ctx.Done():
			return 0, fmt.Errorf("waiting for the other ranks to drain: %w", ctx.Err())
		}
	}
	return size, nil
}

// oobSend sends a drain message to a peer, trying again while its lamd
// is full.
func (p *Process) oobSend(ctx context.Context, to jobwire.Proc, msg []byte) error {
	for {
		err := p.oob.Send(ctx, to.Node, int(to.PID), typeDrain, msg)
		if !errors.Is(err, rpi.ErrOOBFull) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
}

// writeRankFile writes the process's state to path, which must not exist,
// and returns the file's size. It does not sync the file: mpirun syncs
// every rank's file (and then the set's directory) before it commits the
// set (crset.Partial.Commit), so a sync here would be a second one on the
// checkpoint's critical path; a write error, among them a full disk,
// shows here or in mpirun's sync, and the set is discarded either way.
func writeRankFile(path string, save func(io.Writer) error) (int64, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, fmt.Errorf("checkpoint file: %w", err)
	}
	w := &countWriter{w: bufio.NewWriterSize(f, 1<<16)}
	err = save(w)
	if err == nil {
		err = w.w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return 0, fmt.Errorf("writing %s: %w", path, err)
	}
	return w.n, nil
}

// countWriter counts what goes through it.
type countWriter struct {
	w *bufio.Writer
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
