// Package taskview is what mpitask and mpimsg share: reading their node
// and process selections, asking the lamds (wire.Inspect), and printing
// LAM's tables from the answers.
//
// Each node's lamd asks its own MPI processes, which answer from a
// goroutine of their own without stopping their work (see
// libmpi/internal/wireup and shared/kernel).
package taskview

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/nodespec"
	"github.com/lamgo/lam/shared/wire"
)

// Selection is which nodes and processes to show (LAM's [nodes]
// [processes] arguments).
type Selection struct {
	Nodes []nodespec.Spec // none: every node
	PIDs  []int           // p<list>
	Ranks []int           // %<list>: ranks in MPI_COMM_WORLD
}

// ErrBadProcess is a process selector that does not parse.
var ErrBadProcess = errors.New("invalid process specification")

// Parse reads the arguments: node and CPU specifications (n0-3, c1, N, C,
// h, o), p<list> (process ids) and %<list> (ranks).
func Parse(args []string) (Selection, error) {
	var s Selection
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "p") && len(a) > 1 && a[1] >= '0' && a[1] <= '9':
			ids, err := parseList(a[1:])
			if err != nil {
				return s, fmt.Errorf("%w %q: %w", ErrBadProcess, a, err)
			}
			s.PIDs = append(s.PIDs, ids...)
		case strings.HasPrefix(a, "%"):
			ids, err := parseList(a[1:])
			if err != nil {
				return s, fmt.Errorf("%w %q: %w", ErrBadProcess, a, err)
			}
			s.Ranks = append(s.Ranks, ids...)
		default:
			spec, err := nodespec.Parse(a)
			if err != nil {
				return s, err
			}
			s.Nodes = append(s.Nodes, spec)
		}
	}
	return s, nil
}

// maxList bounds a process list's expansion.
const maxList = 1 << 16

// parseList reads a comma-separated list of numbers and ranges (a-b).
func parseList(s string) ([]int, error) {
	var out []int
	for item := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(item, "-")
		a, err := strconv.ParseUint(lo, 0, 31)
		if err != nil {
			return nil, fmt.Errorf("bad number %q", lo)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(hi, 0, 31); err != nil || b < a {
				return nil, fmt.Errorf("bad range %q", item)
			}
		}
		if int(b-a)+len(out) >= maxList {
			return nil, fmt.Errorf("more than %d processes", maxList)
		}
		for i := a; i <= b; i++ {
			out = append(out, int(i))
		}
	}
	return out, nil
}

// Proc is one MPI process as a node's lamd reported it, its own answer
// decoded (Status is nil when it did not answer).
type Proc struct {
	Node   int32
	Info   wire.InspectedProc
	Status *jobwire.Status
}

// Rank is the process's rank in MPI_COMM_WORLD, or -1.
func (p *Proc) Rank() int32 {
	if p.Status != nil {
		return p.Status.Rank
	}
	return p.Info.Rank
}

// Node is one node's answer.
type Node struct {
	ID    int32
	Procs []Proc
	Queue []wire.QueuedMsg
	More  bool
}

// Gather asks the selected nodes' lamds (in order, each once) and keeps
// the selected processes. msgs asks for the queues, up to max each.
func Gather(ctx context.Context, cl *lamclient.Client, table *wire.Nodes, sel Selection, msgs bool, max int) ([]Node, error) {
	nodes := lamclient.SpecNodes(table)
	var ids []int
	if len(sel.Nodes) == 0 {
		ids = nodespec.All(nodes)
	} else {
		var err error
		if ids, err = nodespec.Resolve(sel.Nodes, nodes); err != nil {
			return nil, err
		}
	}
	var out []Node
	seen := map[int]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		in, err := cl.Inspect(ctx, int32(id), msgs, max)
		if err != nil {
			return out, fmt.Errorf("n%d: %w", id, err)
		}
		n := Node{ID: in.Node, Queue: in.Queue, More: in.More}
		for _, ip := range in.Procs {
			p := Proc{Node: in.Node, Info: ip}
			if ip.State == wire.ProcAnswered {
				if st, err := jobwire.DecodeStatus(ip.Status); err == nil {
					p.Status = st
				}
			}
			if sel.keep(&p) {
				n.Procs = append(n.Procs, p)
			}
		}
		out = append(out, n)
	}
	return out, nil
}

func (s Selection) keep(p *Proc) bool {
	if len(s.PIDs) == 0 && len(s.Ranks) == 0 {
		return true
	}
	return slices.Contains(s.PIDs, int(p.Info.PID)) || (p.Rank() >= 0 && slices.Contains(s.Ranks, int(p.Rank())))
}
