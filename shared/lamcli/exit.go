package lamcli

import (
	"errors"
	"fmt"

	"github.com/lamgo/lam/shared/lamclient"
)

// LAM's exit codes (LAM error numbers 0x400+N, of which the shell sees the
// low byte). Tools keep them so that scripts that test them keep working.
const (
	ExitUsage       = 226 // EUSAGE: bad command line
	ExitSignaled    = 255 // lamexec: a process was killed by a signal
	ExitNoKernel    = 215 // ENOKERNEL: no lamd (tping, mpirun, lamexec, lamshrink)
	ExitNoDaemon    = 253 // LAM_EEXIT: no lamd (lamnodes, lamhalt, lamclean, mpitask, mpimsg, lamgrow)
	ExitBadNode     = 229 // EBADNODE: a node that is not in the universe
	ExitBadIDSpec   = 230 // EBADIDSPEC: a malformed node or CPU specification
	ExitTimeout     = 213 // LAM_ERR_TO
	ExitBadHost     = 214 // EBADHOST
	ExitDeadNode    = 202 // EDEADNODE
	ExitNotAttached = 216 // ENOTATTACHED
	ExitMPIInit     = 251 // EMPIINIT
	// ExitNotImplemented is ENOSYS: LAM's tools exit with an errno, and
	// this one says "function not implemented".
	ExitNotImplemented = 38
)

// ErrUsage marks a bad command line: the tool prints the error and its
// usage text and exits with ExitUsage.
var ErrUsage = errors.New("bad usage")

// ErrNoDaemon marks a tool that could not reach its lamd; the tool exits
// with its Tool.NoDaemonExit code after printing LAM's no-lamd help.
var ErrNoDaemon = lamclient.ErrNoDaemon

// ErrNotImplemented marks a tool (or an option) that this version does not
// provide yet.
var ErrNotImplemented = errors.New("not implemented yet")

// Usage returns the error of a command line that cannot be read (no
// arguments, an option without its value): the tool prints its framed
// usage text alone, as LAM does, and exits with ExitUsage.
func Usage() error { return ErrUsage }

// Usagef returns an error wrapping ErrUsage: the tool prints "tool: …"
// before its usage text.
func Usagef(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUsage, fmt.Sprintf(format, args...))
}

// ExitError carries the exit code a tool must end with.
type ExitError struct {
	Code int
	Err  error // printed as "tool: err" unless nil or Quiet
	// Quiet means the message was already printed.
	Quiet bool
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// Exit returns an error that makes the tool exit with code after printing
// err (err may be nil).
func Exit(code int, err error) error { return &ExitError{Code: code, Err: err} }

// ExitQuiet is Exit for a message already printed.
func ExitQuiet(code int) error { return &ExitError{Code: code, Quiet: true} }
