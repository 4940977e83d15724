package tkill

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/session"
)

func newDir(t *testing.T) session.Dir {
	t.Helper()
	d, err := session.Resolve(session.Options{Prefix: t.TempDir(), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Create(); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestKillsOnlyLamd(t *testing.T) {
	d := newDir(t)
	// A fake lamd: a copy of sleep named lamd.
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	bin := filepath.Join(t.TempDir(), "lamd")
	if err := os.Symlink(sleep, bin); err != nil {
		t.Fatal(err)
	}
	lamd := exec.Command(bin, "60")
	other := exec.Command(sleep, "60")
	for _, c := range []*exec.Cmd{lamd, other} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		defer c.Process.Kill()
	}
	waited := make(chan error, 1)
	go func() { waited <- lamd.Wait() }()
	go other.Wait()
	os.WriteFile(d.KillFile(), []byte(fmt.Sprintf("%d\n%d\nbogus\n1\n", lamd.Process.Pid, other.Process.Pid)), 0o600)
	res, err := Kill(context.Background(), d, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Killed) != 1 || res.Killed[0] != lamd.Process.Pid || !res.Found {
		t.Errorf("result %+v", res)
	}
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
		t.Error("lamd not killed")
	}
	if other.ProcessState != nil {
		t.Error("a process that is not a lamd was killed")
	}
	if _, err := os.Stat(d.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("session directory left: %v", err)
	}
}

func TestNothingToKill(t *testing.T) {
	d, _ := session.Resolve(session.Options{Prefix: t.TempDir(), Getenv: func(string) string { return "" }})
	res, err := Kill(context.Background(), d, time.Second)
	if err != nil || res.Found || len(res.Killed) != 0 {
		t.Errorf("Kill on no session = %+v, %v", res, err)
	}
}
