package jobwire

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ShmDir is where a job's shared-memory segments live while its processes
// attach to them (the rpi modules usysv and sysv unlink a segment as soon
// as every process on the node has mapped it).
var ShmDir = "/dev/shm"

// SegmentPrefix is the file-name prefix of every segment of a job on
// every node; the modules append the node and a tag of their own.
func SegmentPrefix(uid int, job JobID) string {
	return fmt.Sprintf("%s%d-%d-", userPrefix(uid), job.Node, job.PID)
}

func userPrefix(uid int) string { return fmt.Sprintf("lam-%d-", uid) }

// RemoveSegments removes the segments that remain of a job (job != nil),
// or of every job of the user uid (job == nil), and returns how many it
// removed. Only regular files owned by uid are touched.
func RemoveSegments(uid int, job *JobID) (int, error) {
	prefix := userPrefix(uid)
	if job != nil {
		prefix = SegmentPrefix(uid, *job)
	}
	return removeOwned(uid, func(name string) bool { return strings.HasPrefix(name, prefix) })
}

// RemoveProcessRegions removes the regions libfabric's shm provider (the
// ofi rpi module's) made for the process pid, named
// "<pid>:<domain>:<endpoint>": the provider removes them when the
// endpoint closes, so those of a process that has exited are what a
// killed process left (16 MiB each). Only regular files owned by uid are
// touched; it returns how many it removed. Call it once pid has been
// reaped, before the pid can be given to another process.
func RemoveProcessRegions(uid, pid int) (int, error) {
	if pid <= 0 {
		return 0, nil
	}
	prefix := strconv.Itoa(pid) + ":"
	return removeOwned(uid, func(name string) bool {
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok {
			return false
		}
		dom, ep, ok := strings.Cut(rest, ":")
		return ok && digits(dom) && digits(ep)
	})
}

func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// removeOwned removes the regular files of ShmDir owned by uid whose
// names match, and returns how many it removed.
func removeOwned(uid int, match func(name string) bool) (int, error) {
	entries, err := os.ReadDir(ShmDir)
	if err != nil {
		if os.IsNotExist(err) {
			return 0, nil
		}
		return 0, fmt.Errorf("shared-memory segments: %w", err)
	}
	n := 0
	var first error
	for _, e := range entries {
		if !match(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(ShmDir, e.Name())
		fi, err := os.Lstat(path)
		if err != nil {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != uid {
			continue
		}
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			if first == nil {
				first = fmt.Errorf("remove segment: %w", err)
			}
			continue
		}
		n++
	}
	return n, first
}
