//go:build ofi && cgo

package ofi

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	old := shmDir
	shmDir = dir
	defer func() { shmDir = old }()
	mine := filepath.Join(dir, fmt.Sprintf("%d:0:0", os.Getpid()))
	other := filepath.Join(dir, fmt.Sprintf("%d:0:0", os.Getpid()+1))
	prefix := filepath.Join(dir, fmt.Sprintf("%d0:0:0", os.Getpid())) // another pid that starts with ours
	for _, f := range []string{mine, other, prefix} {
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	removeStale()
	if _, err := os.Stat(mine); !os.IsNotExist(err) {
		t.Errorf("%s: %v, want it removed", mine, err)
	}
	for _, f := range []string{other, prefix} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s was removed: %v", f, err)
		}
	}
}
