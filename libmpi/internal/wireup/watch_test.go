package wireup

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/internal/core"
	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/session"
	"github.com/lamgo/lam/shared/wire"
)

// fakeLamd is a local lamd reduced to its socket: it welcomes one
// client as node 3, answers every request with OK, and drops the
// connection when told to (as a lamd killed with -9 does).
type fakeLamd struct {
	dir  session.Dir
	conn chan net.Conn
}

func startFakeLamd(t *testing.T) *fakeLamd {
	t.Helper()
	f := &fakeLamd{dir: session.Dir{Path: t.TempDir()}, conn: make(chan net.Conn, 1)}
	l, err := net.Listen("unix", f.dir.Socket())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		nc, err := l.Accept()
		if err != nil {
			return
		}
		c := wire.NewConn(nc)
		if _, err := c.Read(); err != nil {
			nc.Close()
			return
		}
		c.Write(0, 0, &wire.Welcome{Version: wire.Version, Node: 3, LamdPID: 1}, time.Second)
		f.conn <- nc
		for {
			fr, err := c.Read()
			if err != nil {
				return
			}
			c.Write(fr.ID, 0, &wire.OK{}, time.Second)
		}
	}()
	return f
}

// dial connects a client to the fake lamd.
func (f *fakeLamd) dial(t *testing.T) *lamclient.Client {
	t.Helper()
	cl, err := lamclient.Dial(t.Context(), f.dir, "watch.test", wire.RoleMPI)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl
}

// kill drops the client's connection from the lamd's side.
func (f *fakeLamd) kill(t *testing.T) {
	t.Helper()
	select {
	case nc := <-f.conn:
		nc.Close()
	case <-time.After(5 * time.Second):
		t.Fatal("the fake lamd has no client")
	}
}

// exitHook records the watch's call of exit.
type exitHook struct {
	mu     sync.Mutex
	stderr strings.Builder
	code   chan int
}

func newExitHook() *exitHook { return &exitHook{code: make(chan int, 1)} }

func (h *exitHook) Write(b []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stderr.Write(b)
}

func (h *exitHook) exit(code int) { h.code <- code }

func (h *exitHook) message() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stderr.String()
}

// A process whose lamd connection closes under it says so and exits
// promptly.
func TestWatchLostLamd(t *testing.T) {
	f := startFakeLamd(t)
	cl := f.dial(t)
	h := newExitHook()
	w := watchLamd(cl, 1, cl.Node(), h, h.exit)
	f.kill(t)
	select {
	case code := <-h.code:
		if code != ExitLostLamd {
			t.Errorf("exit(%d), want %d", code, ExitLostLamd)
		}
	case <-time.After(time.Second):
		t.Fatal("no exit within a second of losing the lamd")
	}
	<-w.ended
	msg := h.message()
	if !strings.HasPrefix(msg, "MPI: rank 1 (pid ") || !strings.Contains(msg, "lost its lamd (n3): ") || !strings.Contains(msg, lamclient.ErrClosed.Error()) {
		t.Errorf("message %q", msg)
	}
	if !errors.Is(cl.Err(), lamclient.ErrClosed) {
		t.Errorf("client error %v", cl.Err())
	}
}

// Finalize closes the connection itself: that is no loss.
func TestWatchFinalize(t *testing.T) {
	f := startFakeLamd(t)
	cl := f.dial(t)
	h := newExitHook()
	p := &Process{Engine: core.New(core.Config{Rank: 0, Links: make([]rpi.Link, 1)}), Size: 1, client: cl,
		watch: watchLamd(cl, 0, cl.Node(), h, h.exit)}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.Finalize(ctx); err != nil {
		t.Fatal(err)
	}
	<-p.watch.ended
	select {
	case code := <-h.code:
		t.Errorf("exit(%d) after Finalize: %s", code, h.message())
	default:
	}
}

// A stopped watch does not fire, whoever closes the connection.
func TestWatchStopped(t *testing.T) {
	f := startFakeLamd(t)
	cl := f.dial(t)
	h := newExitHook()
	w := watchLamd(cl, 0, cl.Node(), h, h.exit)
	w.stop()
	f.kill(t)
	<-w.ended
	select {
	case code := <-h.code:
		t.Errorf("exit(%d) from a stopped watch", code)
	default:
	}
}
