package jobwire

import (
	"fmt"
	"os"
	"path/filepath"
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
		if !strings.HasPrefix(e.Name(), prefix) || !e.Type().IsRegular() {
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
