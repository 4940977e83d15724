package lamcli

import (
	"context"
	"fmt"
)

// Stub describes a tool whose work has not landed yet: it answers -h with
// its usage and otherwise says plainly that it is not implemented, exiting
// with ExitNotImplemented. It never pretends to succeed.
func Stub(name, arrivesWith string, helpExit int) (*Tool, Command) {
	return &Tool{Name: name, Syntax: Syntax{Raw: true}, HelpExit: helpExit, RootOK: true},
		&stub{arrivesWith: arrivesWith}
}

type stub struct {
	Args        []string `arg:"" optional:"" passthrough:"all"`
	arrivesWith string
}

func (s *stub) Run(ctx context.Context, env *Env) error {
	return fmt.Errorf("%w: it arrives with %s", ErrNotImplemented, s.arrivesWith)
}
