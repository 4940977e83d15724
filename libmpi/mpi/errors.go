package mpi

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/lamgo/lam/libmpi/internal/core"
)

// ErrorClass is an MPI error class.
type ErrorClass int

// The MPI-1 error classes.
const (
	Success ErrorClass = iota
	ErrBuffer
	ErrCount
	ErrType
	ErrTag
	ErrComm
	ErrRank
	ErrRequest
	ErrRoot
	ErrGroup
	ErrOp
	ErrTopology
	ErrDims
	ErrArg
	ErrUnknown
	ErrTruncate
	ErrOther
	ErrIntern
	ErrInStatus
	ErrPending
	// ErrProcFailed: a process the call needed has died (its link closed
	// or broke); MPI-4's MPI_ERR_PROC_FAILED.
	ErrProcFailed
	// MPI-2's classes for attributes and Info objects (attr.go, info.go).
	ErrKeyval
	ErrInfo
	ErrInfoKey
	ErrInfoValue
	ErrInfoNokey
	ErrLastCode
)

var classNames = [...]string{"MPI_SUCCESS", "MPI_ERR_BUFFER", "MPI_ERR_COUNT", "MPI_ERR_TYPE", "MPI_ERR_TAG",
	"MPI_ERR_COMM", "MPI_ERR_RANK", "MPI_ERR_REQUEST", "MPI_ERR_ROOT", "MPI_ERR_GROUP", "MPI_ERR_OP",
	"MPI_ERR_TOPOLOGY", "MPI_ERR_DIMS", "MPI_ERR_ARG", "MPI_ERR_UNKNOWN", "MPI_ERR_TRUNCATE", "MPI_ERR_OTHER",
	"MPI_ERR_INTERN", "MPI_ERR_IN_STATUS", "MPI_ERR_PENDING", "MPI_ERR_PROC_FAILED",
	"MPI_ERR_KEYVAL", "MPI_ERR_INFO", "MPI_ERR_INFO_KEY", "MPI_ERR_INFO_VALUE", "MPI_ERR_INFO_NOKEY"}

func (c ErrorClass) String() string {
	if c >= 0 && int(c) < len(classNames) {
		return classNames[c]
	}
	if s, ok := userString(c); ok && s != "" {
		return s
	}
	return fmt.Sprintf("MPI error class %d", int(c))
}

// Error is an MPI error: its class and what went wrong. It wraps its
// cause, so errors.Is and errors.As reach the error of the layer below
// (core.ErrDeadPeer behind ErrProcFailed, a context's error behind a call
// that gave up, an rpi module's error behind Init).
type Error struct {
	Class ErrorClass
	Msg   string
	Err   error // the underlying cause, if any
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Class, e.Msg) }
func (e *Error) Unwrap() error { return e.Err }

// Is lets errors.Is match an Error by class: errors.Is(err,
// &mpi.Error{Class: mpi.ErrRank}).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Class == e.Class && t.Msg == ""
}

// Class returns the MPI error class of err (Success for nil, ErrOther for
// errors from outside MPI).
func Class(err error) ErrorClass {
	if err == nil {
		return Success
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Class
	}
	return ErrOther
}

// ErrorString is MPI_Error_string (for a user class or code, the string
// AddErrorString set, empty if none).
func ErrorString(c ErrorClass) string {
	if s, ok := userString(c); ok {
		return s
	}
	return c.String()
}

// errorf makes an Error of class c; a cause given with %w is kept (Err).
// within is err, an *Error or not, in a context: class c, the context
// before err's words (not its class's name again), err as the cause.
func within(c ErrorClass, context string, err error) *Error {
	msg := err.Error()
	var e *Error
	if errors.As(err, &e) {
		msg = e.Msg
	}
	return &Error{Class: c, Msg: context + ": " + msg, Err: err}
}

func errorf(c ErrorClass, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	e := &Error{Class: c, Msg: err.Error()}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		e.Err = u.Unwrap()
	case interface{ Unwrap() []error }:
		e.Err = errors.Join(u.Unwrap()...)
	}
	return e
}

// classOf is the MPI error class of an error from the layers below.
func classOf(err error) ErrorClass {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e.Class
	case errors.Is(err, core.ErrTruncate):
		return ErrTruncate
	case errors.Is(err, core.ErrDeadPeer):
		return ErrProcFailed
	}
	return ErrOther
}

// fromCore maps an error of the layers below (core, comm, wire-up) to an
// MPI error that wraps it.
func fromCore(err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Class: classOf(err), Msg: err.Error(), Err: err}
}

// Errhandler decides what happens when an MPI call on a communicator
// fails.
type Errhandler struct {
	name string
	fn   func(c *Comm, err error)
}

// The predefined error handlers. ErrorsAreFatal, the default, prints the
// error and aborts the job; ErrorsReturn returns it to the caller.
var (
	ErrorsAreFatal = &Errhandler{name: "MPI_ERRORS_ARE_FATAL", fn: func(c *Comm, err error) {
		fmt.Fprintf(os.Stderr, "MPI: rank %d: %v (errors are fatal)\n", c.Rank(), err)
		AbortOn(c, 1, err.Error(), err)
	}}
	ErrorsReturn = &Errhandler{name: "MPI_ERRORS_RETURN"}
)

// NewErrhandler makes an error handler that calls fn (which may return to
// let the call return the error).
func NewErrhandler(fn func(c *Comm, err error)) *Errhandler {
	return &Errhandler{name: "user", fn: fn}
}

var errhMu sync.Mutex

// SetErrhandler sets the communicator's error handler.
func (c *Comm) SetErrhandler(h *Errhandler) error {
	if c == nil || h == nil {
		return errorf(ErrArg, "nil communicator or handler")
	}
	errhMu.Lock()
	c.errh = h
	errhMu.Unlock()
	return nil
}

// Errhandler returns the communicator's error handler.
func (c *Comm) Errhandler() *Errhandler {
	errhMu.Lock()
	defer errhMu.Unlock()
	return c.errh
}

// fail runs the communicator's error handler on err and returns it.
func (c *Comm) fail(err error) error {
	if err == nil {
		return nil
	}
	if h := c.Errhandler(); h != nil && h.fn != nil {
		h.fn(c, err)
	}
	return err
}
