// Package session names, creates, validates and removes LAM session
// directories: the per-user, per-host directory holding the lamd's unix
// sockets and kill file (LAM 7.1.4 share/etc/kill.c).
//
// The directory is
//
//	<prefix>/lam-<user>@<host>[-<suffix>]
//
// where the prefix is -sessionprefix, else $LAM_MPI_SESSION_PREFIX, else
// $TMPDIR, else /tmp, and the suffix is -sessionsuffix, else
// $LAM_MPI_SESSION_SUFFIX, else $LAM_MPI_SOCKET_SUFFIX (deprecated), else a
// batch job id (see [BatchID]).
//
// An environment variable set to the empty string counts as unset. LAM
// 7.1.4 tells the two apart (an empty $LAM_MPI_SESSION_SUFFIX there gives
// a name ending in "-"); Options.Getenv cannot, so an empty value is
// ignored.
//
// LAM removed and re-created anything in the way of the session
// directory: a file, a symbolic link, a directory with the wrong mode, or
// one owned by another user. This package never removes or follows what it
// does not own. A symbolic link or non-directory is refused with
// [ErrNotDir], another user's directory with [ErrNotOwner]. Only our own
// directory with a wrong mode is repaired, to 0700. All checks are made on
// the opened directory (openat with O_NOFOLLOW, then fstat and fchmod), not
// on an earlier lstat of the path.
//
// These checks are as good as the prefix. In a sticky directory such as
// /tmp, or one only we can write, nobody else can rename or replace our
// entry. In a world-writable directory without the sticky bit, anyone can
// swap it at any time, so no check on the path would help.
package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// File names inside the session directory, and the environment variables
// that LAM reads.
const (
	SocketName   = "lam-kernel-socket" // the lamd's unix stream socket
	IOSocketName = "lam-io-socket"     // the I/O daemon's unix stream socket
	KillFileName = "lam-killfile"      // lamd PIDs, ASCII, one per line

	EnvPrefix       = "LAM_MPI_SESSION_PREFIX"
	EnvSuffix       = "LAM_MPI_SESSION_SUFFIX"
	EnvSocketSuffix = "LAM_MPI_SOCKET_SUFFIX" // deprecated alias of EnvSuffix

	// DefaultPrefix is the prefix when neither an option nor
	// $LAM_MPI_SESSION_PREFIX nor $TMPDIR gives one.
	DefaultPrefix = "/tmp"

	// UnknownUser is the user name when the current uid has no passwd
	// entry (as in LAM).
	UnknownUser = "unknown"

	// MaxSocketPath is the longest path a pathname unix socket can be
	// bound or connected to: sun_path is 108 bytes including the
	// terminating NUL.
	MaxSocketPath = 107

	// maxNameLen is NAME_MAX, the longest file name a directory entry
	// may have.
	maxNameLen = 255

	dirPrefix = "lam-"
)

var (
	// ErrNotOwner: the session directory belongs to another user.
	ErrNotOwner = errors.New("not owned by the current user")
	// ErrNotDir: something that is not a directory (a symbolic link, a
	// file, ...) is where the session directory or prefix should be.
	ErrNotDir = errors.New("not a directory")
	// ErrBadName: a user, host, suffix or file name would not make a
	// single, safe file name component.
	ErrBadName = errors.New("invalid name")
	// ErrSocketPathTooLong: a socket path does not fit in sun_path.
	ErrSocketPathTooLong = errors.New("unix socket path too long")
)

// Options are the inputs LAM uses to name the session directory.
type Options struct {
	Prefix string              // -sessionprefix value ("" if not given)
	Suffix string              // -sessionsuffix value ("" if not given)
	Getenv func(string) string // os.Getenv in production (nil = os.Getenv)
	User   string              // "" = current user's name (passwd entry of the real uid; fallback "unknown")
	Host   string              // "" = os.Hostname()
}

// Dir is a resolved session directory. Path is always
// filepath.Join(Prefix, "lam-"+User+"@"+Host[+"-"+Suffix]); the methods
// that touch the file system refuse a Dir for which that does not hold.
type Dir struct {
	Path   string // the session directory
	Prefix string // absolute, cleaned prefix
	Suffix string // "" when there is none
	User   string
	Host   string
}

