//go:build ofi && cgo

package ofi

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/internal/core"
	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/libmpi/rpi/rpitest"
	"github.com/lamgo/lam/shared/ssi"
)

// TestHybridLinks: which transport carries each peer, for a job of four
// on two nodes (0, 0, 1, 1): ofi only between nodes by default, ofi for
// every peer with rpi_ofi_onnode or over the shm provider.
func TestHybridLinks(t *testing.T) {
	for _, c := range []struct {
		name   string
		args   []ssi.Arg
		onNode bool // peers on the node go through ofi too
	}{
		{"tcp", []ssi.Arg{{Key: "rpi_ofi_provider", Value: "tcp"}}, false},
		{"tcp-onnode", []ssi.Arg{{Key: "rpi_ofi_provider", Value: "tcp"}, {Key: "rpi_ofi_onnode", Value: "1"}}, true},
		{"shm", []ssi.Arg{{Key: "rpi_ofi_provider", Value: "shm"}}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			prov := c.args[0].Value
			if _, err := probe(prov); err != nil {
				t.Skipf("libfabric provider %s: %v", prov, err)
			}
			nodes := []int32{0, 0, 1, 1}
			if prov == "shm" {
				nodes = []int32{0, 0, 0, 0} // shm reaches only its node
			}
			ts, links := hybridJob(t, ssi.NewSettings(c.args, nil), nodes)
			for i := range links {
				for j, l := range links[i] {
					if l == nil {
						continue
					}
					_, viaOFI := l.(*link)
					if want := nodes[i] != nodes[j] || c.onNode; viaOFI != want {
						t.Errorf("link %d→%d (nodes %d, %d): through ofi %v, want %v", i, j, nodes[i], nodes[j], viaOFI, want)
					}
					if viaOFI && l.(rpi.Shorter).Short() != 65536 {
						t.Errorf("link %d→%d: eager limit %d, want rpi_ofi_short", i, j, l.(rpi.Shorter).Short())
					}
				}
				if _, ok := ts[i].(rpi.Waiter); !ok {
					t.Errorf("rank %d's transport is no Waiter", i)
				}
				if err := rpi.Drainable("ofi", ts[i]); err != nil {
					t.Errorf("rank %d: %v", i, err)
				}
			}
			// Bytes go both ways on an on-node and an off-node link.
			for _, p := range [][2]int{{0, 1}, {1, 2}, {3, 0}} {
				rpitest.Exchange(t, links[p[0]][p[1]], links[p[1]][p[0]], []byte("hybrid"))
			}
		})
	}
}

// TestHybridSleepWakes: a process with peers on its node and on another
// sleeps on both at once: a write from either wakes it.
func TestHybridSleepWakes(t *testing.T) {
	if _, err := probe("tcp"); err != nil {
		t.Skipf("libfabric provider tcp: %v", err)
	}
	ts, links := hybridJob(t, ssi.NewSettings([]ssi.Arg{{Key: "rpi_ofi_provider", Value: "tcp"}}, nil), []int32{0, 0, 1})
	w := ts[0].(rpi.Waiter)
	for _, from := range []int{1, 2} { // on node, off node
		buf := make([]byte, 16)
		for { // drain what earlier rounds left
			if n, _ := links[0][from].Read(buf); n == 0 {
				break
			}
		}
		tok := w.Arm()
		wrote := make(chan struct{})
		go func() {
			defer close(wrote)
			time.Sleep(50 * time.Millisecond)
			links[from][0].Write([]byte("x"))
		}()
		start := time.Now()
		w.Sleep(tok, 5*time.Second)
		w.Disarm()
		<-wrote
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("a write from rank %d woke the sleeper after %v", from, d)
		}
		deadline := time.Now().Add(5 * time.Second)
		for n := 0; n == 0 && time.Now().Before(deadline); {
			n, _ = links[0][from].Read(buf)
		}
	}
}

