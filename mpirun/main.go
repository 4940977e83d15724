// Command mpirun starts an MPI job on the LAM universe: it starts the
// ranks through the lamds (as lamexec does), hands every rank the job's
// process table once all have called MPI_Init, forwards their standard
// streams, and reports the first rank that fails — or that never called
// MPI_Init, or exited without MPI_Finalize.
package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/launch"
)

var tool = &lamcli.Tool{
	Name:         "mpirun",
	NoDaemonExit: lamcli.ExitNoKernel,
	Syntax:       lamcli.LaunchSyntax(map[string]int{"ssi": 2, "nx": 0, "O": 0, "sa": 0, "sf": 0, "p": 1, "tag-output": 0}),
}

type cmd struct {
	lamcli.LaunchOptions `embed:""`
	lamcli.SSIOption     `embed:""`
	NoExport             bool   `name:"nx" help:"Do not export LAM_MPI_* variables."`
	Homogeneous          bool   `short:"O" help:"Ignored: the universe is homogeneous."`
	StatusAll            bool   `name:"sa" help:"Report the exit status of every process."`
	StatusFail           bool   `name:"sf" help:"Report the exit status of every process on failure."`
	StatusPrefix         string `short:"p" default:"mpirun:" help:"Prefix of -sa/-sf lines."`
	TagOutput            bool   `name:"tag-output" help:"Prefix every line of output with [rank]."`
}

func (c *cmd) Run(ctx context.Context, env *lamcli.Env) error {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return err
	}
	exports := []string{}
	if !c.NoExport {
		for _, kv := range env.Environ {
			if strings.HasPrefix(kv, "LAM_MPI_") && !strings.HasPrefix(kv, "LAM_MPI_SESSION_PREFIX=") {
				exports = append(exports, kv)
			}
		}
	}
	exports = append(exports, env.SSI.Environ()...)
	np := 0
	w := &wireup{secret: secret, finalized: map[int]bool{}, inited: map[int]bool{}, aborted: map[int]error{}, env: env}
	cfg := launch.Config{
		Env: exports,
		EnvFor: func(rank int) []string {
			return []string{jobwire.EnvRank + "=" + fmt.Sprint(rank), jobwire.EnvWorld + "=" + fmt.Sprint(np), jobwire.EnvJob + "=" + w.id.String()}
		},
		Started:  w.run,
		Exited:   w.exited,
		Failed:   w.failed,
		Describe: func(p *launch.Proc) string { return fmt.Sprintf("rank %d (pid %d) on n%d", p.Rank, p.PID, p.Node) },
		Stdin:    env.Stdin,
	}
	w.id = jobwire.JobID{PID: int32(os.Getpid())}
	if c.TagOutput {
		cfg.Tag = func(p *launch.Proc) string { return fmt.Sprintf("[%d] ", p.Rank) }
	}
	if c.StatusAll || c.StatusFail {
		cfg.Finished = func(procs []*launch.Proc, failed bool) {
			if c.StatusAll || failed {
				printStatus(env, c.StatusPrefix, procs)
			}
		}
	}
	cfg.Count = func(n int, self int32) { np, w.id.Node = n, self }
	return c.Launch(ctx, env, func(ctx context.Context, cl *lamclient.Client, o launch.Options) error {
		return launch.Run(ctx, cl, o, cfg)
	})
}

// wireup is mpirun's side of the MPI wire-up.
type wireup struct {
	id        jobwire.JobID
	secret    []byte
	env       *lamcli.Env
	mu        sync.Mutex
	inited    map[int]bool
	finalized map[int]bool
	aborted   map[int]error // the report of a rank that called MPI_Abort
}

