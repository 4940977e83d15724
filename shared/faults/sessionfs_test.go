package faults

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/testenv"
)

// fill writes path until the file system is full.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil && !errors.Is(err, syscall.ENOSPC) {
		t.Fatal(err)
	}
	if f == nil {
		return
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return
		}
	}
}

// A full session file system (a 1 MiB tmpfs as the session prefix):
// lamboot fails saying so and leaves nothing; a booted universe refuses
// to load a program there, still runs jobs, and halts cleanly.
func TestFullSessionFS(t *testing.T) {
	testenv.RequireRoot(t)
	sc := record(t, "full session file system (1 MiB tmpfs)")
	ctx := testContext(t, 2*time.Minute)
	sp := t.TempDir()
	if err := syscall.Mount("tmpfs", sp, "tmpfs", 0, "size=1m,mode=0700"); err != nil {
		testenv.Skip(t, "cannot mount a tmpfs: "+err.Error())
	}
	t.Cleanup(func() { syscall.Unmount(sp, syscall.MNT_DETACH) })
	u := newUniverse(t, sc, sp)
	filler := filepath.Join(sp, "filler")

	fill(t, filler)
	r := u.run(ctx, "lamboot", "-H")
	if r.code == 0 || !strings.Contains(r.stderr, "no space left") {
		t.Errorf("lamboot on a full file system: %v", r)
	}
	sc.note("%s", outcome("lamboot", r))
	if left := waitLeftovers(leftBound, func() []string { return leftovers(sp, nil) }); len(left) > 0 {
		t.Errorf("a failed lamboot left %s", strings.Join(left, ", "))
		sc.left(left)
	}

	os.Remove(filler)
	u.boot(ctx, 0)
	fill(t, filler)
	r = u.run(ctx, "mpirun", "-s", "n0", "-np", "2", bin("testprog"), "whereami")
	if r.code == 0 || !strings.Contains(r.stderr, "no space left") {
		t.Errorf("mpirun -s on a full file system: %v", r)
	}
	sc.note("mpirun -s exit %d", r.code)
	if loaded, _ := filepath.Glob(filepath.Join(u.sessionDir(), "lam-load-*")); len(loaded) > 0 {
		for i, l := range loaded {
			loaded[i] = filepath.Base(l)
		}
		t.Errorf("partly loaded programs left: %v", loaded)
		sc.left(loaded)
	}
	u.mustAnswer(ctx, "on a full file system")
	u.hello(ctx, "on a full file system")
	u.halt(ctx)
	u.noneLeft()
}
