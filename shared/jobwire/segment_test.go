package jobwire

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRemoveSegments(t *testing.T) {
	dir := t.TempDir()
	old := ShmDir
	ShmDir = dir
	t.Cleanup(func() { ShmDir = old })
	uid := os.Getuid()
	a, b := JobID{Node: 0, PID: 100}, JobID{Node: 0, PID: 1000}
	files := []string{
		SegmentPrefix(uid, a) + "n0-x", SegmentPrefix(uid, a) + "n1-x",
		SegmentPrefix(uid, b) + "n0-x", // a job whose pid starts like a's
		"lam-99999-0-100-n0-x",         // another user's name
		"unrelated",
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(dir, SegmentPrefix(uid, a)+"dir"), 0o700)
	if n, err := RemoveSegments(uid, &a); err != nil || n != 2 {
		t.Fatalf("job a: removed %d, %v", n, err)
	}
	if _, err := os.Stat(filepath.Join(dir, files[2])); err != nil {
		t.Errorf("job b's segment went with a's: %v", err)
	}
	if n, err := RemoveSegments(uid, nil); err != nil || n != 1 {
		t.Fatalf("all: removed %d, %v", n, err)
	}
	for _, f := range files[3:] {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s removed: %v", f, err)
		}
	}
}

func TestRemoveProcessRegions(t *testing.T) {
	dir := t.TempDir()
	old := ShmDir
	ShmDir = dir
	t.Cleanup(func() { ShmDir = old })
	uid := os.Getuid()
	files := []string{
		"4242:0:0", "4242:1:12", // the process's regions
		"42424:0:0",  // a pid that starts like it
		"424:0:0",    // a pid it starts like
		"4242:0",     // not the provider's name
		"4242:0:0:x", // nor this
		"4242:a:0",
		"lam-0-0-4242-n0-x",
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(dir, "4242:2:0"), 0o700)
	for _, tc := range []struct {
		pid, want int
	}{{4242, 2}, {4242, 0}, {0, 0}, {-1, 0}, {99, 0}} {
		if n, err := RemoveProcessRegions(uid, tc.pid); err != nil || n != tc.want {
			t.Errorf("pid %d: removed %d, %v; want %d", tc.pid, n, err, tc.want)
		}
	}
	for _, f := range files[2:] {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s removed: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "4242:2:0")); err != nil {
		t.Errorf("a directory removed: %v", err)
	}
	if n, err := RemoveProcessRegions(uid+1, 42424); err != nil || n != 0 {
		t.Errorf("another user's: removed %d, %v", n, err)
	}
}
