//go:build ofi && cgo

package ofi

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestMain removes, after the tests, the shm provider's regions that the
// tests' processes left in /dev/shm: a test that fails a provider on
// purpose abandons its endpoint, and the conformance suite kills a child
// process, and libfabric then leaves their regions.
func TestMain(m *testing.M) {
	before := regions()
	code := m.Run()
	for name := range regions() {
		pid, _ := strconv.Atoi(name[:strings.IndexByte(name, ':')])
		if before[name] || (pid != os.Getpid() && !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)) {
			continue
		}
		os.Remove(filepath.Join(shmDir, name))
	}
	os.Exit(code)
}

// regions lists the shm provider's regions (<pid>:<domain>:<endpoint>).
func regions() map[string]bool {
	out := map[string]bool{}
	ents, _ := os.ReadDir(shmDir)
	for _, e := range ents {
		if i := strings.IndexByte(e.Name(), ':'); i > 0 && e.Type().IsRegular() {
			if _, err := strconv.Atoi(e.Name()[:i]); err == nil {
				out[e.Name()] = true
			}
		}
	}
	return out
}
