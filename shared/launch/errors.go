package launch

import (
	"errors"
	"fmt"

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
// it, or the node is not in the universe (Err wraps nodespec.ErrBadNode).
type StartError struct {
	Program string
	Node    string // as LAM names it: "n0 (o)", "n9", "c3"
	Err     error  // the lamd's error (see lamclient.Code), or the scheduler's
}

func (e *StartError) Error() string {
	why := e.Err.Error()
	switch {
	case lamclient.Code(e.Err) == wire.CodeNoEntry:
		why = "No such file or directory"
	case lamclient.Code(e.Err) == wire.CodeBadNode, errors.Is(e.Err, nodespec.ErrBadNode):
		why = "invalid node"
	}
	return fmt.Sprintf("cannot start %s on %s: %s", e.Program, e.Node, why)
}

func (e *StartError) Unwrap() error { return e.Err }

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
