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
// signal. lamexec prints it, as LAM does, on standard output; mpirun shows
// LAM's abnormal-exit message, whose last line is Failed. Both exit with
// Code.
type ExitError struct {
	Proc   string // "1234 (n0)", or mpirun's "rank 1 (pid 1234) on n0"
	Status int
	Signal int // 0: the process exited
	PID    int32
	Node   int32
	Addr   string // the node's IP address ("" if unknown)
	MPI    bool   // a rank of mpirun's
}

// Failed is the last line of LAM's mpirun:abnormal-exit message: "PID 12
// failed on node n0 (127.0.0.1) with exit status 3." (or "due to signal
// 11.").
func (e *ExitError) Failed() string {
	how := fmt.Sprintf("with exit status %d", e.Status)
	if e.Signal != 0 {
		how = fmt.Sprintf("due to signal %d", e.Signal)
	}
	return fmt.Sprintf("PID %d failed on node %s %s.", e.PID, nodeName(e.Node, e.Addr), how)
}

// nodeName is LAM's node_id_str: "n0 (127.0.0.1)".
func nodeName(node int32, addr string) string {
	if addr == "" {
		return fmt.Sprintf("n%d", node)
	}
	return fmt.Sprintf("n%d (%s)", node, addr)
}

// NoInitError is a rank that exited (with status 0) without calling
// MPI_Init: the program is not an MPI program. mpirun shows LAM's
// mpirun:no-init message and exits with ExitNoInit.
type NoInitError struct {
	Rank    int
	PID     int32
	Node    int32
	Program string
}

// ExitNoInit is LAM's exit code for a rank that never called MPI_Init
// (EMPINOINT's low byte).
const ExitNoInit = 252

func (e *NoInitError) Error() string {
	return fmt.Sprintf("rank %d (pid %d) on n%d exited without calling MPI_Init: is %s an MPI program? (use lamexec for others)", e.Rank, e.PID, e.Node, e.Program)
}

// NoFinalizeError is a rank that called MPI_Init and exited with status
// 0 without calling MPI_Finalize. mpirun shows LAM's mpirun:no-finalize
// message and, unlike LAM (which went on to exit 0), fails the job.
type NoFinalizeError struct {
	Rank int
	PID  int32
	Node int32
	Addr string
}

func (e *NoFinalizeError) Error() string {
	return fmt.Sprintf("rank %d (pid %d) on n%d exited without calling MPI_Finalize", e.Rank, e.PID, e.Node)
}

// NodeName is the node as LAM's message names it: "n0 (127.0.0.1)".
func (e *NoFinalizeError) NodeName() string { return nodeName(e.Node, e.Addr) }

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
	// Dead is the rank whose death made this one abort (an MPI call
	// failed on its broken link), -1 if none: the job reports that
	// rank's end instead, which came first (see blame).
	Dead int
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
