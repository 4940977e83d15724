package colladapter_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/libmpi/coll"
	_ "github.com/lamgo/lam/libmpi/coll/basic"
	"github.com/lamgo/lam/libmpi/internal/colladapter"
	"github.com/lamgo/lam/libmpi/internal/comm"
	"github.com/lamgo/lam/libmpi/internal/core"
	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/shared/ssi"
)

// sockLink is one end of a socket pair.
type sockLink struct{ fd int }

func (l sockLink) Fd() int { return l.fd }
func (l sockLink) Read(p []byte) (int, error) {
	n, err := unix.Read(l.fd, p)
	if err == unix.EAGAIN {
		return 0, nil
	}
	if n < 0 {
		n = 0
	}
	return n, err
}
func (l sockLink) Write(p []byte) (int, error) {
	n, err := unix.Write(l.fd, p)
	if err == unix.EAGAIN {
		return 0, nil
	}
	if n < 0 {
		n = 0
	}
	return n, err
}
func (l sockLink) Close() error { return unix.Close(l.fd) }

// engines starts n engines joined by socket pairs.
func engines(t *testing.T, n int) []*core.Engine {
	t.Helper()
	links := make([][]rpi.Link, n)
	for i := range links {
		links[i] = make([]rpi.Link, n)
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, fd := range fds {
				if err := unix.SetNonblock(fd, true); err != nil {
					t.Fatal(err)
				}
			}
			links[i][j], links[j][i] = sockLink{fds[0]}, sockLink{fds[1]}
		}
	}
	es := make([]*core.Engine, n)
	for i := range es {
		es[i] = core.New(core.Config{Rank: i, Links: links[i], Short: 65536, Pace: core.DefaultPace})
	}
	t.Cleanup(func() {
		for _, e := range es {
			e.Close(context.Background())
		}
	})
	return es
}

// The flow control of the collectives that send their call with their
// data (coll_base_check=1), over the core engine: 100 000 Gathers of 8
// bytes on 4 processes whose root sleeps now and then, so that its
// senders run ahead. The root's queue of unexpected messages never
// holds more than 3 × coll_base_sent_sync of them, and once the engine
// has records for that many, the Gathers allocate nothing.
func TestGatherSentSync(t *testing.T) {
	const n, root = 4, 0
	ops := 100_000
	if testing.Short() || race {
		ops = 20_000
	}
	for _, every := range []int{64, 0} {
		t.Run(fmt.Sprintf("sync=%d", every), func(t *testing.T) {
			if every == 0 {
				ops = min(ops, 10_000) // enough to show the queue grow
			}
			es := engines(t, n)
			settings := ssi.NewSettings([]ssi.Arg{{Key: coll.ParamSentSync, Value: fmt.Sprint(every)}}, nil)
			group := []int{0, 1, 2, 3}
			var allocs float64
			errs := make([]error, n)
			var wg sync.WaitGroup
			for r := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					tr := &colladapter.Transport{Engine: es[r], Comm: comm.Comm{Context: 0, Group: group, Rank: r},
						Nodes: make([]int32, n), Label: "world"}
					c := coll.New(tr, settings)
					if err := c.Setup(); err != nil {
						errs[r] = err
						return
					}
					send, recv := coll.Buffer(8), coll.Buffer(8*n)
					var m0 runtime.MemStats
					for i := range ops {
						if r == root && i%5000 == 0 {
							time.Sleep(2 * time.Millisecond)
						}
						if r == root && i == ops/2 {
							runtime.ReadMemStats(&m0)
						}
						send[0] = byte(i)
						err := c.Run(coll.Sig{Kind: coll.Gather, Root: root, Send: 8}, func(a *coll.Actions) error {
							return a.Gather(c, send, recv, root)
						})
						if err != nil {
							errs[r] = fmt.Errorf("call %d: %w", i, err)
							return
						}
						if r == root {
							for j := range n {
								if recv[8*j] != byte(i) {
									errs[r] = fmt.Errorf("call %d: block %d has %d", i, j, recv[8*j])
									return
								}
							}
						}
					}
					if r == root {
						var m1 runtime.MemStats
						runtime.ReadMemStats(&m1)
						allocs = float64(m1.Mallocs-m0.Mallocs) / float64(ops-ops/2)
					}
				}()
			}
			wg.Wait()
			for r, err := range errs {
				if err != nil {
					t.Fatalf("rank %d: %v", r, err)
				}
			}
			_, most := es[root].UnexpectedDepth()
			bound := (n - 1) * every
			t.Logf("%d Gathers: the root's unexpected queue held at most %d messages (bound %d); %.4f allocs/op (every process) in the second half",
				ops, most, bound, allocs)
			switch {
			case every > 0 && most > bound:
				t.Errorf("the root's unexpected queue held %d messages, more than %d", most, bound)
			case every > 0 && !race && allocs > 0.01: // under the race detector sync.Pool drops what it keeps
				t.Errorf("%.4f allocs/op in the steady state, want 0", allocs)
			case every == 0 && most <= 3*64:
				t.Errorf("without flow control the queue held only %d messages: the test does not show the bound", most)
			}
		})
	}
}
