package kernel_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/kernel/kerneltest"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/linkauth"
	"github.com/lamgo/lam/shared/wire"
)

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func TestNodesAndEcho(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 3, CPUs: []int32{2, 1, 4}, NoSchedule: []bool{false, true}})
	for i := range 3 {
		c := u.Client(t, i)
		if c.Node() != int32(i) {
			t.Errorf("client %d welcomed as n%d", i, c.Node())
		}
		ns, err := c.Nodes(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if ns.Self != int32(i) || len(ns.Nodes) != 3 || ns.Nodes[0].CPUs != 2 || ns.Nodes[0].Flags != wire.NodeOrigin || ns.Nodes[1].Flags != wire.NodeNoSchedule {
			t.Errorf("node %d table: %+v", i, ns)
		}
		for j := range 3 {
			data := []byte(fmt.Sprintf("hello %d→%d", i, j))
			got, err := c.Echo(ctx(t), int32(j), data)
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("echo n%d→n%d = %q, %v", i, j, got, err)
			}
		}
		if _, err := c.Echo(ctx(t), 7, nil); lamclient.Code(err) != wire.CodeBadNode {
			t.Errorf("echo to n7: %v", err)
		}
	}
}

func TestOutOfBandMessages(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 2})
	a, b := u.Client(t, 0), u.Client(t, 1)
	// Order per sender, across the link, with a big message in between.
	big := bytes.Repeat([]byte("x"), 4<<20)
	for i := range 20 {
		data := []byte(fmt.Sprint(i))
		if i == 10 {
			data = big
		}
		if err := a.Send(ctx(t), 1, 77, 1, data); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 20 {
		m, err := b.Recv(ctx(t), 77, 0)
		if err != nil {
			t.Fatal(err)
		}
		if m.From != 0 || (i == 10 && len(m.Data) != len(big)) || (i != 10 && string(m.Data) != fmt.Sprint(i)) {
			t.Fatalf("message %d: from n%d, %d bytes", i, m.From, len(m.Data))
		}
	}
	// Type matching: 0 or a shared bit.
	a.Send(ctx(t), 1, 5, 0b100, []byte("t4"))
	if _, err := b.TryRecv(ctx(t), 5, 0b011); lamclient.Code(err) != wire.CodeNoEntry {
		t.Errorf("type 011 matched type 100: %v", err)
	}
	if m, err := b.TryRecv(ctx(t), 5, 0b110); err != nil || string(m.Data) != "t4" {
		t.Errorf("type 110 did not match 100: %v", err)
	}
	// A receiver waiting before the message arrives.
	got := make(chan string, 1)
	go func() {
		m, err := b.Recv(ctx(t), 9, 0)
		if err != nil {
			got <- err.Error()
			return
		}
		got <- string(m.Data)
	}()
	time.Sleep(50 * time.Millisecond)
	a.Send(ctx(t), 1, 9, 1, []byte("late"))
	if s := <-got; s != "late" {
		t.Errorf("waiting receiver got %q", s)
	}
	// A cancelled receive does not lose the next message.
	cctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	if _, err := b.Recv(cctx, 11, 0); err == nil {
		t.Error("receive with nothing sent succeeded")
	}
	cancel()
	a.Send(ctx(t), 1, 11, 1, []byte("kept"))
	if m, err := b.Recv(ctx(t), 11, 0); err != nil || string(m.Data) != "kept" {
		t.Errorf("after a cancelled receive: %v %v", m, err)
	}
}

