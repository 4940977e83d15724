package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/lamcli"
	"github.com/lamgo/lam/shared/session"
)

// staleSession makes the session directory a lamd killed with SIGKILL
// leaves: its socket file, with nobody listening, and its kill file,
// naming a process that is gone.
func staleSession(t *testing.T) session.Dir {
	t.Helper()
	dir, err := session.Resolve(session.Options{Prefix: t.TempDir(), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if err := dir.Create(); err != nil {
		t.Fatal(err)
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: dir.Socket(), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir.KillFile(), []byte(strconv.Itoa(dead.Process.Pid)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func testEnv(stderr io.Writer) *lamcli.Env {
	return &lamcli.Env{Tool: tool, Stdout: io.Discard, Stderr: stderr}
}

func TestStaleSessionRemoved(t *testing.T) {
	dir := staleSession(t)
	var stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := refuseRunning(ctx, testEnv(&stderr), dir, false, true); err != nil {
		t.Fatalf("refuseRunning over a dead lamd's session: %v", err)
	}
	if _, err := os.Lstat(dir.Path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the stale session directory %s is still there (%v)", dir.Path, err)
	}
	if !strings.Contains(stderr.String(), "removed the stale session directory "+dir.Path) {
		t.Errorf("lamboot did not say it removed the stale directory: %q", stderr.String())
	}
}

// A session whose socket accepts but whose lamd does not answer (stopped,
// or wedged) is not proved dead: lamboot refuses it unless -f, and never
// removes it itself.
func TestSilentLamdRefused(t *testing.T) {
	dir := staleSession(t)
	os.Remove(dir.Socket())
	l, err := net.Listen("unix", dir.Socket())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	err = refuseRunning(ctx, testEnv(&stderr), dir, false, true)
	t.Logf("refused: %v", err)
	if err == nil || !strings.Contains(err.Error(), "accepts connections") || !strings.Contains(err.Error(), "lamboot -f") {
		t.Errorf("refuseRunning over a silent lamd: %v", err)
	}
	if _, err := os.Lstat(dir.Path); err != nil {
		t.Errorf("session directory of a lamd that may be alive removed: %v", err)
	}
	stderr.Reset()
	if err := refuseRunning(ctx, testEnv(&stderr), dir, true, true); err != nil || !strings.Contains(stderr.String(), "replacing") {
		t.Errorf("refuseRunning -f over a silent lamd: %v, %q", err, stderr.String())
	}
}

// Without -v, lamboot removes a stale session directory quietly.
func TestStaleSessionQuiet(t *testing.T) {
	dir := staleSession(t)
	var stderr bytes.Buffer
	if err := refuseRunning(context.Background(), testEnv(&stderr), dir, false, false); err != nil || stderr.Len() != 0 {
		t.Errorf("refuseRunning = %v, %q", err, stderr.String())
	}
	if _, err := os.Lstat(dir.Path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stale session directory left: %v", err)
	}
}
