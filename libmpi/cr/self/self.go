// Package self is the self cr module: application-level checkpointing,
// LAM's bridge between a program that writes its own restart files and a
// coordinated checkpoint of the whole job. At a checkpoint the library
// quiesces and drains, then calls the program's checkpoint callback, which
// writes the program's state through a writer the library gives it, then
// its continue callback; a process started again from a checkpoint set
// gets its state back in MPI_Init through the restart callback. Go
// programs register the callbacks with mpi.OnCheckpoint, mpi.OnContinue
// and mpi.OnRestart.
//
// As in LAM, the module is selected only when asked for (-ssi cr self).
//
// LAM's parameters: cr_self_do_restart (0) calls the restart callback in
// MPI_Init of a process that was not started from a checkpoint set (LAM's
// self restart: lamrestart runs the program again, which reads its own
// files). cr_self_prefix, cr_self_checkpoint, cr_self_continue and
// cr_self_restart name the C functions that are a C or Fortran program's
// callbacks (<prefix>_checkpoint, <prefix>_continue, <prefix>_restart,
// lam_cr_self_checkpoint … by default; or each function by its name, and
// then not with a prefix as well): libmpi.so looks them up in the process
// as LAM looked them up in the executable. A Go program registers
// functions instead.
package self

import (
	"context"
	"errors"
	"fmt"

	"github.com/lamgo/lam/libmpi/cr"
	"github.com/lamgo/lam/shared/buildinfo"
	"github.com/lamgo/lam/shared/ssi"
)

// Name is the module's name.
const Name = "self"

// defaultPrefix is LAM's cr_self_prefix.
const defaultPrefix = "lam_cr_self"

// Module is the self module.
type Module struct{}

func init() { cr.Register(Module{}) }

// SSI describes the module and its parameters, in LAM's order.
func (Module) SSI() ssi.Info {
	return ssi.Info{Framework: ssi.CR, Name: Name, API: ssi.APIVersion[ssi.CR], Version: buildinfo.ModuleVersion, Priority: 25,
		Params: []ssi.Param{
			{Name: "do_restart", Default: "0", Type: ssi.Bool,
				Help: "Call the program's restart callback in MPI_Init even when the process was not started from a checkpoint set (LAM's self restart by lamrestart)"},
			{Name: "prefix", Default: defaultPrefix, Type: ssi.String,
				Help: "Prefix of a C or Fortran program's callback functions (<prefix>_checkpoint, <prefix>_continue, <prefix>_restart; a Fortran subroutine's name as gfortran gives it, with a trailing _, is found too); Go programs register theirs with mpi.OnCheckpoint, OnContinue and OnRestart"},
			{Name: "checkpoint", Type: ssi.String,
				Help: "Name of a C or Fortran program's checkpoint function (not with a prefix; also found with a trailing _); Go programs use mpi.OnCheckpoint"},
			{Name: "continue", Type: ssi.String,
				Help: "Name of a C or Fortran program's continue function (not with a prefix; also found with a trailing _); Go programs use mpi.OnContinue"},
			{Name: "restart", Type: ssi.String,
				Help: "Name of a C or Fortran program's restart function (not with a prefix; also found with a trailing _); Go programs use mpi.OnRestart"},
		}}
}

// full is the full name of one of the module's parameters.
func full(name string) string { return ssi.FullName(ssi.CR, Name, name) }

// Query: the module runs only when asked for by name (-ssi cr self), as
// LAM's did.
func (Module) Query(_ context.Context, s *ssi.Settings) (int, error) {
	for _, n := range ssi.Requested(s, ssi.CR) {
		if n == Name {
			return 25, nil
		}
	}
	return 0, errors.New("chosen only when asked for (-ssi cr self)")
}

// Open checks the parameters.
func (Module) Open(s *ssi.Settings) (cr.Job, error) {
	restart, err := s.Bool(full("do_restart"))
	if err != nil {
		return nil, err
	}
	if s.IsSet(full("prefix")) {
		for _, fn := range []string{"checkpoint", "continue", "restart"} {
			if s.String(full(fn)) != "" {
				return nil, fmt.Errorf("%s and %s are both set: give a prefix or the function names, not both", full("prefix"), full(fn))
			}
		}
	}
	j := job{restart: restart}
	for _, c := range []struct {
		fn   string
		name *string
	}{{"checkpoint", &j.cb.Checkpoint}, {"continue", &j.cb.Continue}, {"restart", &j.cb.Restart}} {
		*c.name = s.String(full(c.fn))
		if *c.name != "" {
			j.cb.Named = true
		}
	}
	if !j.cb.Named {
		prefix := s.String(full("prefix"))
		if prefix == "" {
			prefix = defaultPrefix
		}
		j.cb.Checkpoint, j.cb.Continue, j.cb.Restart = prefix+"_checkpoint", prefix+"_continue", prefix+"_restart"
	}
	return j, nil
}

type job struct {
	restart bool
	cb      cr.Callbacks
}

func (job) Name() string              { return Name }
func (j job) Restart() bool           { return j.restart }
func (j job) Callbacks() cr.Callbacks { return j.cb }
