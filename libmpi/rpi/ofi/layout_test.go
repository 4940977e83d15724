//go:build ofi && cgo

package ofi

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"
	"unsafe"

	"github.com/lamgo/lam/libmpi/internal/core"
	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/libmpi/rpi/rpitest"
	"github.com/lamgo/lam/shared/ssi"
)

// TestReadRemoteLayout: a long message read into a layout (a derived
// datatype's receive) by pulls or reads: small blocks through the
// link's scratch buffer (more than one scratch's worth), large blocks
// straight into them, and mixtures; a layout shorter than the read
// fails.
func TestReadRemoteLayout(t *testing.T) {
	layouts := []struct {
		name   string
		blocks []rpi.Block
		count  int
		extent int
	}{
		{"small", []rpi.Block{{Off: 0, Len: 8}}, 300000, 16},             // 2.3 MiB in 8-byte blocks
		{"large", []rpi.Block{{Off: 100, Len: 200 << 10}}, 5, 300 << 10}, // 1000 KiB straight into blocks
		{"mixed", []rpi.Block{{Off: 0, Len: 24}, {Off: 64, Len: 70 << 10}}, 20, 80 << 10},
	}
	for _, prov := range []string{"tcp", "shm"} {
		for _, tagged := range []string{"1", "0"} {
			t.Run(fmt.Sprintf("%s-tagged%s", prov, tagged), func(t *testing.T) {
				if _, err := probe(prov); err != nil {
					t.Skipf("libfabric provider %s: %v", prov, err)
				}
				_, links := openPair(t, prov, ssi.Arg{Key: "rpi_ofi_tagged", Value: tagged})
				rl := links[1][0].(rpi.RemoteLayout)
				for _, lt := range layouts {
					size := 0
					for _, b := range lt.blocks {
						size += b.Len
					}
					lay := &rpi.Layout{Base: make([]byte, lt.count*lt.extent), Blocks: lt.blocks, Count: lt.count, Extent: lt.extent, Size: size}
					src := make([]byte, lay.Len())
					for i := range src {
						src[i] = byte(i*7 + i>>11)
					}
					if !links[0][1].(rpi.Exposer).Expose(src) {
						t.Fatal("Expose refused")
					}
					rpitest.Exchange(t, links[0][1], links[1][0], []byte("rts"))
					addr := uint64(uintptr(unsafe.Pointer(&src[0])))
					c := lay.Cursor()
					if err := rl.ReadRemoteLayout(&c, len(src), addr); err != nil {
						t.Fatalf("%s: %v", lt.name, err)
					}
					if c.Pos() != len(src) {
						t.Errorf("%s: the cursor moved %d bytes, want %d", lt.name, c.Pos(), len(src))
					}
					got := make([]byte, len(src))
					g := lay.Cursor()
					g.CopyOut(got)
					if !bytes.Equal(got, src) {
						t.Errorf("%s: the layout holds other bytes", lt.name)
					}
					short := lay.Cursor()
					short.Seek(lay.Len() - 10)
					if err := rl.ReadRemoteLayout(&short, 100, addr); err == nil {
						t.Errorf("%s: a read of 100 bytes into the last 10 of the layout succeeded", lt.name)
					}
					links[0][1].(rpi.Exposer).Unexpose(src)
				}
			})
		}
	}
}

// TestCoreLayoutReceive: a long message received into a layout through
// the MPI core is read by the receiver (ReadRemoteLayout), not streamed
// through the link, and lands in the layout's blocks.
func TestCoreLayoutReceive(t *testing.T) {
	for _, prov := range []string{"tcp", "shm"} {
		t.Run(prov, func(t *testing.T) {
			ts, es := corePair(t, prov)
			const count, extent = 40000, 24
			lay := &rpi.Layout{Base: make([]byte, count*extent), Blocks: []rpi.Block{{Off: 4, Len: 8}, {Off: 16, Len: 4}}, Count: count, Extent: extent, Size: 12}
			msg := make([]byte, lay.Len()) // 480000 bytes: long
			for i := range msg {
				msg[i] = byte(i ^ i>>9)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			r := es[1].NewRecv(nil, 0, 3, 0)
			r.SetLayout(lay)
			es[1].Start(r)
			s := es[0].NewSend(msg, 1, 1, 0, 3, 0, core.Standard)
			es[0].Start(s)
			done := make(chan error, 1)
			go func() { done <- es[0].Wait(ctx, s) }()
			if err := es[1].Wait(ctx, r); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			got := make([]byte, len(msg))
			c := lay.Cursor()
			c.CopyOut(got)
			if !bytes.Equal(got, msg) {
				t.Error("the layout holds other bytes")
			}
			ts[1].mu.Lock()
			n := ts[1].layoutReads
			ts[1].mu.Unlock()
			if n != 1 {
				t.Errorf("%d reads into a layout, want 1 (the body came through the stream?)", n)
			}
		})
	}
}
