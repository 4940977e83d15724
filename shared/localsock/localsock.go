// Package localsock listens on and dials the Unix stream socket of a
// session directory, and tells who is on the other end.
package localsock

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ErrInUse is returned by Listen when a live daemon already answers on the
// socket.
var ErrInUse = errors.New("a daemon is already listening")

// Listen listens on the socket at path, which must be inside an existing
// directory that the caller has checked (mode 0700, owned by us). A stale
// socket file left by a dead daemon is removed; a live one is refused with
// ErrInUse. The socket file is made mode 0600.
//
// Paths longer than the kernel's limit are handled by binding relative to
// the directory.
func Listen(path string) (*net.UnixListener, error) {
	if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
		c.Close()
		return nil, fmt.Errorf("%s: %w", path, ErrInUse)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("remove stale socket: %w", err)
	}
	addr := path
	if len(path) > 107 {
		// Bind by a path relative to the directory; the kernel limit is on
		// the name given, not the resolved path.
		dir, base := filepath.Split(path)
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		if err := os.Chdir(dir); err != nil {
			return nil, err
		}
		defer os.Chdir(wd)
		addr = base
	}
	old := unix.Umask(0o177)
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: addr, Net: "unix"})
	unix.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	l.SetUnlinkOnClose(true)
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("chmod %s: %w", path, err)
	}
	return l, nil
}

// Dial connects to the socket at path.
func Dial(ctx context.Context, path string) (*net.UnixConn, error) {
	var d net.Dialer
	name := path
	if len(path) > 107 {
		// Too long for sun_path: reach it through /proc/self/fd.
		dfd, err := unix.Open(filepath.Dir(path), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: filepath.Dir(path), Err: err}
		}
		defer unix.Close(dfd)
		name = fmt.Sprintf("/proc/self/fd/%d/%s", dfd, filepath.Base(path))
	}
	c, err := d.DialContext(ctx, "unix", name)
	if err != nil {
		return nil, err
	}
	return c.(*net.UnixConn), nil
}

// Cred is the identity of a connected peer process.
type Cred struct {
	PID int
	UID int
	GID int
}

// PeerCred returns the credentials of the process at the other end of c,
// as the kernel recorded them when the connection was made.
func PeerCred(c *net.UnixConn) (Cred, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return Cred{}, err
	}
	var uc *unix.Ucred
	var serr error
	if err := raw.Control(func(fd uintptr) {
		uc, serr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return Cred{}, err
	}
	if serr != nil {
		return Cred{}, fmt.Errorf("SO_PEERCRED: %w", serr)
	}
	return Cred{PID: int(uc.Pid), UID: int(uc.Uid), GID: int(uc.Gid)}, nil
}

// IsNoDaemon reports whether err from Dial means that no daemon listens
// (no socket file, or nobody accepting on it).
func IsNoDaemon(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)
}
