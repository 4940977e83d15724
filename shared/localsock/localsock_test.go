package localsock

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/lamgo/lam/shared/testenv"
	"golang.org/x/sys/unix"
)

// privateDir returns a new directory of mode 0700, as a session directory
// is (t.TempDir's follow the umask).
func privateDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestListenDialCred(t *testing.T) {
	dir := privateDir(t)
	path := filepath.Join(dir, "lam-kernel-socket")
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 || st.Mode().Type() != os.ModeSocket {
		t.Fatalf("socket file: %v, %v", st.Mode(), err)
	}
	if _, err := Listen(path); !errors.Is(err, ErrInUse) {
		t.Errorf("second Listen = %v, want ErrInUse", err)
	}
	done := make(chan Cred, 1)
	go func() {
		c, err := l.AcceptUnix()
		if err != nil {
			return
		}
		cr, _ := PeerCred(c)
		c.Close()
		done <- cr
	}()
	c, err := Dial(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cr := <-done
	if cr.PID != os.Getpid() || cr.UID != os.Getuid() {
		t.Errorf("PeerCred = %+v, want pid %d uid %d", cr, os.Getpid(), os.Getuid())
	}
}

func TestStaleSocketReplaced(t *testing.T) {
	path := filepath.Join(privateDir(t), "s")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close() // leaves the file behind, with nobody listening
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("stale file not left: %v", err)
	}
	l2, err := Listen(path)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	l2.Close()
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket file left after Close: %v", err)
	}
}

func TestNoDaemon(t *testing.T) {
	dir := t.TempDir()
	_, err := Dial(context.Background(), filepath.Join(dir, "missing"))
	if !IsNoDaemon(err) {
		t.Errorf("missing socket: IsNoDaemon(%v) = false", err)
	}
	path := filepath.Join(dir, "stale")
	l, _ := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	l.SetUnlinkOnClose(false)
	l.Close()
	_, err = Dial(context.Background(), path)
	if !IsNoDaemon(err) || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("stale socket: %v", err)
	}
}

// Listen binds paths short and long, with any umask and from any working
// directory (even a removed one), without changing either; the socket is
// 0600, a live one is not taken over, a stale one is, and Close removes it.
func TestListen(t *testing.T) {
	tmp := privateDir(t)
	long := filepath.Join(tmp, strings.Repeat("d", 100))
	if err := os.Mkdir(long, 0o700); err != nil {
		t.Fatal(err)
	}
	exact := filepath.Join(tmp, "e")
	if err := os.Mkdir(exact, 0o700); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(tmp, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o755)
	for _, tc := range []struct {
		name    string
		path    string
		stale   bool   // a dead daemon's socket file is in the way
		cwdGone bool   // the working directory was removed
		wantErr string // Listen fails, saying this
	}{
		{name: "short", path: filepath.Join(tmp, "lam-kernel-socket")},
		{name: "107 bytes", path: filepath.Join(exact, strings.Repeat("s", 107-len(exact)-1))},
		{name: "108 bytes", path: filepath.Join(exact, strings.Repeat("t", 108-len(exact)-1))},
		{name: "long", path: filepath.Join(long, "lam-kernel-socket")},
		{name: "long, stale", path: filepath.Join(long, "stale"), stale: true},
		{name: "long, no working directory", path: filepath.Join(long, "nowd"), cwdGone: true},
		{name: "short, stale, no working directory", path: filepath.Join(tmp, "s2"), stale: true, cwdGone: true},
		{name: "name too long", path: filepath.Join(long, strings.Repeat("n", 100)), wantErr: "too long"},
		{name: "open directory", path: filepath.Join(open, "s"), wantErr: "mode 0700"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.stale {
				leaveStale(t, tc.path)
			}
			wd := t.TempDir()
			t.Chdir(wd)
			if tc.cwdGone {
				if err := os.Remove(wd); err != nil {
					t.Fatal(err)
				}
			}
			var before unix.Stat_t
			if err := unix.Stat(".", &before); err != nil && !tc.cwdGone {
				t.Fatal(err)
			}
			old := unix.Umask(0o002)
			defer unix.Umask(old)

			l, err := Listen(tc.path)

			if mask := unix.Umask(0o002); mask != 0o002 {
				t.Errorf("umask after Listen = %#o, want %#o", mask, 0o002)
			}
			var after unix.Stat_t
			unix.Stat(".", &after)
			if !tc.cwdGone && (after.Dev != before.Dev || after.Ino != before.Ino) {
				t.Error("Listen changed the working directory")
			}
			if tc.wantErr != "" {
				if err == nil {
					l.Close()
					t.Fatalf("Listen succeeded, want an error saying %q", tc.wantErr)
				}
				if !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Listen: %v, want an error saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			st, err := os.Lstat(tc.path)
			if err != nil || st.Mode().Perm() != 0o600 || st.Mode().Type() != os.ModeSocket {
				t.Fatalf("socket file: %v, %v", st.Mode(), err)
			}
			if _, err := Listen(tc.path); !errors.Is(err, ErrInUse) {
				t.Errorf("second Listen = %v, want ErrInUse", err)
			}
			go func() {
				if c, err := l.Accept(); err == nil {
					c.Close()
				}
			}()
			c, err := Dial(context.Background(), tc.path)
			if err != nil {
				t.Fatalf("Dial: %v", err)
			}
			c.Close()
			l.Close()
			if _, err := os.Lstat(tc.path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("socket file left after Close: %v", err)
			}
		})
	}
}

// leaveStale leaves a socket file at path with nobody listening.
func leaveStale(t *testing.T, path string) {
	t.Helper()
	addr := path
	if len(path) > 107 {
		d, err := os.Open(filepath.Dir(path))
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		addr = fmt.Sprintf("/proc/self/fd/%d/%s", d.Fd(), filepath.Base(path))
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: addr, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("stale file not left: %v", err)
	}
}

// TestMain lets the test binary act as a client of another uid: with
// LOCALSOCK_TEST_DIAL set it only connects to that socket and exits.
func TestMain(m *testing.M) {
	if path := os.Getenv("LOCALSOCK_TEST_DIAL"); path != "" {
		c, err := Dial(context.Background(), path)
		if err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(1)
		}
		c.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestOtherUIDSeen checks that a connection from another uid is reported
// with that uid, which the lamd uses to refuse it.
func TestOtherUIDSeen(t *testing.T) {
	testenv.RequireRoot(t)
	bin := testenv.CopyForOthers(t)
	dir := filepath.Dir(bin)
	sockDir := filepath.Join(dir, "sock")
	if err := os.Mkdir(sockDir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(sockDir, "s")
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// Only for this test: let another uid connect at all.
	os.Chmod(sockDir, 0o777)
	os.Chmod(path, 0o666)
	got := make(chan Cred, 1)
	go func() {
		c, err := l.AcceptUnix()
		if err != nil {
			return
		}
		cr, _ := PeerCred(c)
		c.Close()
		got <- cr
	}()
	cmd := exec.Command(bin)
	cmd.Env = []string{"LOCALSOCK_TEST_DIAL=" + path}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("client as uid 65534: %v: %s", err, out)
	}
	if cr := <-got; cr.UID != 65534 {
		t.Errorf("peer uid = %d, want 65534", cr.UID)
	}
}
