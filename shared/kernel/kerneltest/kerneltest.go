// Package kerneltest starts in-process universes of lamds on loopback, for
// tests of the daemon and of the tools that talk to it.
package kerneltest

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
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
	// Limits on clients and connections; zero means the kernel's default.
	MaxClients      int
	MaxLinkAttempts int
	HelloTimeout    time.Duration
	FrameTimeout    time.Duration
}

// Universe is a running test universe. Kernels and Dirs are indexed by node
// id; while Grow may run, read them through Kernel and Dir.
type Universe struct {
	Secret  linkauth.Secret
	Table   wire.Universe
	Kernels []*kernel.Kernel // nil for a node whose lamd has not started
	Dirs    []session.Dir

	mu     sync.Mutex
	opts   Options
	prefix string
	cancel []context.CancelFunc
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
	u := &Universe{Secret: secret, Table: wire.Universe{ID: secret.ID(), HeartbeatMS: o.HeartbeatMS}, opts: o, prefix: prefix}
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
		dir, err := u.sessionDir(n.ID)
		if err != nil {
			t.Fatal(err)
		}
		u.Dirs = append(u.Dirs, dir)
	}
	t.Cleanup(u.Stop)
	for i := 0; i < o.Nodes; i++ {
		k, err := u.startKernel(t, &u.Table, int32(i), listeners[i], false)
		if err != nil {
			t.Fatal(err)
		}
		u.Kernels = append(u.Kernels, k)
	}
	u.WaitLinked(t)
	return u
}

func (u *Universe) sessionDir(id int32) (session.Dir, error) {
	return session.Resolve(session.Options{Prefix: u.prefix, Suffix: fmt.Sprintf("n%d", id), Getenv: func(string) string { return "" }})
}

// startKernel starts node id's lamd, stopped by Stop.
func (u *Universe) startKernel(t testing.TB, table *wire.Universe, id int32, links net.Listener, joining bool) (*kernel.Kernel, error) {
	log := slog.New(slog.DiscardHandler)
	if u.opts.Debug {
		log = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug})).With("n", id)
	}
	k, err := kernel.New(kernel.Config{
		Session: u.Dirs[id], Secret: u.Secret, Universe: table, Self: id, Joining: joining,
		Links: links, Log: log, HaltTimeout: u.opts.HaltTimeout, KillGrace: 500 * time.Millisecond, OOBLimit: u.opts.OOBLimit,
		MaxClients: u.opts.MaxClients, MaxLinkAttempts: u.opts.MaxLinkAttempts,
		HelloTimeout: u.opts.HelloTimeout, FrameTimeout: u.opts.FrameTimeout,
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	go k.Run(ctx)
	u.cancel = append(u.cancel, cancel)
	return k, nil
}

// Grow adds a node to the running universe as lamgrow does: node via adds
// it to every lamd's table, then the new lamd starts and links to every
// node. It returns the new node's id. Grow may run while other goroutines
// use the universe; an error leaves the universe as the failed step did.
// ctx bounds the whole join.
func (u *Universe) Grow(ctx context.Context, t testing.TB, via int) (int32, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return -1, err
	}
	u.mu.Lock()
	id := int32(len(u.Dirs))
	dir, err := u.sessionDir(id)
	if err == nil {
		u.Dirs = append(u.Dirs, dir)
		u.Kernels = append(u.Kernels, nil)
	}
	u.mu.Unlock()
	if err != nil {
		l.Close()
		return -1, err
	}
	c, err := lamclient.Dial(ctx, u.Dir(via), "kerneltest", wire.RoleTool)
	if err != nil {
		l.Close()
		return id, err
	}
	defer c.Close()
	n := wire.Node{ID: id, Host: fmt.Sprintf("node%d", id), Addr: "127.0.0.1", Link: l.Addr().String(), CPUs: 1}
	if err := c.AddNode(ctx, n); err != nil {
		l.Close()
		return id, fmt.Errorf("add n%d: %w", id, err)
	}
	nodes, err := c.Nodes(ctx)
	if err != nil {
		l.Close()
		return id, err
	}
	table := &wire.Universe{ID: u.Table.ID, HeartbeatMS: u.Table.HeartbeatMS, Nodes: nodes.Nodes, Join: true}
	u.mu.Lock()
	k, err := u.startKernel(t, table, id, l, true)
	if err == nil {
		u.Kernels[id] = k
	}
	u.mu.Unlock()
	if err != nil {
		l.Close()
		return id, err
	}
	if err := k.WaitLinked(ctx); err != nil {
		return id, err
	}
	return id, nil
}

// Kernel returns node i's lamd (nil if it did not start).
func (u *Universe) Kernel(i int) *kernel.Kernel {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.Kernels[i]
}

// Dir returns node i's session directory.
func (u *Universe) Dir(i int) session.Dir {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.Dirs[i]
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
	c, err := lamclient.Dial(context.Background(), u.Dir(i), "kerneltest", wire.RoleTool)
	if err != nil {
		t.Fatalf("dial node %d: %v", i, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Kill stops node i's lamd alone, as if it died.
func (u *Universe) Kill(i int) {
	k := u.Kernel(i)
	k.Stop(fmt.Errorf("killed by the test"))
	<-k.Done()
}

// Stop stops every lamd and waits for them.
func (u *Universe) Stop() {
	u.mu.Lock()
	kernels := append([]*kernel.Kernel(nil), u.Kernels...)
	cancels := append([]context.CancelFunc(nil), u.cancel...)
	u.mu.Unlock()
	for _, cancel := range cancels {
		cancel()
	}
	for _, k := range kernels {
		if k == nil {
			continue
		}
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
