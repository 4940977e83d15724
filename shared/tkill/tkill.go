// Package tkill stops the lamd of a session by its kill file and removes
// the session directory, as LAM's tkill did for hboot -t, lamwipe and
// failed boots.
package tkill

import (
	"context"
	"errors"
	"io/fs"
	"syscall"
	"time"

	"github.com/lamgo/lam/shared/session"
)

// Result says what Kill did.
type Result struct {
	Killed []int // pids that were signalled
	Found  bool  // a session directory existed
}

// Kill stops every lamd listed in the session's kill file and removes the
// session directory. Only processes of this user whose program is a lamd
// are signalled, so a stale kill file cannot make it kill a stranger. It
// sends SIGTERM, waits up to grace, then SIGKILL.
func Kill(ctx context.Context, dir session.Dir, grace time.Duration) (Result, error) {
	var res Result
	if err := dir.Check(); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return res, nil
		}
		return res, err
	}
	res.Found = true
	pids, err := dir.KillFilePIDs()
	if err != nil {
		return res, err
	}
	for _, pid := range pids {
		if running, sure := session.LamdRunning(pid); !running || !sure {
			continue
		}
		if syscall.Kill(pid, syscall.SIGTERM) == nil {
			res.Killed = append(res.Killed, pid)
		}
	}
	deadline := time.Now().Add(grace)
	for _, pid := range res.Killed {
		for alive(pid) && time.Now().Before(deadline) && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
		if alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if err := dir.Remove(); err != nil {
		return res, err
	}
	return res, nil
}

// alive reports whether pid, a lamd this call signalled, still runs.
func alive(pid int) bool {
	running, sure := session.LamdRunning(pid)
	return running || !sure && syscall.Kill(pid, 0) == nil
}