// run collects every rank's Init, sends every rank the table, then
// follows the ranks' Finalize and Abort messages.
func (w *wireup) run(ctx context.Context, j *launch.Job) error {
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
			return w.abort(m.Data, j)
		}
		in, err := jobwire.DecodeInit(m.Data)
		if err != nil || int(in.Rank) >= n || procs[in.Rank].PID != 0 {
			return &launch.MPIError{Err: fmt.Errorf("a bad MPI_Init report from n%d: %v", m.From, err)}
		}
		if rpiName == "" {
			rpiName = in.RPI
		}
		procs[in.Rank] = jobwire.Proc{Node: in.Node, PID: in.PID, Addr: in.Addr}
		w.mu.Lock()
		w.inited[int(in.Rank)] = true
		w.mu.Unlock()
	}
	table := (&jobwire.Table{RPI: rpiName, Secret: w.secret, Procs: procs}).Encode()
	for _, p := range procs {
		if err := cl.Send(ctx, p.Node, jobwire.RankEvent(int(p.PID)), jobwire.TypeTable, table); err != nil {
			return &launch.MPIError{Err: fmt.Errorf("send the process table: %w", err)}
		}
	}
	for done := 0; done < n; {
		m, err := cl.Recv(ctx, w.id.PID, jobwire.TypeFinalize|jobwire.TypeAbort)
		if err != nil {
			return nil
		}
		if m.Type&jobwire.TypeAbort != 0 {
			return w.abort(m.Data, j)
		}
		rank, err := jobwire.DecodeRank(m.Data)
		if err != nil {
			continue
		}
		w.mu.Lock()
		if !w.finalized[int(rank)] {
			w.finalized[int(rank)] = true
			done++
		}
		w.mu.Unlock()
	}
	return nil
}

func (w *wireup) abort(data []byte, j *launch.Job) error {
	a, err := jobwire.DecodeAbort(data)
	if err != nil {
		return &launch.AbortError{Rank: -1, Code: 1}
	}
	err = &launch.AbortError{Rank: int(a.Rank), Code: int(a.Code), Msg: a.Msg}
	w.mu.Lock()
	w.aborted[int(a.Rank)] = err
	w.mu.Unlock()
	return err
}

// abortGrace is how long a failed rank's MPI_Abort report is awaited: it
// is sent before the rank exits, but reaches mpirun by another way than
// the exit.
const abortGrace = 500 * time.Millisecond

// failed reports a rank that exited with a non-zero status or a signal as
// the MPI_Abort it called, if it did.
func (w *wireup) failed(ctx context.Context, p *launch.Proc) error {
	deadline := time.Now().Add(abortGrace)
	for {
		w.mu.Lock()
		inited, err := w.inited[p.Rank], w.aborted[p.Rank]
		w.mu.Unlock()
		if err != nil || !inited || time.Now().After(deadline) {
			return err
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// exited checks a rank that exited with status 0.
func (w *wireup) exited(ctx context.Context, p *launch.Proc) error {
	// The rank's Finalize may still be on its way through the lamd.
	deadline := time.Now().Add(2 * time.Second)
	for {
		w.mu.Lock()
		inited, fin := w.inited[p.Rank], w.finalized[p.Rank]
		w.mu.Unlock()
		if fin {
			return nil
		}
		if time.Now().After(deadline) {
			if !inited {
				return fmt.Errorf("rank %d (pid %d) on n%d exited without calling MPI_Init: is %s an MPI program? (use lamexec for others)", p.Rank, p.PID, p.Node, p.Program)
			}
			return fmt.Errorf("rank %d (pid %d) on n%d exited without calling MPI_Finalize", p.Rank, p.PID, p.Node)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// printStatus prints LAM's -sa/-sf lines: prefix, node, pid, whether a
// signal killed it, and its exit status or signal.
func printStatus(env *lamcli.Env, prefix string, procs []*launch.Proc) {
	for _, p := range procs {
		killed, status := 0, -1
		if p.Exit != nil {
			status = int(p.Exit.Status)
			if p.Exit.Signal != 0 {
				killed, status = 1, int(p.Exit.Signal)
			}
		}
		fmt.Fprintf(env.Stdout, "%s n%d %d %d %d\n", prefix, p.Node, p.PID, killed, status)
	}
}

func main() { lamcli.Main(tool, &cmd{}) }
