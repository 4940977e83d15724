package lamcli

import (
	"context"

	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/session"
	"github.com/lamgo/lam/shared/wire"
)

// Session resolves the session directory from the environment
// (LAM_MPI_SESSION_PREFIX, LAM_MPI_SESSION_SUFFIX, batch ids) and the
// given options (empty = not given).
func (e *Env) Session(prefix, suffix string) (session.Dir, error) {
	return session.Resolve(session.Options{Prefix: prefix, Suffix: suffix, Getenv: e.Getenv})
}

// Daemon connects to the local lamd of the session. When none answers the
// error wraps ErrNoDaemon, so the tool exits with its no-daemon code after
// LAM's hint.
func (e *Env) Daemon(ctx context.Context, prefix, suffix string) (*lamclient.Client, error) {
	dir, err := e.Session(prefix, suffix)
	if err != nil {
		return nil, err
	}
	return lamclient.Dial(ctx, dir, e.Tool.Name, wire.RoleTool)
}

// RemoteExit maps an error from a lamd to LAM's exit code: the lamd's
// error code when there is one.
func RemoteExit(err error) error {
	if code := lamclient.Code(err); code != 0 {
		return Exit(int(code), err)
	}
	return err
}

// DaemonNodes connects to the local lamd of the session and reads the
// universe's node table, as every tool that works on nodes starts. The
// caller closes the client.
func (e *Env) DaemonNodes(ctx context.Context, prefix, suffix string) (*lamclient.Client, *wire.Nodes, error) {
	cl, err := e.Daemon(ctx, prefix, suffix)
	if err != nil {
		return nil, nil, err
	}
	table, err := cl.Nodes(ctx)
	if err != nil {
		cl.Close()
		return nil, nil, RemoteExit(err)
	}
	return cl, table, nil
}
