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
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ErrInUse is returned by Listen when a live daemon already answers on the
// socket.
var ErrInUse = errors.New("a daemon is already listening")

// maxPath is the longest path a pathname unix socket can be bound or
// connected to: sun_path is 108 bytes including the terminating NUL.
const maxPath = 107

// Listener is a session socket being listened on.
type Listener struct {
	*net.UnixListener
	dir  int    // O_PATH descriptor of the socket's directory
	name string // the socket's name in it
	once sync.Once
}

// Close stops listening and removes the socket file (from the directory it
// was made in, even if that was renamed since).
func (l *Listener) Close() error {
	err := l.UnixListener.Close()
	l.once.Do(func() {
		_ = unix.Unlinkat(l.dir, l.name, 0)
		unix.Close(l.dir)
	})
	return err
}

// Listen listens on the socket at path, whose directory must exist, be
// ours and be closed to everyone else (mode 0700 or stricter, as a
// session directory is). A stale socket file left by a dead daemon is
// replaced; a live daemon is refused with ErrInUse. The socket file is
// made mode 0600.
//
// Listen changes no process-wide state (working directory, umask): other
// goroutines of a daemon may be opening files meanwhile. A path longer than
// sun_path allows is bound through /proc/self/fd/<dir>/<name> (Linux);
// without /proc such a path is refused.
func Listen(path string) (*Listener, error) {
	dirPath, name := filepath.Split(path)
	if dirPath == "" {
		dirPath = "."
	}
	dir, err := unix.Open(dirPath, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dirPath, Err: err}
	}
	ul, err := listenIn(dir, dirPath, name, path)
	if err != nil {
		unix.Close(dir)
		return nil, err
	}
	return &Listener{UnixListener: ul, dir: dir, name: name}, nil
}

func listenIn(dir int, dirPath, name, path string) (*net.UnixListener, error) {
	// Threat model: other local users (root and our own uid can do
	// anything to our files anyway). They cannot reach anything inside a
	// directory that only we may search, so the socket is safe there from
	// the moment bind creates it, with whatever mode the umask gives it,
	// until the chmod below; no umask change is needed. The check is on
	// the opened directory, which is where the socket is made and removed.
	var st unix.Stat_t
	if err := unix.Fstat(dir, &st); err != nil {
		return nil, &os.PathError{Op: "fstat", Path: dirPath, Err: err}
	}
	if int(st.Uid) != os.Geteuid() || st.Mode&0o077 != 0 {
		return nil, fmt.Errorf("listen on %s: the directory must be ours and mode 0700 (it is mode %#o, owner %d)", path, st.Mode&0o7777, st.Uid)
	}
	addr := path
	if len(path) > maxPath {
		addr = fmt.Sprintf("/proc/self/fd/%d/%s", dir, name)
		if len(addr) > maxPath {
			return nil, fmt.Errorf("listen on %s: the socket name %q is too long", path, name)
		}
		if !procFD(dir) {
			return nil, fmt.Errorf("listen on %s: the path is longer than %d bytes and /proc/self/fd is not available to shorten it; use a shorter session prefix", path, maxPath)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	c, err := Dial(ctx, path)
	cancel()
	switch {
	case err == nil:
		c.Close()
		return nil, fmt.Errorf("%s: %w", path, ErrInUse)
	case !IsNoDaemon(err):
		return nil, fmt.Errorf("probe %s for a live daemon: %w", path, err)
	}
	if err := unix.Unlinkat(dir, name, 0); err != nil && err != unix.ENOENT {
		return nil, fmt.Errorf("remove stale socket: %w", &os.PathError{Op: "unlink", Path: path, Err: err})
	}

	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: addr, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	l.SetUnlinkOnClose(false) // Listener.Close removes it through dir
	if err := unix.Fchmodat(dir, name, 0o600, 0); err != nil {
		l.Close()
		_ = unix.Unlinkat(dir, name, 0)
		return nil, fmt.Errorf("chmod %s: %w", path, err)
	}
	return l, nil
}

// procFD reports whether /proc/self/fd/<fd> names the directory fd.
func procFD(fd int) bool {
	var a, b unix.Stat_t
	if unix.Fstat(fd, &a) != nil || unix.Stat(fmt.Sprintf("/proc/self/fd/%d", fd), &b) != nil {
		return false
	}
	return a.Dev == b.Dev && a.Ino == b.Ino
}

// Dial connects to the socket at path.
func Dial(ctx context.Context, path string) (*net.UnixConn, error) {
	var d net.Dialer
	name := path
	if len(path) > maxPath {
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

// Detach takes uc's connection out of Go's network poller: it returns a
// duplicate of its descriptor (close-on-exec, non-blocking as the
// original) and closes uc. The caller polls and closes the descriptor
// itself; for a descriptor read and written at every message, the
// poller's own thread would otherwise be woken each time too.
func Detach(uc *net.UnixConn) (int, error) {
	rc, err := uc.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	if cerr := rc.Control(func(c uintptr) { fd, err = unix.FcntlInt(c, unix.F_DUPFD_CLOEXEC, 0) }); cerr != nil {
		return -1, cerr
	}
	if err != nil {
		return -1, fmt.Errorf("duplicate a connection's descriptor: %w", err)
	}
	uc.Close()
	return fd, nil
}
