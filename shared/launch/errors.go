package launch

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/nodespec"
	"github.com/lamgo/lam/shared/wire"
)

// UsageError is a job that cannot be read as given (a where
// specification, a -x item): the tools print it with their usage text.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// StartError is a process that could not be started: the node refused
// it, its working directory is missing, or the node is not in the
// universe (Err wraps nodespec.ErrBadNode).
type StartError struct {
	Program string
	Node    string // as LAM names it: "n0 (o)", "n9", "c3"
	Err     error  // the lamd's error (see lamclient.Code), the scheduler's, or the directory's (a syscall.Errno inside)
	// Dir, if set, is the working directory that is missing: Err is about
	// it, not about the program.
	Dir string
	// Rank is the process's rank; Started counts the processes started
	// before it, which were stopped.
	Rank, Started int
}

func (e *StartError) Error() string {
	why := e.Err.Error()
	switch {
	case e.Dir != "":
		why = "working directory " + e.Dir + ": " + dirWhy(e.Err)
	case lamclient.Code(e.Err) == wire.CodeNoEntry:
		why = "No such file or directory"
	case lamclient.Code(e.Err) == wire.CodeBadNode, errors.Is(e.Err, nodespec.ErrBadNode):
		why = "invalid node"
	}
	msg := fmt.Sprintf("cannot start %s on %s: %s", e.Program, e.Node, why)
	switch e.Started {
	case 0:
	case 1:
		msg += fmt.Sprintf(" (rank %d; the process already started was stopped)", e.Rank)
	default:
		msg += fmt.Sprintf(" (rank %d; the %d processes already started were stopped)", e.Rank, e.Started)
	}
	return msg
}

// dirWhy says what is wrong with a working directory: the errno's text
// ("no such file or directory", "not a directory").
func dirWhy(err error) string {
	var errno syscall.Errno
	switch {
	case errors.As(err, &errno):
		return errno.Error()
	case lamclient.Code(err) == wire.CodeNoEntry:
		return syscall.ENOENT.Error()
	}
	return err.Error()
}

func (e *StartError) Unwrap() error { return e.Err }

// CapacityError is a job that would start more processes on a node than
// its lamd can run; nothing was started.
type CapacityError struct {
	Node string // as LAM names it: "n0 (o)"
	Want int    // the processes the job puts there
	Capacity
}

func (e *CapacityError) Error() string {
	msg := fmt.Sprintf("%s would run %d processes; its lamd can run at most %d (%s)", e.Node, e.Want, e.PerNode, e.Why)
	switch {
	case e.Clients:
		msg += "; spread the job over more nodes, or boot the universe with a larger " + clientsParam
	case e.Why != ParamMaxPerNode:
		msg += "; spread the job over more nodes, or set the SSI parameter " + ParamMaxPerNode
	}
	return msg
}

// LostError is a job that lost processes with their lamd, or with the
// local lamd that relayed them: how they end is unknown.
type LostError struct {
	Procs []*Proc // the processes lost, in rank order
	Err   error   // the lamd's error, or lamclient.ErrClosed
}

// Error names the ranks lost, by node: "ranks 0, 1 (n0): …".
func (e *LostError) Error() string {
	byNode := map[int32][]int{}
	var nodes []int32
	for _, p := range e.Procs {
		if _, ok := byNode[p.Node]; !ok {
			nodes = append(nodes, p.Node)
		}
		byNode[p.Node] = append(byNode[p.Node], p.Rank)
	}
	slices.Sort(nodes)
	parts := make([]string, 0, len(nodes))
	for _, n := range nodes {
		parts = append(parts, fmt.Sprintf("%s (n%d)", rankList(byNode[n]), n))
	}
	return strings.Join(parts, ", ") + ": " + e.Err.Error()
}

func (e *LostError) Unwrap() error { return e.Err }

// rankList names ranks: "rank 3", "ranks 0, 1", "ranks 0-7, 9".
func rankList(ranks []int) string {
	slices.Sort(ranks)
	var items []string
	for i := 0; i < len(ranks); {
		j := i
		for j+1 < len(ranks) && ranks[j+1] == ranks[j]+1 {
			j++
		}
		switch {
		case j-i >= 2:
			items = append(items, strconv.Itoa(ranks[i])+"-"+strconv.Itoa(ranks[j]))
		default:
			for k := i; k <= j; k++ {
				items = append(items, strconv.Itoa(ranks[k]))
			}
		}
		i = j + 1
	}
	if len(ranks) == 1 {
		return "rank " + items[0]
	}
	return "ranks " + strings.Join(items, ", ")
}

// ExitError is the first process that ended with a non-zero status or a
// signal. LAM prints it without the tool's name and exits with Code.
type ExitError struct {
	Proc   string // "1234 (n0)", or mpirun's "rank 1 (pid 1234) on n0"
	Status int
	Signal int // 0: the process exited
}

func (e *ExitError) Error() string {
	if e.Signal != 0 {
		return fmt.Sprintf("%s exited due to signal %d", e.Proc, e.Signal)
	}
	return fmt.Sprintf("%s exited with status %d", e.Proc, e.Status)
}

// Code is the status, or the signal's number.
func (e *ExitError) Code() int {
	if e.Signal != 0 {
		return e.Signal
	}
	return e.Status
}

// InterruptedError is a job stopped because the caller's context ended;
// the lamds killed its processes. It wraps the context's cause.
type InterruptedError struct{ Cause error }

func (e *InterruptedError) Error() string { return "interrupted; the processes were killed" }
func (e *InterruptedError) Unwrap() error { return e.Cause }

// AbortError is a rank that called MPI_Abort; the job was stopped.
type AbortError struct {
	Rank int    // -1: the report could not be read
	Code int    // the errorcode given to MPI_Abort
	Msg  string // its error string
}

func (e *AbortError) Error() string {
	if e.Rank < 0 {
		return "a rank called MPI_Abort"
	}
	return fmt.Sprintf("rank %d called MPI_Abort (%s); the job is stopped", e.Rank, e.Msg)
}

// ExitCode is what mpirun exits with: the errorcode's low byte, never 0.
func (e *AbortError) ExitCode() int {
	if c := e.Code & 0xff; c != 0 {
		return c
	}
	return 1
}

// MPIError is a job whose ranks broke the MPI life cycle (a rank that
// never called MPI_Init or MPI_Finalize, a bad wire-up report) or whose
// wire-up failed.
type MPIError struct{ Err error }

func (e *MPIError) Error() string { return e.Err.Error() }
func (e *MPIError) Unwrap() error { return e.Err }
