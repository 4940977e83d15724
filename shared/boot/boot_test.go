package boot

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/linkauth"
	"github.com/lamgo/lam/shared/ssi"
	"github.com/lamgo/lam/shared/wire"
)

// fakeLamd plays a new lamd: it calls back, waits for the node table and
// acknowledges it.
func fakeLamd(ctx context.Context, addr string, secret linkauth.Secret, node int32, tables chan<- *wire.Universe) error {
	return fakeLamdHook(ctx, addr, secret, node, tables, nil)
}

// fakeLamdHook calls hook once connected, just before saying hello.
func fakeLamdHook(ctx context.Context, addr string, secret linkauth.Secret, node int32, tables chan<- *wire.Universe, hook func()) error {
	c, err := Dial(ctx, addr, secret)
	if hook != nil {
		hook()
	}
	if err != nil {
		return err
	}
	u, err := c.Hello(ctx, &wire.BootHello{Node: node, Link: fmt.Sprintf("127.0.0.1:%d", 1000+node), CPUs: -1, PID: 100 + node, Host: "h"})
	if err != nil {
		return err
	}
	if tables != nil {
		tables <- u
	}
	return c.Ack(nil)
}

func nodesN(n int) []Node {
	out := make([]Node, n)
	for i := range out {
		out[i] = Node{ID: int32(i), Host: fmt.Sprintf("host%d", i), Addr: "127.0.0.1", CPUs: 1, Schedule: true}
	}
	out[0].Origin = true
	return out
}

func TestAlgorithms(t *testing.T) {
	for _, alg := range []string{Linear, Windowed, Parallel} {
		t.Run(alg, func(t *testing.T) {
			secret, _ := linkauth.NewSecret()
			srv, err := Listen("127.0.0.1:0", secret)
			if err != nil {
				t.Fatal(err)
			}
			nodes := nodesN(7)
			var running, peak atomic.Int32
			launch := func(ctx context.Context, n *Node) error {
				r := running.Add(1)
				for {
					p := peak.Load()
					if r <= p || peak.CompareAndSwap(p, r) {
						break
					}
				}
				go func() {
					time.Sleep(20 * time.Millisecond) // a slow remote shell
					fakeLamdHook(ctx, srv.Addr().String(), secret, n.ID, nil, func() { running.Add(-1) })
				}()
				return nil
			}
			var lines []string
			var mu sync.Mutex
			cbs, err := Start(context.Background(), nodes, srv, launch, Options{Algorithm: alg, Window: 3, Timeout: 10 * time.Second,
				Progress: func(s string) { mu.Lock(); lines = append(lines, s); mu.Unlock() }})
			if err != nil {
				t.Fatal(err)
			}
			if len(cbs) != 7 {
				t.Fatalf("%d callbacks", len(cbs))
			}
			for id, cb := range cbs {
				if cb.Hello.Node != id {
					t.Errorf("callback for n%d says n%d", id, cb.Hello.Node)
				}
				cb.Abort("test over")
			}
			want := map[string]int32{Linear: 1, Windowed: 3, Parallel: 7}[alg]
			if got := peak.Load(); got > want || (alg != Linear && got < 2) {
				t.Errorf("%s: %d lamds booting at once, want at most %d", alg, got, want)
			}
			if !strings.Contains(strings.Join(lines, "\n"), "booting n6 (host6)") {
				t.Errorf("progress: %q", lines)
			}
		})
	}
}

