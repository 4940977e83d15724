package session

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// deadSocket leaves at path what a lamd killed with SIGKILL leaves: a
// socket file that nothing listens on.
func deadSocket(t *testing.T, path string) {
	t.Helper()
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("the closed socket's file should stay: %v", err)
	}
}

// liveSocket listens at path until the test ends.
func liveSocket(t *testing.T, path string) {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
}

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	return c.Process.Pid
}

// running starts program (copied under the name name) until the test
// ends and returns its pid.
func running(t *testing.T, name string) int {
	t.Helper()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep:", err)
	}
	b, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(prog, b, 0o755); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(prog, "60")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	// Start returns once the child execs, but the kernel sets the new
	// program's arguments a moment later: until then its cmdline reads
	// empty, and LamdRunning would take it for another program.
	cmdline := "/proc/" + strconv.Itoa(c.Process.Pid) + "/cmdline"
	for deadline := time.Now().Add(5 * time.Second); ; {
		b, err := os.ReadFile(cmdline)
		if err != nil || strings.HasPrefix(string(b), prog+"\x00") {
			break // no /proc (the tests that need it skip), or exec'd
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: cmdline %q after 5 s", prog, b)
		}
		time.Sleep(time.Millisecond)
	}
	return c.Process.Pid
}

func writeKillFile(t *testing.T, d Dir, pids ...int) {
	t.Helper()
	var b strings.Builder
	for _, p := range pids {
		b.WriteString(strconv.Itoa(p) + "\n")
	}
	if err := os.WriteFile(d.KillFile(), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestRemoveStale(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, d Dir) []int // returns the pids RemoveStale should report
		live    string                          // "" = removed; else a word of the ErrLive error
		removed bool
	}{
		{name: "killed lamd: dead socket and kill file", removed: true, setup: func(t *testing.T, d Dir) []int {
			deadSocket(t, d.Socket())
			p := deadPID(t)
			writeKillFile(t, d, p)
			return []int{p}
		}},
		{name: "dead socket, no kill file", removed: true, setup: func(t *testing.T, d Dir) []int {
			deadSocket(t, d.Socket())
			return nil
		}},
		{name: "kill file only", removed: true, setup: func(t *testing.T, d Dir) []int {
			p := deadPID(t)
			writeKillFile(t, d, p)
			return []int{p}
		}},
		{name: "empty directory", removed: true, setup: func(t *testing.T, d Dir) []int { return nil }},
		{name: "kill file pid reused by another program", removed: true, setup: func(t *testing.T, d Dir) []int {
			deadSocket(t, d.Socket())
			p := running(t, "sleep")
			writeKillFile(t, d, p)
			return []int{p}
		}},
		{name: "garbage in the kill file", removed: true, setup: func(t *testing.T, d Dir) []int {
			deadSocket(t, d.Socket())
			os.WriteFile(d.KillFile(), []byte("x\n-4\n1\n\n"), 0o600)
			return nil
		}},
		{name: "live listener", live: "accepts connections", setup: func(t *testing.T, d Dir) []int {
			liveSocket(t, d.Socket())
			return nil
		}},
		{name: "running lamd without its socket", live: "is running", setup: func(t *testing.T, d Dir) []int {
			writeKillFile(t, d, deadPID(t), running(t, "lamd"))
			return nil
		}},
		{name: "running lamd with a dead socket", live: "is running", setup: func(t *testing.T, d Dir) []int {
			deadSocket(t, d.Socket())
			writeKillFile(t, d, running(t, "lamd"))
			return nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := resolveIn(t, shortTemp(t))
			if err := d.Create(); err != nil {
				t.Fatal(err)
			}
			pids := tt.setup(t, d)
			st, err := d.RemoveStale(context.Background())
			_, lerr := os.Lstat(d.Path)
			if tt.live != "" {
				if !errors.Is(err, ErrLive) || !strings.Contains(err.Error(), tt.live) || st.Removed || lerr != nil {
					t.Errorf("RemoveStale = %+v, %v (directory: %v); want ErrLive saying %q and the directory kept", st, err, lerr, tt.live)
				}
				return
			}
			if err != nil || !st.Removed || !reflect.DeepEqual(st.PIDs, pids) || !errors.Is(lerr, fs.ErrNotExist) {
				t.Errorf("RemoveStale = %+v, %v (directory: %v); want removed, pids %v", st, err, lerr, pids)
			}
		})
	}
}

func TestRemoveStaleMissing(t *testing.T) {
	d := resolveIn(t, t.TempDir())
	if st, err := d.RemoveStale(context.Background()); err != nil || st.Removed {
		t.Errorf("no directory: %+v, %v", st, err)
	}
}

// A symbolic link for the kill file is not followed: the directory stays.
func TestRemoveStaleKillFileSymlink(t *testing.T) {
	d := resolveIn(t, shortTemp(t))
	if err := d.Create(); err != nil {
		t.Fatal(err)
	}
	deadSocket(t, d.Socket())
	outside := filepath.Join(t.TempDir(), "pids")
	os.WriteFile(outside, []byte("1\n"), 0o600)
	if err := os.Symlink(outside, d.KillFile()); err != nil {
		t.Fatal(err)
	}
	if st, err := d.RemoveStale(context.Background()); err == nil || st.Removed {
		t.Errorf("kill file a symbolic link: %+v, %v; want an error", st, err)
	}
	if _, err := os.Lstat(d.Path); err != nil {
		t.Errorf("directory removed: %v", err)
	}
}

// shortTemp is a temporary directory short enough for socket paths.
func shortTemp(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ss")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// WaitGone returns once the directory is removed, and at its bound while
// it stays.
func TestWaitGone(t *testing.T) {
	d := Dir{Path: filepath.Join(t.TempDir(), "lam-u@h")}
	if err := os.Mkdir(d.Path, 0o700); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	d.WaitGone(context.Background(), 50*time.Millisecond)
	if since := time.Since(start); since < 50*time.Millisecond {
		t.Errorf("returned after %v while the directory stayed", since)
	}
	go func() {
		time.Sleep(30 * time.Millisecond)
		os.Remove(d.Path)
	}()
	start = time.Now()
	d.WaitGone(context.Background(), 10*time.Second)
	if since := time.Since(start); since > 5*time.Second {
		t.Errorf("still waiting %v after the directory went", since)
	}
}
