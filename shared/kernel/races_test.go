package kernel_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/kernel/kerneltest"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/wire"
)

// hostOf returns the host that node i's lamd has for node id ("" if none).
func hostOf(t *testing.T, c *lamclient.Client, id int32) string {
	t.Helper()
	ns, err := c.Nodes(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range ns.Nodes {
		if n.ID == id {
			return n.Host
		}
	}
	return ""
}

// Two joins of one node that race (two lamgrows at once, on one lamd or on
// two) do not both succeed, and every lamd ends with the same table.
func TestConcurrentJoinsOfOneNode(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 2})
	on := []*lamclient.Client{u.Client(t, 0), u.Client(t, 1)}
	extra := u.Client(t, 0) // a second tool on node 0
	id := int32(10)
	for _, tc := range []struct {
		name string
		via  [2]*lamclient.Client
	}{
		{"one lamd", [2]*lamclient.Client{on[0], extra}},
		{"two lamds", [2]*lamclient.Client{on[0], on[1]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for round := 0; round < 10; round++ {
				id++
				var errs [2]error
				var wg sync.WaitGroup
				start := make(chan struct{})
				for j, c := range tc.via {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						errs[j] = c.AddNode(ctx(t), wire.Node{ID: id, Host: fmt.Sprintf("host%d", j), CPUs: 1})
					}()
				}
				close(start)
				wg.Wait()
				if errs[0] == nil && errs[1] == nil {
					t.Errorf("round %d: both joins of n%d succeeded", round, id)
				}
				want := ""
				for j, err := range errs {
					if err == nil {
						want = fmt.Sprintf("host%d", j)
					}
				}
				for i, c := range on {
					if got := hostOf(t, c, id); got != want {
						t.Errorf("round %d: n%d has n%d on %q, want %q (joins: %v)", round, i, id, got, want, errs)
					}
				}
				// Take it out again: a node without a lamd would fail the
				// next round's broadcast.
				for _, c := range on {
					if hostOf(t, c, id) != "" {
						if err := c.RemoveNode(ctx(t), id, 0); err != nil {
							t.Fatalf("remove n%d: %v", id, err)
						}
						break
					}
				}
			}
		})
	}
}

// A universe halts cleanly while nodes join it and leave it.
func TestHaltWhileNodesJoinAndLeave(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 3, HaltTimeout: 3 * time.Second})
	stop := make(chan struct{})
	growCtx, cancel := context.WithCancel(ctx(t))
	var grown, shrunk atomic.Int32
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			id, err := u.Grow(growCtx, t, 0)
			if err != nil {
				continue // the universe is halting
			}
			grown.Add(1)
			c, err := lamclient.Dial(context.Background(), u.Dir(2), "shrink", wire.RoleTool)
			if err != nil {
				continue
			}
			if c.RemoveNode(ctx(t), id, 0) == nil {
				shrunk.Add(1)
			}
			c.Close()
		}
	}()
	// Let some nodes come and go, then halt with more on their way.
	for deadline := time.Now().Add(10 * time.Second); grown.Load() < 3 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	var mu sync.Mutex
	acked := map[int32]bool{}
	err := u.Client(t, 1).Halt(ctx(t), 3*time.Second, func(p *wire.HaltProgress) {
		mu.Lock()
		acked[p.Node] = p.Acked
		mu.Unlock()
	})
	close(stop)
	cancel()
	wg.Wait()
	if err != nil {
		t.Fatalf("halt: %v", err)
	}
	t.Logf("%d nodes joined, %d left; halt acknowledged by %v", grown.Load(), shrunk.Load(), acked)
	if grown.Load() == 0 {
		t.Error("no node joined")
	}
	for i := 0; i < 3; i++ {
		if !acked[int32(i)] {
			t.Errorf("n%d did not acknowledge the halt", i)
		}
		select {
		case <-u.Kernel(i).Done():
		case <-time.After(10 * time.Second):
			t.Fatalf("n%d still running after halt", i)
		}
	}
}

// A request that came over a link and was forwarded to a third node ends
// when the lamd that forwarded it stops: the third node kills the process
// it started. (Stopping reads the forwarded call from another goroutine.)
func TestForwardedLinkRequestOnStop(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 3})
	u.Kill(1)
	for deadline := time.Now().Add(10 * time.Second); slices.Contains(u.Kernel(0).Linked(), 1); {
		if time.Now().After(deadline) {
			t.Fatal("n0 still linked to the dead n1")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// Link to n0 as n1.
	cfg, err := u.Secret.TLS(false)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", u.Table.Nodes[0].Link, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	c := wire.NewConn(nc)
	if err := c.Write(0, 0, &wire.LinkHello{Version: wire.Version, Universe: u.Table.ID, Node: 1}, time.Second); err != nil {
		t.Fatal(err)
	}
	if f, err := c.Read(); err != nil || f.Kind != wire.KindLinkHello {
		t.Fatalf("link hello answered %v %v", f.Kind, err)
	}
	// A process on n2, asked of n0: n0 forwards it.
	if err := c.Write(1, 0, &wire.Spawn{Node: 2, Argv: []string{"sleep", "30"}}, time.Second); err != nil {
		t.Fatal(err)
	}
	f, err := c.Read()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Msg.(*wire.Started); !ok || f.ID != 1 {
		t.Fatalf("spawn answered %v (%+v)", f.Kind, f.Msg)
	}
	u.Kill(0) // ends the link, and with it the forwarded request
	// n2 kills the process whose requester went away.
	cl := u.Client(t, 2)
	for deadline := time.Now().Add(10 * time.Second); ; {
		err := cl.Signal(ctx(t), 2, "", f.Msg.(*wire.Started).PID, 0)
		if lamclient.Code(err) == wire.CodeNoEntry {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the forwarded process still runs on n2 (%v)", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
