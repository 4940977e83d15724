// Command lamtrace collects the trace of an MPI job run with mpirun -t
// (or -toff, the program switching tracing on with MPI_Pcontrol) and
// writes it as a Chrome/Perfetto JSON trace — one row per rank, each MPI
// call a slice, each message an arrow from its send to its receive — and,
// with -svg, draws the same timeline as an SVG picture.
//
// Each traced rank sends its records at MPI_Finalize to the lamd of
// mpirun's node, where they wait in the out-of-band queue; run lamtrace
// on that node. Times are the ranks' wall clocks.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/taskview"
	"github.com/lamgo/lam/shared/wire"
)

var tool = &lamcli.Tool{Name: "lamtrace", NoDaemonExit: lamcli.ExitNoKernel,
	Syntax: lamcli.Syntax{Long: map[string]int{"mpi": 0, "svg": 1, "f": 1, "o": 1, "l": 1}}}

// defaultFile is where the trace goes when no file is named (LAM wrote
// def.lamtr).
const defaultFile = "def.lamtr.json"

type cmd struct {
	Keep    bool     `short:"k" help:"Keep the records in the lamd after reading them."`
	Verbose bool     `short:"v" help:"Report progress."`
	MPI     bool     `name:"mpi" help:"Only the MPI processes' records (the only kind there is)."`
	Flush   float64  `short:"f" default:"1" placeholder:"secs" help:"Wait this long for records still on their way."`
	Out     string   `short:"o" placeholder:"file" help:"Write the JSON trace here."`
	SVG     string   `name:"svg" placeholder:"file" help:"Also draw the timeline as SVG here."`
	Args    []string `arg:"" optional:"" help:"Output file, then processes (p<list>: process ids, %<list>: ranks) or nodes (accepted)."`
}

func (c *cmd) Run(ctx context.Context, env *lamcli.Env) error {
	out := c.Out
	var sel []string
	for _, a := range c.Args {
		if out == "" && !isSelector(a) {
			out = a
			continue
		}
		sel = append(sel, a)
	}
	s, err := taskview.Parse(sel)
	if err != nil {
		return lamcli.Usagef("%v", err)
	}
	if c.Flush < 0 || c.Flush > 3600 {
		return lamcli.Usagef("-f wants seconds between 0 and 3600")
	}
	if out == "" {
		out = defaultFile
	}
	cl, err := env.Daemon(ctx, "", "")
	if err != nil {
		return err
	}
	defer cl.Close()
	say := func(format string, args ...any) {
		if c.Verbose {
			fmt.Fprintf(env.Stdout, "lamtrace: "+format+"\n", args...)
		}
	}
	raw, err := collect(ctx, cl, time.Duration(c.Flush*float64(time.Second)))
	if err != nil {
		return err
	}
	say("%d trace records on n%d", len(raw), cl.Node())
	traces, keep := pick(raw, s)
	// What is not written now (another job's, or everything with -k)
	// goes back to the lamd.
	if c.Keep {
		keep = raw
	}
	for _, m := range keep {
		if err := cl.Send(ctx, cl.Node(), jobwire.EventTrace, jobwire.TypeTrace, m); err != nil {
			return fmt.Errorf("put trace records back: %w", err)
		}
	}
	if len(traces) == 0 {
		fmt.Fprintf(env.Stderr, "lamtrace: no trace records on n%d; run the job with mpirun -t, and lamtrace on mpirun's node\n", cl.Node())
		return lamcli.ExitQuiet(1)
	}
	t, err := Build(traces)
	if err != nil {
		return err
	}
	say("job %s: %d ranks, %d calls, %d messages", t.Job, len(t.Rows), len(t.Slices), len(t.Flows))
	if err := writeNew(out, func(f *os.File) error { return WriteChrome(f, t) }); err != nil {
		return err
	}
	say("wrote %s", out)
	if c.SVG != "" {
		if err := writeNew(c.SVG, func(f *os.File) error { return WriteSVG(f, t) }); err != nil {
			return err
		}
		say("wrote %s", c.SVG)
	}
	return nil
}

// isSelector reports whether a is a node or process selection rather
// than the output file.
func isSelector(a string) bool {
	_, err := taskview.Parse([]string{a})
	return err == nil
}

// collect takes every trace record from the local lamd, waiting up to
// flush for more once none is there.
func collect(ctx context.Context, cl *lamclient.Client, flush time.Duration) ([][]byte, error) {
	var out [][]byte
	deadline := time.Now().Add(flush)
	for {
		m, err := cl.TryRecv(ctx, jobwire.EventTrace, jobwire.TypeTrace)
		switch {
		case err == nil:
			out = append(out, m.Data)
			continue
		case lamclient.Code(err) != wire.CodeNoEntry:
			return out, fmt.Errorf("read trace records: %w", err)
		case len(out) > 0 || time.Now().After(deadline):
			return out, nil
		}
		select {
		case <-ctx.Done():
			return out, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// pick decodes the records and keeps the newest job's (of the selected
// processes); it returns the others raw.
func pick(raw [][]byte, s taskview.Selection) ([]*jobwire.Trace, [][]byte) {
	type rec struct {
		t   *jobwire.Trace
		raw []byte
	}
	var recs []rec
	newest, newestT := "", int64(0)
	for _, b := range raw {
		t, err := jobwire.DecodeTrace(b)
		if err != nil {
			continue // not ours to keep: a malformed record is dropped
		}
		recs = append(recs, rec{t, b})
		for _, e := range t.Events {
			if newest == "" || e.T > newestT {
				newest, newestT = t.Job, e.T
			}
		}
		if newest == "" {
			newest = t.Job
		}
	}
	var out []*jobwire.Trace
	var rest [][]byte
	for _, r := range recs {
		ok := r.t.Job == newest &&
			(len(s.PIDs)+len(s.Ranks) == 0 || slices.Contains(s.PIDs, int(r.t.PID)) || slices.Contains(s.Ranks, int(r.t.Rank)))
		if ok {
			out = append(out, r.t)
		} else if r.t.Job != newest {
			rest = append(rest, r.raw)
		}
	}
	return out, rest
}

// writeNew writes a file that must not exist yet (as LAM's lamtrace).
func writeNew(path string, write func(*os.File) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s exists; name another file or remove it", path)
	}
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}

func main() { lamcli.Main(tool, &cmd{}) }