// Resolve computes the session directory named by o. It does not create
// anything; the only file system access is a stat of the prefix, which
// must exist and be a directory (symbolic links to one are fine, e.g.
// /tmp -> /private/tmp). A relative prefix is made absolute against the
// current directory, because the daemons change directory.
func Resolve(o Options) (Dir, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}

	prefix := firstNonEmpty(o.Prefix, getenv(EnvPrefix), getenv("TMPDIR"), DefaultPrefix)
	if strings.IndexByte(prefix, 0) >= 0 {
		return Dir{}, fmt.Errorf("session prefix %q contains a NUL byte: %w", prefix, ErrBadName)
	}
	abs, err := filepath.Abs(prefix)
	if err != nil {
		return Dir{}, fmt.Errorf("session prefix %q: %w", prefix, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Dir{}, fmt.Errorf("session prefix %s does not exist: %w", abs, err)
		}
		return Dir{}, fmt.Errorf("session prefix %s: %w", abs, err)
	}
	if !fi.IsDir() {
		return Dir{}, fmt.Errorf("session prefix %s is a %s: %w", abs, describe(fi.Mode()), ErrNotDir)
	}

	name := o.User
	if name == "" {
		name = currentUser()
	}
	host := o.Host
	if host == "" {
		if host, err = os.Hostname(); err != nil {
			return Dir{}, fmt.Errorf("session directory: cannot get the host name: %w", err)
		}
	}
	suffix := firstNonEmpty(o.Suffix, getenv(EnvSuffix), getenv(EnvSocketSuffix), BatchID(getenv))

	if err := checkComponent("user name", name); err != nil {
		return Dir{}, err
	}
	if err := checkComponent("host name", host); err != nil {
		return Dir{}, err
	}
	if suffix != "" {
		if err := checkComponent("session suffix", suffix); err != nil {
			return Dir{}, err
		}
	}

	base := dirPrefix + name + "@" + host
	if suffix != "" {
		base += "-" + suffix
	}
	if len(base) > maxNameLen {
		return Dir{}, fmt.Errorf("session directory name %q is %d bytes, longer than the %d a file name may have: %w",
			base, len(base), maxNameLen, ErrBadName)
	}
	return Dir{
		Path:   filepath.Join(abs, base),
		Prefix: abs,
		Suffix: suffix,
		User:   name,
		Host:   host,
	}, nil
}

// BatchID returns LAM's session suffix for the batch job the process runs
// in, or "" outside a batch job. The first match wins:
//
//	pbs-$PBS_JOBID                if PBS_ENVIRONMENT and PBS_JOBID are set
//	slurm-$SLURM_JOBID            if SLURM_JOBID is set
//	lsf-$LSB_JOBID-$LSB_JOBINDEX  if LSB_JOBID and LSB_JOBINDEX are set
//	sge-$JOB_ID-$SGE_TASK_ID      if SGE_ROOT and JOB_ID are set
//	                              ($SGE_TASK_ID defaults to "undefined")
//
// As in LAM 7.1.4's lam_get_batchid, LSF counts only when both LSB_JOBID
// and LSB_JOBINDEX are set (LSF sets LSB_JOBINDEX to 0 outside job
// arrays); otherwise the SGE rule is tried next. "Set" means non-empty.
// A nil getenv means os.Getenv.
func BatchID(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	switch {
	case getenv("PBS_ENVIRONMENT") != "" && getenv("PBS_JOBID") != "":
		return "pbs-" + getenv("PBS_JOBID")
	case getenv("SLURM_JOBID") != "":
		return "slurm-" + getenv("SLURM_JOBID")
	case getenv("LSB_JOBID") != "" && getenv("LSB_JOBINDEX") != "":
		return "lsf-" + getenv("LSB_JOBID") + "-" + getenv("LSB_JOBINDEX")
	case getenv("SGE_ROOT") != "" && getenv("JOB_ID") != "":
		return "sge-" + getenv("JOB_ID") + "-" + firstNonEmpty(getenv("SGE_TASK_ID"), "undefined")
	}
	return ""
}

