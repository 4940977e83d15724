// Package tkill stops the lamd of a session by its kill file and removes
// the session directory, as LAM's tkill did for hboot -t, lamwipe and
// failed boots.
package tkill

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
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
	data, err := os.ReadFile(dir.KillFile())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, fmt.Errorf("kill file: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		pid, err := strconv.Atoi(string(bytes.TrimSpace(sc.Bytes())))
		if err != nil || pid <= 1 || !isOurLamd(pid) {
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

func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	// A zombie is as good as gone.
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) {
		return b[i+2] != 'Z'
	}
	return true
}

// isOurLamd reports whether pid is a process of this user running lamd.
func isOurLamd(pid int) bool {
	st, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
	if err != nil {
		return false
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); !ok || int(sys.Uid) != os.Geteuid() {
		return false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	argv0, _, _ := bytes.Cut(cmdline, []byte{0})
	return filepath.Base(string(argv0)) == "lamd"
}
