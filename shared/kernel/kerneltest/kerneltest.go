// Package kerneltest starts in-process universes of lamds on loopback, for
// tests of the daemon and of the tools that talk to it.
package kerneltest

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/kernel"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/linkauth"
	"github.com/lamgo/lam/shared/session"
	"github.com/lamgo/lam/shared/wire"
)

// Options shape a test universe.
type Options struct {
	Nodes       int
	CPUs        []int32 // per node; default 1
	NoSchedule  []bool  // per node
	HeartbeatMS int32
	HaltTimeout time.Duration
	Debug       bool   // log to the test's output
	Prefix      string // session prefix; default a temporary directory
	OOBLimit    int64  // bytes of undelivered messages a lamd holds; default the kernel's
}

// Universe is a running test universe.
type Universe struct {
	Secret  linkauth.Secret
	Table   wire.Universe
	Kernels []*kernel.Kernel
	Dirs    []session.Dir
	cancel  []context.CancelFunc
	errs    []chan error
}

// Start boots a universe of o.Nodes lamds in this process, each with its
// own session directory (distinct suffixes under one temporary prefix).
// Everything stops when the test ends.
func Start(t testing.TB, o Options) *Universe {
	t.Helper()
	if o.Nodes < 1 {
		o.Nodes = 1
	}
	secret, err := linkauth.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	prefix := o.Prefix
	if prefix == "" {
		prefix = t.TempDir()
	}
	u := &Universe{Secret: secret, Table: wire.Universe{ID: secret.ID(), HeartbeatMS: o.HeartbeatMS}}
	var listeners []net.Listener
	for i := 0; i < o.Nodes; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		listeners = append(listeners, l)
		n := wire.Node{ID: int32(i), Host: fmt.Sprintf("node%d", i), Addr: "127.0.0.1", Link: l.Addr().String(), CPUs: 1}
		if i < len(o.CPUs) && o.CPUs[i] > 0 {
			n.CPUs = o.CPUs[i]
		}
		if i < len(o.NoSchedule) && o.NoSchedule[i] {
			n.Flags |= wire.NodeNoSchedule
		}
		if i == 0 {
			n.Flags |= wire.NodeOrigin
		}
		u.Table.Nodes = append(u.Table.Nodes, n)
		dir, err := session.Resolve(session.Options{Prefix: prefix, Suffix: fmt.Sprintf("n%d", i), Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		u.Dirs = append(u.Dirs, dir)
	}
	for i := 0; i < o.Nodes; i++ {
		log := slog.New(slog.DiscardHandler)
		if o.Debug {
			log = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug})).With("n", i)
		}
		k, err := kernel.New(kernel.Config{
			Session: u.Dirs[i], Secret: secret, Universe: &u.Table, Self: int32(i),
			Links: listeners[i], Log: log, HaltTimeout: o.HaltTimeout, KillGrace: 500 * time.Millisecond, OOBLimit: o.OOBLimit,
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() { errc <- k.Run(ctx) }()
		u.Kernels = append(u.Kernels, k)
		u.cancel = append(u.cancel, cancel)
		u.errs = append(u.errs, errc)
	}
	t.Cleanup(u.Stop)
	u.WaitLinked(t)
	return u
}

// StartShared starts a universe that outlives any one test (for fuzz
// targets). The caller must call the returned stop function before the
// test binary exits (from TestMain): it stops the lamds and removes their
// files.
func StartShared(o Options) (*Universe, func()) {
	t := &sharedTB{}
	u := Start(t, o)
	return u, func() {
		u.Stop()
		for _, d := range t.dirs {
			os.RemoveAll(d)
		}
	}
}

// sharedTB is a minimal testing.TB for StartShared: failures panic.
type sharedTB struct {
	testing.TB
	dirs []string
}

func (*sharedTB) Helper()                   {}
func (*sharedTB) Cleanup(func())            {}
func (*sharedTB) Fatal(args ...any)         { panic(fmt.Sprint(args...)) }
func (*sharedTB) Fatalf(f string, a ...any) { panic(fmt.Sprintf(f, a...)) }
func (*sharedTB) Log(args ...any)           {}
func (s *sharedTB) TempDir() string {
	d, err := os.MkdirTemp("", "kerneltest")
	if err != nil {
		panic(err)
	}
	s.dirs = append(s.dirs, d)
	return d
}

// ClientNoCleanup connects to node 0; the caller closes the client.
func (u *Universe) ClientNoCleanup() *lamclient.Client {
	c, err := lamclient.Dial(context.Background(), u.Dirs[0], "kerneltest", wire.RoleTool)
	if err != nil {
		panic(err)
	}
	return c
}

// WaitLinked waits (bounded) until every lamd has a link to every other.
func (u *Universe) WaitLinked(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for i, k := range u.Kernels {
		for len(k.Linked()) != len(u.Kernels)-1 {
			if time.Now().After(deadline) {
				t.Fatalf("node %d linked only to %v", i, k.Linked())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// Client connects to node i's lamd; the test closes it at its end.
func (u *Universe) Client(t testing.TB, i int) *lamclient.Client {
	t.Helper()
	c, err := lamclient.Dial(context.Background(), u.Dirs[i], "kerneltest", wire.RoleTool)
	if err != nil {
		t.Fatalf("dial node %d: %v", i, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Kill stops node i's lamd alone, as if it died.
func (u *Universe) Kill(i int) {
	u.Kernels[i].Stop(fmt.Errorf("killed by the test"))
	<-u.Kernels[i].Done()
}

// Stop stops every lamd and waits for them.
func (u *Universe) Stop() {
	for i, k := range u.Kernels {
		u.cancel[i]()
		select {
		case <-k.Done():
		case <-time.After(20 * time.Second):
		}
	}
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