// Env returns the environment LAM puts back so that processes started
// from here (and lamboot's remote hboots) use the same suffix:
// LAM_MPI_SESSION_SUFFIX=<suffix> when there is a suffix, nil otherwise.
// The prefix is deliberately not exported (it may differ between nodes).
func (d Dir) Env() []string {
	if d.Suffix == "" {
		return nil
	}
	return []string{EnvSuffix + "=" + d.Suffix}
}

// String returns d.Path.
func (d Dir) String() string { return d.Path }

// Socket returns the path of the lamd's unix socket, <Path>/lam-kernel-socket.
func (d Dir) Socket() string { return filepath.Join(d.Path, SocketName) }

// IOSocket returns <Path>/lam-io-socket.
func (d Dir) IOSocket() string { return filepath.Join(d.Path, IOSocketName) }

// KillFile returns <Path>/lam-killfile.
func (d Dir) KillFile() string { return filepath.Join(d.Path, KillFileName) }

// File returns <Path>/name, or "" when name is not a single plain file
// name: empty, ".", containing "..", '/' or a NUL byte. It never panics.
func (d Dir) File(name string) string {
	if name == "" || name == "." || strings.Contains(name, "..") ||
		strings.ContainsAny(name, "/\x00") {
		return ""
	}
	return filepath.Join(d.Path, name)
}

// SocketPathOK reports, wrapping [ErrSocketPathTooLong], when Socket() is
// too long for a unix socket address (more than [MaxSocketPath] bytes).
// IOSocket() is shorter, so it fits whenever Socket() does.
//
// When it is too long, callers bind or connect with the path relative to
// the session directory after changing into it, as LAM's lamd does with
// chdir; the file system path limit is far above sun_path's.
func (d Dir) SocketPathOK() error {
	p := d.Socket()
	if len(p) > MaxSocketPath {
		return fmt.Errorf("socket path %s is %d bytes, more than the %d a unix socket address holds; use a shorter session prefix: %w",
			p, len(p), MaxSocketPath, ErrSocketPathTooLong)
	}
	return nil
}

// Create creates the session directory with mode 0700, or validates an
// existing one. It fails with [ErrNotDir] when a symbolic link or anything
// but a directory is in the way (never followed, changed or removed), and
// with [ErrNotOwner] when the directory belongs to another uid (left as it
// is). Our own directory with another mode (e.g. 0755, or setgid inherited
// from the prefix) is changed to exactly 0700; so is a new directory, so
// the umask cannot weaken it. Create may be called on an existing,
// valid directory any number of times.
func (d Dir) Create() error { return d.open(true) }

// Check validates an existing session directory, for clients that must
// not create it. It fails like [Dir.Create] does, and with an error
// wrapping [fs.ErrNotExist] when the directory is missing. Like Create, it
// repairs the mode of our own directory to 0700: it is ours, and leaving
// it open to others would be worse than fixing it.
func (d Dir) Check() error { return d.open(false) }

// Remove removes the session directory and everything in it, without
// following symbolic links inside it. It refuses ([ErrNotDir],
// [ErrNotOwner]) what Create would refuse, touching nothing. A missing
// directory (or prefix) is not an error.
func (d Dir) Remove() error {
	base, err := d.base()
	if err != nil {
		return err
	}
	pfd, err := openPrefix(d.Prefix)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	defer unix.Close(pfd)

	fd, err := d.openChecked(pfd, base)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	err = removeContents(fd, d.Path)
	unix.Close(fd)
	if err != nil {
		return fmt.Errorf("removing session directory %s: %w", d.Path, err)
	}
	if err := ignoringEINTR(func() error { return unix.Unlinkat(pfd, base, unix.AT_REMOVEDIR) }); err != nil && err != unix.ENOENT {
		return fmt.Errorf("removing session directory: %w", &fs.PathError{Op: "rmdir", Path: d.Path, Err: err})
	}
	return nil
}

