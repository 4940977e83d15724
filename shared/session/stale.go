package session

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/lamgo/lam/shared/localsock"
	"golang.org/x/sys/unix"
)

// ErrLive is wrapped by RemoveStale's error when the session's lamd may
// still be running: its directory is left alone.
var ErrLive = errors.New("the session's lamd may still be running")

// maxKillFile bounds how much of a kill file is read (a lamd writes one
// short line).
const maxKillFile = 64 << 10

// Stale is what RemoveStale found.
type Stale struct {
	Removed bool  // the directory was there, its lamd provably gone, and it is removed
	PIDs    []int // the processes its kill file named, all gone
}

// RemoveStale removes the session directory of a lamd that is provably
// gone, such as one killed with SIGKILL, which leaves its socket file and
// kill file behind. The proof is that
//
//   - nothing accepts a connection on the socket: there is no socket
//     file, or connecting to it is refused (a socket file whose listener
//     has closed refuses every connection), and
//   - no process the kill file names is a lamd of this user that is still
//     running (not a zombie); a pid reused by another program counts as
//     gone.
//
// With no session directory it does nothing and returns a zero Stale and
// a nil error. When the lamd may be alive (something accepts on the
// socket, the kill file names a running lamd, or the socket cannot be
// probed) it removes nothing and returns an error wrapping [ErrLive] that
// says why. The directory is checked and removed as [Dir.Remove] does:
// only our own, never following a symbolic link. Nothing prevents a new
// lamd from starting in the directory between the proof and the removal;
// lamboot of the same session on the same host at the same time is not
// supported (LAM's hboot -t removed the directory unconditionally).
func (d Dir) RemoveStale(ctx context.Context) (Stale, error) {
	var st Stale
	if err := d.Check(); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return st, nil
		}
		return st, err
	}
	pctx, cancel := context.WithTimeout(ctx, time.Second)
	c, err := localsock.Dial(pctx, d.Socket())
	cancel()
	switch {
	case err == nil:
		c.Close()
		return st, fmt.Errorf("%w: something accepts connections on %s", ErrLive, d.Socket())
	case !localsock.IsNoDaemon(err):
		return st, fmt.Errorf("%w: cannot tell whether anything listens on %s: %v", ErrLive, d.Socket(), err)
	}
	pids, err := d.KillFilePIDs()
	if err != nil {
		return st, err
	}
	for _, pid := range pids {
		if running, sure := LamdRunning(pid); running || !sure {
			return st, fmt.Errorf("%w: its lamd (pid %d) is running", ErrLive, pid)
		}
	}
	if err := d.Remove(); err != nil {
		return st, err
	}
	return Stale{Removed: true, PIDs: pids}, nil
}

// KillFilePIDs returns the pids of the session's kill file (none when it
// is missing), without following a symbolic link.
func (d Dir) KillFilePIDs() ([]int, error) {
	path := d.KillFile()
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("kill file: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("kill file %s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxKillFile))
	if err != nil {
		return nil, fmt.Errorf("kill file: %w", err)
	}
	var pids []int
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if pid, err := strconv.Atoi(strings.TrimSpace(sc.Text())); err == nil && pid > 1 {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// LamdRunning reports whether pid is a running (not zombie) lamd of this
// user, and whether it could tell: without /proc, a process that exists
// may or may not be one (sure is false). A zombie is as good as gone.
func LamdRunning(pid int) (running, sure bool) {
	if err := unix.Kill(pid, 0); err != nil && err != unix.EPERM {
		return false, true
	}
	proc := "/proc/" + strconv.Itoa(pid)
	var st unix.Stat_t
	if err := unix.Stat(proc, &st); err != nil {
		if _, serr := os.Stat("/proc/self"); serr != nil {
			return false, false // no /proc: cannot tell
		}
		return false, true // gone since
	}
	if int(st.Uid) != os.Geteuid() {
		return false, true
	}
	stat, err := os.ReadFile(proc + "/stat")
	if err != nil {
		return false, true
	}
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
		return false, true
	}
	cmdline, err := os.ReadFile(proc + "/cmdline")
	if err != nil {
		return false, true
	}
	argv0, _, _ := bytes.Cut(cmdline, []byte{0})
	return filepath.Base(string(argv0)) == "lamd", true
}

// WaitGone waits, at most timeout (or until ctx ends), until the session
// directory no longer exists: a lamd removes it last as it exits, so a
// new universe can boot once it is gone.
func (d Dir) WaitGone(ctx context.Context, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Lstat(d.Path); errors.Is(err, fs.ErrNotExist) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
