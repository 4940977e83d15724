package kernel_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/kernel/kerneltest"
	"github.com/lamgo/lam/shared/wire"
)

var (
	fuzzOnce sync.Once
	fuzzU    *kerneltest.Universe
	fuzzStop = func() {}
)

// FuzzLocalFrames sends arbitrary bytes to a live lamd after a valid hello:
// the lamd may close that connection, but must never crash or stop
// serving others.
func FuzzLocalFrames(f *testing.F) {
	f.Add(wire.AppendFrame(nil, 1, 0, &wire.NodesReq{}))
	f.Add(wire.AppendFrame(nil, 2, 0, &wire.Echo{Node: 0, Data: []byte("x")}))
	f.Add(wire.AppendFrame(nil, 3, 0, &wire.Spawn{Node: 0, Argv: []string{"true"}}))
	f.Add(wire.AppendFrame(nil, 4, 0, &wire.Recv{Event: 1, Try: true}))
	f.Add([]byte{0, 0, 0, 12, 0, 99, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzOnce.Do(func() { fuzzU, fuzzStop = kerneltest.StartShared(kerneltest.Options{Nodes: 2}) })
		nc, err := net.Dial("unix", fuzzU.Dirs[0].Socket())
		if err != nil {
			t.Fatal(err)
		}
		c := wire.NewConn(nc)
		if err := c.Write(1, 0, &wire.Hello{Version: wire.Version, Role: wire.RoleTool, Name: "fuzz"}, time.Second); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Read(); err != nil {
			t.Fatal(err)
		}
		nc.SetDeadline(time.Now().Add(time.Second))
		nc.Write(data)
		// Drain whatever comes back, briefly.
		nc.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		for {
			if _, err := c.Read(); err != nil {
				break
			}
		}
		nc.Close()
		cl := fuzzU.ClientNoCleanup()
		defer cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := cl.Nodes(ctx); err != nil {
			t.Fatalf("lamd stopped serving after %x: %v", data, err)
		}
	})
}
