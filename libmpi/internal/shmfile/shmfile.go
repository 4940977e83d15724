// Package shmfile creates and maps the shared-memory files a job's
// processes of one node share (the usysv/sysv rpi segment, the shmem coll
// module's areas): owner-only regular files in /dev/shm, created
// exclusively, refused when another user could have made or changed them.
//
// Create reserves every page of the file before anyone maps it, so a file
// that does not fit in the file system's free space fails there, with
// ENOSPC, instead of killing with SIGBUS the first process to touch a
// page the file system cannot give.
package shmfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"
)

// ErrNotYet is what Open returns while the file does not exist or is
// still being sized by its creator.
var ErrNotYet = errors.New("not there yet")

// A Span is a range of bytes of a file.
type Span struct{ Off, Len int }

// Create makes the file at path, of size bytes, owner-only, reserves its
// pages and maps it. Pages wholly in the spans of skip, which the file's
// users never touch, are not reserved. It fails if the file exists, or
// (with an error that wraps unix.ENOSPC) if the file system cannot hold
// the pages. On failure nothing is left behind.
func Create(path string, size int, skip ...Span) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create shared segment %s: %w", path, err)
	}
	defer unix.Close(fd)
	if err := unix.Fchmod(fd, 0o600); err != nil { // whatever the umask
		unix.Unlink(path)
		return nil, fmt.Errorf("shared segment %s: %w", path, err)
	}
	if err := reserve(fd, int64(size), skip); err != nil {
		unix.Unlink(path)
		return nil, notFit(path, size, err)
	}
	mem, err := mapFd(fd, path, size)
	if err != nil {
		unix.Unlink(path)
		return nil, err
	}
	return mem, nil
}

// Open maps the file at path that another process of the node creates:
// ErrNotYet while it is missing or shorter than size; an error if it is
// not an owner-only regular file of this user, or longer than size.
func Open(path string, size int) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err == unix.ENOENT {
		return nil, ErrNotYet
	}
	if err != nil {
		return nil, fmt.Errorf("open shared segment %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("shared segment %s: %w", path, err)
	}
	switch {
	case int(st.Uid) != os.Getuid() || st.Mode&0o077 != 0 || st.Mode&unix.S_IFMT != unix.S_IFREG:
		return nil, fmt.Errorf("shared segment %s: not an owner-only file of this user; refusing it", path)
	case st.Size < int64(size):
		return nil, ErrNotYet // still being sized
	case st.Size > int64(size):
		return nil, fmt.Errorf("shared segment %s: %d bytes, expected %d (do the processes of the node disagree on the parameters?)", path, st.Size, size)
	}
	return mapFd(fd, path, size)
}

// notFit wraps the error of reserving size bytes of the file at path.
func notFit(path string, size int, err error) error {
	if errors.Is(err, unix.ENOSPC) {
		return fmt.Errorf("shared segment %s: %d bytes do not fit in the free space of %s: %w", path, size, filepath.Dir(path), err)
	}
	return fmt.Errorf("reserve %d bytes of shared segment %s: %w", size, path, err)
}

// reserveStep is how much of the file one fallocate call reserves: a
// signal interrupts the call with EINTR and tmpfs then gives back what that
// call had reserved, so the steps are short enough for the retry to end.
const reserveStep = 1 << 20

// errNoFallocate is allocate's answer on a file system without fallocate.
var errNoFallocate = errors.New("the file system cannot reserve pages")

// reserve gives the file size bytes with every page allocated but those
// only in skip, then sets its size, so that a file that has its size has
// its pages. A file system without fallocate gets the size alone
// (ftruncate), as before: its pages are allocated when first touched.
func reserve(fd int, size int64, skip []Span) error {
	skip = append(slices.Clone(skip), Span{Off: int(size)})
	slices.SortFunc(skip, func(a, b Span) int { return a.Off - b.Off })
	off := int64(0)
	for _, sp := range skip {
		if end := min(int64(sp.Off), size); off < end {
			err := allocate(fd, off, end)
			if err == errNoFallocate {
				break
			}
			if err != nil {
				return err
			}
		}
		off = max(off, int64(sp.Off+sp.Len))
	}
	return unix.Ftruncate(fd, size)
}

// allocate reserves the pages of bytes off to end of the file, whose size
// it leaves (fallocate(2); on tmpfs the pages count against the file
// system's size and the memory limits from now on, not at first touch).
func allocate(fd int, off, end int64) error {
	for off < end {
		n := min(reserveStep, end-off)
		switch err := unix.Fallocate(fd, unix.FALLOC_FL_KEEP_SIZE, off, n); err {
		case nil:
			off += n
		case unix.EINTR:
		case unix.EOPNOTSUPP, unix.ENOSYS:
			return errNoFallocate
		default:
			return fmt.Errorf("reserve bytes %d to %d: %w", off, off+n, err)
		}
	}
	return nil
}

func mapFd(fd int, path string, size int) ([]byte, error) {
	mem, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map shared segment %s: %w", path, err)
	}
	return mem, nil
}
