// Package cr is the cr framework (LAM's checkpoint/restart framework, the
// rank side of its crmpi): a cr module decides how a process of a job
// takes its part of a coordinated checkpoint and how it comes back from
// one.
//
// A module registers itself from its package's init with Register.
// MPI_Init selects at most one module for the job with Select: every rank
// has the job's SSI parameters, so every rank chooses the same one. A job
// is checkpointable only when a cr module is selected and the job's rpi
// module can be drained (see rpi.Drainable); the collective modules build
// on point-to-point messages and need nothing of their own. When it is
// not, the reason goes to mpirun with the rank's Init (jobwire.Init.NoCR)
// and mpirun refuses checkpoints of the job, or ends a job that asked for
// a cr module at start (mpirun:no-cr-support).
//
// The coordinated protocol itself (quiescing the library, draining the
// links, writing the rank's file) is the library's, not a module's: it is
// the same for every module. A module says what the program's part is.
package cr

import (
	"context"
	"errors"
	"fmt"

	"github.com/lamgo/lam/shared/ssi"
)

// Module is a cr module.
type Module interface {
	ssi.Module
	// Open prepares the module for a job with its settings.
	Open(s *ssi.Settings) (Job, error)
}

// Job is a selected module, opened for a job.
type Job interface {
	// Name is the module's name.
	Name() string
	// Restart reports whether the program's restart callback runs in
	// MPI_Init although the process was not started from a checkpoint set
	// (LAM's cr_self_do_restart: the program was started again by
	// lamrestart and reads its own restart files).
	Restart() bool
	// Callbacks names the C functions that are the program's callbacks,
	// for programs that register none in Go: C and Fortran programs
	// through libmpi.so look them up in the process (LAM's self module
	// looked them up in the executable).
	Callbacks() Callbacks
}

// Callbacks are the names of a C program's checkpoint, continue and
// restart functions ("" for none). Named says they were given one by one
// (cr_self_checkpoint, ...) rather than made from a prefix: a function
// named that way must exist.
type Callbacks struct {
	Checkpoint, Continue, Restart string
	Named                         bool
}

// Register registers a cr module from its package's init.
func Register(m Module) { ssi.Register(m) }

// ErrNone is wrapped by Select when no cr module runs: the job is then not
// checkpointable.
var ErrNone = errors.New("no cr module selected")

// Select chooses the job's cr module as the priorities and -ssi cr say and
// opens it. When none can run it returns an error wrapping ErrNone that
// says why (the job then runs, not checkpointable); a module the user
// named that is not built in is an error of its own (ssi.ErrUnknownModule).
func Select(ctx context.Context, s *ssi.Settings) (Job, error) {
	var mods []Module
	for _, m := range ssi.Modules(ssi.CR) {
		if cm, ok := m.(Module); ok {
			mods = append(mods, cm)
		}
	}
	m, _, err := ssi.Select(ctx, ssi.CR, s, mods)
	if errors.Is(err, ssi.ErrUnknownModule) {
		return nil, fmt.Errorf("cr: %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNone, err)
	}
	j, err := m.Open(s)
	if err != nil {
		return nil, fmt.Errorf("cr %s: %w", m.SSI().Name, err)
	}
	return j, nil
}