func TestStartFailures(t *testing.T) {
	secret, _ := linkauth.NewSecret()
	tests := []struct {
		name   string
		launch func(srv *Server) Launcher
		want   string
	}{
		{"launch fails", func(srv *Server) Launcher {
			return func(ctx context.Context, n *Node) error {
				if n.ID == 2 {
					return errors.New("ssh: connect to host host2 port 22: Connection refused")
				}
				go fakeLamd(ctx, srv.Addr().String(), secret, n.ID, nil)
				return nil
			}
		}, "n2 (host2): ssh: connect to host host2 port 22: Connection refused"},
		{"never calls back", func(srv *Server) Launcher {
			return func(ctx context.Context, n *Node) error {
				if n.ID != 1 {
					go fakeLamd(ctx, srv.Addr().String(), secret, n.ID, nil)
				}
				return nil
			}
		}, "n1 (host1): its lamd did not call back within"},
		{"wrong secret", func(srv *Server) Launcher {
			other, _ := linkauth.NewSecret()
			return func(ctx context.Context, n *Node) error {
				s := secret
				if n.ID == 0 {
					s = other
				}
				go fakeLamd(ctx, srv.Addr().String(), s, n.ID, nil)
				return nil
			}
		}, "n0 (host0): its lamd did not call back"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := Listen("127.0.0.1:0", secret)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Start(context.Background(), nodesN(3), srv, tt.launch(srv), Options{Algorithm: Parallel, Timeout: 500 * time.Millisecond})
			var ne *NodeError
			if !errors.As(err, &ne) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := Start(context.Background(), nodesN(1), nil, nil, Options{Algorithm: "tree"}); err == nil {
		t.Error("unknown algorithm accepted")
	}
}

// A caller that names a node not being booted is turned away.
func TestStrayCallback(t *testing.T) {
	secret, _ := linkauth.NewSecret()
	srv, _ := Listen("127.0.0.1:0", secret)
	launch := func(ctx context.Context, n *Node) error {
		go func() {
			err := fakeLamd(ctx, srv.Addr().String(), secret, 9, nil)
			if err == nil || !strings.Contains(err.Error(), "not a node being booted") {
				t.Errorf("stray callback: %v", err)
			}
			fakeLamd(ctx, srv.Addr().String(), secret, n.ID, nil)
		}()
		return nil
	}
	if _, err := Start(context.Background(), nodesN(1), srv, launch, Options{Timeout: 5 * time.Second}); err != nil {
		t.Fatal(err)
	}
}

// fakeModule launches fake lamds in-process.
type fakeModule struct {
	secret linkauth.Secret
	argvs  [][]string
	mu     sync.Mutex
	tables chan *wire.Universe
}

func (m *fakeModule) Launch(ctx context.Context, n *Node, argv []string, stdin []byte) error {
	m.mu.Lock()
	m.argvs = append(m.argvs, argv)
	m.mu.Unlock()
	s, err := linkauth.ReadSecret(strings.NewReader(string(stdin)))
	if err != nil || s != m.secret {
		return fmt.Errorf("secret not on stdin: %v", err)
	}
	var host, port string
	for i, a := range strings.Fields(argv[slicesIndex(argv, "-I")+1]) {
		switch a {
		case "-H":
			host = strings.Fields(argv[slicesIndex(argv, "-I")+1])[i+1]
		case "-P":
			port = strings.Fields(argv[slicesIndex(argv, "-I")+1])[i+1]
		}
	}
	go fakeLamd(ctx, net.JoinHostPort(host, port), s, n.ID, m.tables)
	return nil
}

func slicesIndex(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

func TestLamdsBoot(t *testing.T) {
	secret, _ := linkauth.NewSecret()
	m := &fakeModule{secret: secret, tables: make(chan *wire.Universe, 3)}
	nodes := nodesN(3)
	nodes[1].Schedule = false
	nodes[2].CPUs = 4
	nodes[2].Prefix = "/opt/lamgo"
	b := &Lamds{Module: modLauncher{m}, Nodes: nodes, Origin: 0, Secret: secret, ListenAddr: "127.0.0.1",
		Bindir: "/here/bin", Debug: true, SessionSuffix: "s1", Heartbeat: 250 * time.Millisecond,
		Options: Options{Algorithm: Parallel, Timeout: 10 * time.Second}}
	res, err := b.Boot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	u := res.Universe
	if len(res.Acked) != 3 || len(u.Nodes) != 3 || u.ID != secret.ID() || u.HeartbeatMS != 250 {
		t.Fatalf("result %+v", res)
	}
	if u.Nodes[0].Flags != wire.NodeOrigin || u.Nodes[1].Flags != wire.NodeNoSchedule || u.Nodes[2].CPUs != 4 || u.Nodes[1].Link != "127.0.0.1:1001" {
		t.Errorf("table %+v", u.Nodes)
	}
	for range 3 {
		if got := <-m.tables; got.ID != u.ID || len(got.Nodes) != 3 {
			t.Errorf("a lamd got %+v", got)
		}
	}
	for _, argv := range m.argvs {
		s := strings.Join(argv, " ")
		switch {
		case strings.HasPrefix(s, "/here/bin/hboot -t -d -I -H 127.0.0.1 -P"):
			if !strings.Contains(s, "-n 0 -o 0 -x -k -sessionsuffix s1") {
				t.Errorf("origin argv %q", s)
			}
		case strings.HasPrefix(s, "/opt/lamgo/bin/hboot -t -d -I"):
			if !strings.HasSuffix(s, "-n 2 -o 0 -x -k -sessionsuffix s1 -prefix /opt/lamgo") {
				t.Errorf("prefixed argv %q", s)
			}
		case strings.HasPrefix(s, "hboot -t -d -I"):
		default:
			t.Errorf("unexpected argv %q", s)
		}
	}
}

// modLauncher adapts fakeModule to Module (only Launch is used by Boot).
type modLauncher struct{ *fakeModule }

func (modLauncher) SSI() ssi.Info                                     { return ssi.Info{} }
func (modLauncher) Query(context.Context, *ssi.Settings) (int, error) { return 0, nil }
func (modLauncher) Nodes(context.Context, *Request) ([]Node, error)   { return nil, nil }

// blockingModule boots nodes 0 and 1 with fake lamds and hangs on the
// launch of node 2 until the boot is cancelled; it records the wipes.
type blockingModule struct {
	modLauncher
	secret  linkauth.Secret
	hanging chan struct{} // closed when node 2's launch hangs
	ended   chan error    // each fake lamd's end
	mu      sync.Mutex
	wiped   map[int32]bool
}

func (m *blockingModule) Launch(ctx context.Context, n *Node, argv []string, stdin []byte) error {
	if slicesIndex(argv, "-N") >= 0 {
		m.mu.Lock()
		m.wiped[n.ID] = true
		m.mu.Unlock()
		return ctx.Err() // the wipe must run although the boot was cancelled
	}
	if n.ID == 2 {
		close(m.hanging)
		<-ctx.Done()
		return ctx.Err()
	}
	topo := strings.Fields(argv[slicesIndex(argv, "-I")+1])
	addr := net.JoinHostPort(topo[slicesIndex(topo, "-H")+1], topo[slicesIndex(topo, "-P")+1])
	go func() { m.ended <- fakeLamd(context.Background(), addr, m.secret, n.ID, nil) }()
	return nil
}

// Cancelling a boot half way aborts the lamds that called back, stops
// every lamd that was started and says why the boot ended.
func TestBootCancelled(t *testing.T) {
	secret, _ := linkauth.NewSecret()
	m := &blockingModule{secret: secret, hanging: make(chan struct{}), ended: make(chan error, 3), wiped: map[int32]bool{}}
	b := &Lamds{Module: m, Nodes: nodesN(3), Secret: secret, ListenAddr: "127.0.0.1", Bindir: "/here/bin",
		Options: Options{Algorithm: Linear, Timeout: 10 * time.Second}}
	interrupt := errors.New("interrupted by the test")
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		<-m.hanging
		cancel(interrupt)
	}()
	start := time.Now()
	res, err := b.Boot(ctx)
	if !errors.Is(err, interrupt) || !strings.Contains(err.Error(), "boot canceled") {
		t.Fatalf("Boot = %v, want a cancelled boot wrapping the cause", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the cancelled boot took %v", d) // bounds, not speed: the timeout is 10 s
	}
	if len(res.Acked) != 0 {
		t.Errorf("acked %v", res.Acked)
	}
	m.mu.Lock()
	if !m.wiped[0] || !m.wiped[1] || m.wiped[2] {
		t.Errorf("wiped %v, want n0 and n1 (not n2, whose launch was cut short)", m.wiped)
	}
	m.mu.Unlock()
	for range 2 {
		if err := <-m.ended; err == nil || !strings.Contains(err.Error(), interrupt.Error()) {
			t.Errorf("a fake lamd that called back ended with %v, want the abort", err)
		}
	}
}
