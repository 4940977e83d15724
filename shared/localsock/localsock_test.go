package localsock

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/lamgo/lam/shared/testenv"
)

func TestListenDialCred(t *testing.T) {
	dir := t.TempDir()
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
	path := filepath.Join(t.TempDir(), "s")
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

func TestLongPath(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, strings.Repeat("d", 100))
	if err := os.Mkdir(long, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(long, "lam-kernel-socket")
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		if c, err := l.Accept(); err == nil {
			c.Close()
		}
	}()
	c, err := Dial(context.Background(), path)
	if err != nil {
		t.Fatalf("Dial long path: %v", err)
	}
	c.Close()
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
	if err := os.Mkdir(sockDir, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(sockDir, 0o777)
	path := filepath.Join(sockDir, "s")
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	os.Chmod(path, 0o666) // only for this test: let another uid connect at all
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