func TestSpawnRemote(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 2})
	c := u.Client(t, 0)
	p, err := c.Spawn(ctx(t), &wire.Spawn{Node: 1, Job: "j1", Argv: []string{"sh", "-c", "echo out1; echo err1 >&2; echo out2; exit 3"}, Env: []string{"FOO=bar"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Node != 1 || p.PID <= 0 {
		t.Errorf("started %+v", p)
	}
	var out, errs []string
	ex, err := p.Wait(ctx(t), func(s uint8, d []byte) {
		if s == wire.Stdout {
			out = append(out, string(d))
		} else {
			errs = append(errs, string(d))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Status != 3 || ex.Signal != 0 || strings.Join(out, "") != "out1\nout2\n" || strings.Join(errs, "") != "err1\n" {
		t.Errorf("exit %+v, stdout %q, stderr %q", ex, out, errs)
	}
	// Environment, directory and stdin.
	dir := t.TempDir()
	p, err = c.Spawn(ctx(t), &wire.Spawn{Node: 1, Argv: []string{"sh", "-c", "pwd; echo $FOO; cat"}, Env: []string{"FOO=bar"}, Dir: dir, Flags: wire.SpawnStdin})
	if err != nil {
		t.Fatal(err)
	}
	p.Stdin([]byte("typed\n"), true)
	var buf strings.Builder
	ex, err = p.Wait(ctx(t), func(_ uint8, d []byte) { buf.Write(d) })
	if err != nil || ex.Status != 0 || buf.String() != dir+"\nbar\ntyped\n" {
		t.Errorf("got %q, %+v, %v", buf.String(), ex, err)
	}
	// Not found.
	_, err = c.Spawn(ctx(t), &wire.Spawn{Node: 1, Argv: []string{"no-such-program-xyz"}})
	if lamclient.Code(err) != wire.CodeNoEntry || !strings.Contains(err.Error(), "n1") {
		t.Errorf("missing program: %v", err)
	}
}

func TestSignalAndKill(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 2})
	c := u.Client(t, 0)
	p, err := c.Spawn(ctx(t), &wire.Spawn{Node: 1, Job: "jobA", Argv: []string{"sleep", "60"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Signal(ctx(t), 1, "", p.PID, int32(syscall.SIGTERM)); err != nil {
		t.Fatal(err)
	}
	ex, err := p.Wait(ctx(t), nil)
	if err != nil || ex.Signal != int32(syscall.SIGTERM) {
		t.Errorf("after SIGTERM: %+v %v", ex, err)
	}
	if err := c.Signal(ctx(t), 1, "", 1, 9); lamclient.Code(err) != wire.CodeNoEntry {
		t.Errorf("signalling a pid the lamd did not start: %v", err)
	}
	// lamclean's kill phase.
	p, _ = c.Spawn(ctx(t), &wire.Spawn{Node: 1, Argv: []string{"sleep", "60"}})
	if err := c.Clean(ctx(t), 1, wire.CleanKill); err != nil {
		t.Fatal(err)
	}
	if ex, err := p.Wait(ctx(t), nil); err != nil || ex.Signal == 0 {
		t.Errorf("after clean: %+v %v", ex, err)
	}
}

// A requester that goes away takes its processes with it.
func TestNoOrphans(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 2})
	c := u.Client(t, 0)
	p, err := c.Spawn(ctx(t), &wire.Spawn{Node: 1, Argv: []string{"sleep", "60"}})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(int(p.PID), 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("process %d outlived its requester", p.PID)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestDeadNode(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 3})
	c := u.Client(t, 0)
	p, err := c.Spawn(ctx(t), &wire.Spawn{Node: 2, Argv: []string{"sleep", "60"}})
	if err != nil {
		t.Fatal(err)
	}
	u.Kill(2)
	// Either the dying lamd reported the kill of its process, or the link
	// went first: both end the wait.
	if ex, err := p.Wait(ctx(t), nil); lamclient.Code(err) != wire.CodeDeadNode && (err != nil || ex.Signal == 0) {
		t.Errorf("wait on a process of a dead node: %+v, %v", ex, err)
	}
	if _, err := c.Echo(ctx(t), 2, nil); lamclient.Code(err) != wire.CodeDeadNode {
		t.Errorf("echo to a dead node: %v", err)
	}
	ns, _ := c.Nodes(ctx(t))
	if ns.Nodes[2].Flags&wire.NodeDead == 0 {
		t.Errorf("n2 not marked dead: %+v", ns.Nodes[2])
	}
	if _, err := os.Stat(u.Dirs[2].Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dead lamd left its session directory: %v", err)
	}
}

func TestHeartbeatNoticesSilence(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 2, HeartbeatMS: 50})
	c := u.Client(t, 0)
	// Freeze n1's links without closing them: its heartbeats stop.
	u.Kernels[1].FreezeLinksForTest()
	deadline := time.Now().Add(5 * time.Second)
	for {
		ns, err := c.Nodes(ctx(t))
		if err == nil && ns.Nodes[1].Flags&wire.NodeDead != 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a silent node was not noticed within 5 s with 50 ms heartbeats")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestHalt(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 3})
	c := u.Client(t, 1)
	var mu sync.Mutex
	acked := map[int32]bool{}
	err := c.Halt(ctx(t), 5*time.Second, func(p *wire.HaltProgress) {
		mu.Lock()
		acked[p.Node] = p.Acked
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(acked) != 3 || !acked[0] || !acked[1] || !acked[2] {
		t.Errorf("acks %v", acked)
	}
	for i, k := range u.Kernels {
		select {
		case <-k.Done():
		case <-time.After(10 * time.Second):
			t.Fatalf("n%d still running after halt", i)
		}
		if _, err := os.Stat(u.Dirs[i].Path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("n%d session directory left: %v", i, err)
		}
	}
}

func TestHaltWithDeadNode(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 3})
	u.Kill(1)
	c := u.Client(t, 0)
	var got []string
	err := c.Halt(ctx(t), 2*time.Second, func(p *wire.HaltProgress) { got = append(got, fmt.Sprintf("n%d:%v", p.Node, p.Acked)) })
	if err != nil {
		t.Fatal(err)
	}
	if s := strings.Join(got, " "); !strings.Contains(s, "n1:false") || !strings.Contains(s, "n2:true") || !strings.Contains(s, "n0:true") {
		t.Errorf("progress %s", s)
	}
}

func TestSessionRemovedStopsLamd(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 1})
	os.RemoveAll(u.Dirs[0].Path)
	select {
	case <-u.Kernels[0].Done():
	case <-time.After(5 * time.Second):
		t.Fatal("lamd kept running after its session directory was removed")
	}
}

// A TCP peer without the universe's secret cannot link, and the lamd keeps
// serving.
func TestLinkNeedsSecret(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 2})
	other, _ := linkauth.NewSecret()
	cfg, _ := other.TLS(false)
	nc, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", u.Table.Nodes[1].Link, cfg)
	if err == nil {
		c := wire.NewConn(nc)
		c.Write(0, 0, &wire.LinkHello{Version: wire.Version, Universe: u.Table.ID, Node: 0}, time.Second)
		c.Write(1, 0, &wire.HaltNode{}, time.Second)
		nc.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := c.Read(); err == nil {
			t.Fatal("a peer with the wrong secret got an answer")
		}
		nc.Close()
	}
	// Plain TCP garbage.
	raw, err := net.Dial("tcp", u.Table.Nodes[1].Link)
	if err == nil {
		raw.Write([]byte("GET / HTTP/1.0\r\n\r\n\x00\x01\x02"))
		raw.Close()
	}
	c := u.Client(t, 0)
	if got, err := c.Echo(ctx(t), 1, []byte("still")); err != nil || string(got) != "still" {
		t.Errorf("after hostile peers: %q %v", got, err)
	}
}