// open implements Create and Check.
func (d Dir) open(create bool) error {
	base, err := d.base()
	if err != nil {
		return err
	}
	pfd, err := openPrefix(d.Prefix)
	if err != nil {
		return err
	}
	defer unix.Close(pfd)

	// A few rounds: something may remove the entry between our mkdir
	// (EEXIST) and our look at it.
	for attempt := 0; ; attempt++ {
		if create {
			err := ignoringEINTR(func() error { return unix.Mkdirat(pfd, base, 0o700) })
			if err != nil && err != unix.EEXIST {
				return fmt.Errorf("creating session directory: %w", &fs.PathError{Op: "mkdir", Path: d.Path, Err: err})
			}
		}
		fd, err := d.openChecked(pfd, base)
		if err != nil {
			if create && attempt < 3 && errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return err
		}
		defer unix.Close(fd)

		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return fmt.Errorf("session directory: %w", &fs.PathError{Op: "fstat", Path: d.Path, Err: err})
		}
		if st.Mode&0o7777 != 0o700 {
			if err := ignoringEINTR(func() error { return unix.Fchmod(fd, 0o700) }); err != nil {
				return fmt.Errorf("session directory: %w", &fs.PathError{Op: "chmod", Path: d.Path, Err: err})
			}
		}
		return nil
	}
}

// openChecked opens base in the directory pfd as a directory without
// following a symbolic link, and checks on the open descriptor that it is
// a directory owned by us. A missing entry gives an error wrapping
// fs.ErrNotExist. The caller closes the returned descriptor.
func (d Dir) openChecked(pfd int, base string) (int, error) {
	// Look first, so that a FIFO or device is reported, not opened.
	var st unix.Stat_t
	err := ignoringEINTR(func() error { return unix.Fstatat(pfd, base, &st, unix.AT_SYMLINK_NOFOLLOW) })
	if err != nil {
		return -1, fmt.Errorf("session directory: %w", &fs.PathError{Op: "lstat", Path: d.Path, Err: err})
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return -1, d.notDir(st.Mode)
	}

	var fd int
	err = ignoringEINTR(func() error {
		var e error
		fd, e = unix.Openat(pfd, base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		return e
	})
	switch {
	case err == unix.ELOOP || err == unix.ENOTDIR:
		// Replaced since the lstat above.
		if e := unix.Fstatat(pfd, base, &st, unix.AT_SYMLINK_NOFOLLOW); e == nil {
			return -1, d.notDir(st.Mode)
		}
		return -1, fmt.Errorf("session directory %s is no longer a directory: %w", d.Path, ErrNotDir)
	case err != nil:
		return -1, fmt.Errorf("session directory: %w", &fs.PathError{Op: "open", Path: d.Path, Err: err})
	}

	// The descriptor is what we will use; check it, not the path.
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("session directory: %w", &fs.PathError{Op: "fstat", Path: d.Path, Err: err})
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		unix.Close(fd)
		return -1, d.notDir(st.Mode)
	}
	if uid := os.Geteuid(); int(st.Uid) != uid {
		unix.Close(fd)
		return -1, fmt.Errorf("session directory %s is owned by uid %d (%s), not by uid %d (%s); refusing to use it: %w",
			d.Path, st.Uid, uidName(int(st.Uid)), uid, uidName(uid), ErrNotOwner)
	}
	return fd, nil
}

func (d Dir) notDir(mode uint32) error {
	what := "non-directory"
	switch mode & unix.S_IFMT {
	case unix.S_IFLNK:
		what = "symbolic link"
	case unix.S_IFREG:
		what = "regular file"
	case unix.S_IFSOCK:
		what = "socket"
	case unix.S_IFIFO:
		what = "named pipe"
	case unix.S_IFCHR, unix.S_IFBLK:
		what = "device"
	}
	return fmt.Errorf("session directory %s exists but is a %s; refusing to follow, use or remove it: %w",
		d.Path, what, ErrNotDir)
}

// base checks that d is well formed (Path a "lam-*" entry directly inside
// the absolute Prefix) and returns the entry's name. This keeps Remove
// from being pointed at arbitrary directories through a hand-made Dir.
func (d Dir) base() (string, error) {
	base := filepath.Base(d.Path)
	if d.Prefix == "" || !filepath.IsAbs(d.Prefix) || filepath.Clean(d.Prefix) != d.Prefix ||
		d.Path != filepath.Join(d.Prefix, base) || !strings.HasPrefix(base, dirPrefix) ||
		strings.ContainsAny(d.Path, "\x00") {
		return "", fmt.Errorf("malformed session directory %q (prefix %q); use Resolve: %w", d.Path, d.Prefix, ErrBadName)
	}
	return base, nil
}