// hybridJob opens and connects a job of len(nodes) processes of the
// module in this process.
func hybridJob(t *testing.T, s *ssi.Settings, nodes []int32) ([]rpi.Transport, [][]rpi.Link) {
	t.Helper()
	n := len(nodes)
	prefix := filepath.Join(t.TempDir(), "lam-test-")
	ts := make([]rpi.Transport, n)
	peers := make([]rpi.Peer, n)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := range ts {
		tr, err := Module{}.Open(ctx, &rpi.Job{Rank: i, Size: n, Node: nodes[i], Host: "127.0.0.1",
			Settings: s, Timeout: 20 * time.Second, Shared: prefix, PID: os.Getpid()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tr.Close() })
		ts[i] = tr
		peers[i] = rpi.Peer{Rank: i, Node: nodes[i], Addr: tr.Addr()}
	}
	links := make([][]rpi.Link, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	secret := []byte("0123456789abcdef0123456789abcdef")
	for i := range ts {
		wg.Go(func() { links[i], errs[i] = ts[i].Connect(ctx, peers, secret) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", i, err)
		}
	}
	t.Cleanup(func() {
		for _, ls := range links {
			for _, l := range ls {
				if l != nil {
					l.Close()
				}
			}
		}
	})
	return ts, links
}

// TestBuffersForCarriedPeers: an endpoint allocates its buffers at
// Connect, for the peers it carries: in a job of four on two nodes
// (0, 0, 1, 1), with usysv within the nodes, each rank's endpoint has
// buffers for the two peers on the other node (2 × 2 × credits ×
// bufsize: 2 MiB by default, 3 MiB when it was sized at open for every
// peer); with rpi_ofi_onnode for all three; on one node, none.
func TestBuffersForCarriedPeers(t *testing.T) {
	if _, err := probe("tcp"); err != nil {
		t.Skipf("libfabric provider tcp: %v", err)
	}
	const per = 2 * 16 * 32768 // a peer's receive and send buffers, by default
	for _, c := range []struct {
		name    string
		args    []ssi.Arg
		nodes   []int32
		carried int // peers each rank's endpoint carries
	}{
		{"two-nodes", nil, []int32{0, 0, 1, 1}, 2},
		{"onnode", []ssi.Arg{{Key: "rpi_ofi_onnode", Value: "1"}}, []int32{0, 0, 1, 1}, 3},
		{"one-node", nil, []int32{0, 0, 0, 0}, 0},
		{"small", []ssi.Arg{{Key: "rpi_ofi_credits", Value: "4"}, {Key: "rpi_ofi_bufsize", Value: "4096"}}, []int32{0, 1, 0, 1}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]ssi.Arg{{Key: "rpi_ofi_provider", Value: "tcp"}}, c.args...)
			want := uint64(len(c.nodes) * c.carried * per)
			if c.name == "small" {
				want = uint64(len(c.nodes) * c.carried * 2 * 4 * 4096)
			}
			before := bufAllocated.Load()
			_, links := hybridJob(t, ssi.NewSettings(args, nil), c.nodes)
			got := bufAllocated.Load() - before
			if got != want {
				t.Errorf("%d bytes of buffers for the job, want %d", got, want)
			}
			t.Logf("%d KiB of buffers for the job of %d (%d peers carried by each endpoint)", got>>10, len(c.nodes), c.carried)
			if c.carried > 0 {
				rpitest.Exchange(t, links[0][1], links[1][0], []byte("buffers"))
			}
		})
	}
}

// countedLink counts the reads of a link (the MPI core reads each link
// once per pass when nothing comes).
type countedLink struct {
	rpi.Link
	reads atomic.Uint64
}

func (c *countedLink) Read(p []byte) (int, error) {
	c.reads.Add(1)
	return c.Link.Read(p)
}

// TestHybridOffNodePolls: in a job of four on two nodes (0, 0, 1, 1),
// usysv within the nodes and ofi (tcp) between them, the MPI core of a
// rank waiting for a peer on its node reads its ofi links only every
// few passes while they are idle (rpi.CostlyPoller), as it reads
// descriptors: the crossings into C per pass, which were one (one poll
// of the completion queue per pass), are about an eighth.
func TestHybridOffNodePolls(t *testing.T) {
	if _, err := probe("tcp"); err != nil {
		t.Skipf("libfabric provider tcp: %v", err)
	}
	ts, links := hybridJob(t, ssi.NewSettings([]ssi.Arg{{Key: "rpi_ofi_provider", Value: "tcp"}}, nil), []int32{0, 0, 1, 1})
	onNode := make([]*countedLink, 2)
	var ofis []*transport
	es := make([]*core.Engine, len(ts))
	for i, tr := range ts {
		ls := append([]rpi.Link(nil), links[i]...)
		if i < 2 {
			onNode[i] = &countedLink{Link: ls[1-i]}
			ls[1-i] = onNode[i]
			ofis = append(ofis, ls[2].(*link).t)
		}
		cfg := core.Config{Rank: i, Links: ls, Short: tr.Short(), Pace: tr.(rpi.Pacer).Pace()}
		cfg.Waiter, _ = tr.(rpi.Waiter)
		es[i] = core.New(cfg)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, e := range es {
			e.Close(ctx)
		}
	})
	calls, _ := crossings(ofis)
	passes := onNode[0].reads.Load() + onNode[1].reads.Load()
	const n = 2000
	start := time.Now()
	if err := corePingPong(es[:2], 1, n); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	c, _ := crossings(ofis)
	p := onNode[0].reads.Load() + onNode[1].reads.Load() - passes
	perPass := float64(c-calls) / float64(p)
	t.Logf("ranks 0 and 1: %d crossings into C in %d passes (%.3f per pass), %.1f per on-node round trip; %v per pass of each rank",
		c-calls, p, perPass, float64(c-calls)/n, 2*took/time.Duration(p))
	// The background progress polls too, now and then.
	if perPass > 0.25 {
		t.Errorf("%.3f crossings into C per pass over the links, want about 1/8", perPass)
	}
}