// Malformed frames from a local client close that client only.
func TestMalformedLocalFrame(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 1})
	nc, err := net.Dial("unix", u.Dirs[0].Socket())
	if err != nil {
		t.Fatal(err)
	}
	c := wire.NewConn(nc)
	c.Write(1, 0, &wire.Hello{Version: wire.Version, Role: wire.RoleTool, Name: "evil"}, time.Second)
	if _, err := c.Read(); err != nil {
		t.Fatal(err)
	}
	nc.Write([]byte{0, 0, 0, 12, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1})
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(); err == nil {
		t.Error("the lamd answered a malformed frame instead of closing")
	}
	nc.Close()
	good := u.Client(t, 0)
	if _, err := good.Nodes(ctx(t)); err != nil {
		t.Errorf("lamd not serving after a bad client: %v", err)
	}
}

func TestGrowShrink(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 3})
	c := u.Client(t, 0)
	if err := c.RemoveNode(ctx(t), 2, 0); err != nil {
		t.Fatal(err)
	}
	select {
	case <-u.Kernels[2].Done():
	case <-time.After(10 * time.Second):
		t.Fatal("removed node's lamd still running")
	}
	for _, i := range []int{0, 1} {
		ns, err := u.Client(t, i).Nodes(ctx(t))
		if err != nil || len(ns.Nodes) != 2 {
			t.Errorf("n%d after shrink: %+v %v", i, ns, err)
		}
	}
	if _, err := c.Echo(ctx(t), 2, nil); lamclient.Code(err) != wire.CodeBadNode {
		t.Errorf("echo to removed node: %v", err)
	}
	if err := c.RemoveNode(ctx(t), 0, 0); err == nil {
		t.Error("removing the local node succeeded")
	}
	if err := c.AddNode(ctx(t), wire.Node{ID: 1, Host: "x", CPUs: 1}); err == nil {
		t.Error("adding an existing id succeeded")
	}
}