// openPrefix opens the prefix directory, following symbolic links.
func openPrefix(prefix string) (int, error) {
	var fd int
	err := ignoringEINTR(func() error {
		var e error
		fd, e = unix.Open(prefix, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		return e
	})
	if err != nil {
		if err == unix.ENOTDIR {
			return -1, fmt.Errorf("session prefix %s: %w", prefix, ErrNotDir)
		}
		return -1, fmt.Errorf("session prefix: %w", &fs.PathError{Op: "open", Path: prefix, Err: err})
	}
	return fd, nil
}

// removeContents empties the directory open as fd, named path in errors.
// Entries are removed relative to fd; subdirectories are opened with
// O_NOFOLLOW, so a symbolic link is removed, never followed.
func removeContents(fd int, path string) error {
	var first error
	note := func(err error) {
		if first == nil {
			first = err
		}
	}
	// Repeat while a pass removes something and leaves entries behind
	// (something may be adding files while we remove them).
	for pass := 0; pass < 5; pass++ {
		names, err := readNames(fd, path)
		if err != nil {
			return err
		}
		if len(names) == 0 {
			return first
		}
		for _, name := range names {
			p := path + "/" + name
			err := ignoringEINTR(func() error { return unix.Unlinkat(fd, name, 0) })
			switch {
			case err == nil || err == unix.ENOENT:
				continue
			case err != unix.EISDIR && err != unix.EPERM:
				note(&fs.PathError{Op: "unlink", Path: p, Err: err})
				continue
			}
			// A directory (Linux says EISDIR, POSIX allows EPERM).
			var sub int
			oerr := ignoringEINTR(func() error {
				var e error
				sub, e = unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
				return e
			})
			if oerr != nil {
				if oerr != unix.ENOENT {
					note(&fs.PathError{Op: "unlink", Path: p, Err: err})
				}
				continue
			}
			serr := removeContents(sub, p)
			unix.Close(sub)
			if serr != nil {
				note(serr)
				continue
			}
			if err := ignoringEINTR(func() error { return unix.Unlinkat(fd, name, unix.AT_REMOVEDIR) }); err != nil && err != unix.ENOENT {
				note(&fs.PathError{Op: "rmdir", Path: p, Err: err})
			}
		}
		if first != nil {
			return first
		}
	}
	return first
}

// readNames lists the directory open as fd (through a fresh descriptor,
// so fd's offset does not matter).
func readNames(fd int, path string) ([]string, error) {
	var dfd int
	err := ignoringEINTR(func() error {
		var e error
		dfd, e = unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		return e
	})
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(dfd), path)
	defer f.Close()
	return f.Readdirnames(-1)
}

// checkComponent rejects values that would not stay a part of one file
// name: '/', NUL, "." and "..".
func checkComponent(what, s string) error {
	switch {
	case strings.IndexByte(s, '/') >= 0:
		return fmt.Errorf("%s %q contains '/': %w", what, s, ErrBadName)
	case strings.IndexByte(s, 0) >= 0:
		return fmt.Errorf("%s %q contains a NUL byte: %w", what, s, ErrBadName)
	case s == "." || s == "..":
		return fmt.Errorf("%s may not be %q: %w", what, s, ErrBadName)
	}
	return nil
}

// currentUser is LAM's getpwuid(getuid())->pw_name, or "unknown". It
// looks up the passwd entry only, not $USER.
func currentUser() string {
	u, err := user.LookupId(strconv.Itoa(os.Getuid()))
	if err != nil || u.Username == "" {
		return UnknownUser
	}
	return u.Username
}

func uidName(uid int) string {
	u, err := user.LookupId(strconv.Itoa(uid))
	if err != nil || u.Username == "" {
		return "no passwd entry"
	}
	return u.Username
}

func describe(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "regular file"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "non-directory"
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func ignoringEINTR(f func() error) error {
	for {
		if err := f(); err != unix.EINTR {
			return err
		}
	}
}
