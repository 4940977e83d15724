//go:build ofi && cgo

package ofi

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// shmDir is where libfabric's shm provider keeps its regions, named
// "<pid>:<domain>:<endpoint>".
var shmDir = "/dev/shm"

var staleOnce sync.Once

// removeStale removes the shm provider's regions named for this process's
// pid that a process which had the pid before it left (one killed before
// it closed its endpoint): the provider would refuse to make its region
// under the same name (fi_enable: EBUSY). It runs before this process
// opens its first endpoint, so no region of that name can be its own; it
// touches only regular files of this user.
func removeStale() {
	matches, _ := filepath.Glob(filepath.Join(shmDir, fmt.Sprintf("%d:*", os.Getpid())))
	for _, m := range matches {
		fi, err := os.Lstat(m)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
			continue
		}
		os.Remove(m)
	}
}