// A lamd holds a bounded amount of undelivered messages; past it, sends
// fail with CodeFull (nothing is dropped silently), and room comes back as
// messages are received.
func TestOOBLimit(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 2, OOBLimit: 1000})
	a, b := u.Client(t, 0), u.Client(t, 1)
	data := make([]byte, 400)
	for i := 0; i < 2; i++ {
		if err := a.Send(ctx(t), 1, 3, 1, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Send(ctx(t), 1, 3, 1, data); lamclient.Code(err) != wire.CodeFull {
		t.Fatalf("third send: %v, want CodeFull", err)
	}
	if _, err := b.Recv(ctx(t), 3, 0); err != nil {
		t.Fatal(err)
	}
	if err := a.Send(ctx(t), 1, 3, 1, data); err != nil {
		t.Errorf("send after room came back: %v", err)
	}
}

// A receive cancelled just as a message for it arrives either returns the
// message or leaves it for the next receive: the lamd may hand it over
// before it reads the cancel, and the client must not drop it then.
func TestCancelledReceiveKeepsMessage(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 1})
	a, b := u.Client(t, 0), u.Client(t, 0)
	for i := range 200 {
		data := fmt.Sprint("m", i)
		cctx, cancel := context.WithCancel(context.Background())
		type result struct {
			m   *wire.Msg
			err error
		}
		got := make(chan result, 1)
		go func() {
			m, err := b.Recv(cctx, 13, 0)
			got <- result{m, err}
		}()
		time.Sleep(time.Duration(i%4) * 100 * time.Microsecond)
		cancel()
		if err := a.Send(ctx(t), 0, 13, 1, []byte(data)); err != nil {
			t.Fatal(err)
		}
		r := <-got
		if r.err == nil {
			if string(r.m.Data) != data {
				t.Fatalf("round %d: the cancelled receive got %q, want %q", i, r.m.Data, data)
			}
			continue
		}
		wctx, wcancel := context.WithTimeout(context.Background(), 3*time.Second)
		m, err := b.Recv(wctx, 13, 0)
		wcancel()
		if err != nil || string(m.Data) != data {
			t.Fatalf("round %d: after a cancelled receive, the message sent at once was lost: %v %v", i, m, err)
		}
	}
}
