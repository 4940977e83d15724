//go:build ofi && cgo

package ofi

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"unsafe"

	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/libmpi/rpi/rpitest"
	"github.com/lamgo/lam/shared/ssi"
)

// TestLongPaths: a long message's body moves by a tagged pull, a remote
// read or the stream, as the provider and rpi_ofi_tagged and rpi_ofi_rma
// say; a pull or read of memory the sender did not expose fails (the
// core then asks for the body through the link).
func TestLongPaths(t *testing.T) {
	for _, prov := range []string{"tcp", "shm"} {
		for _, c := range []struct {
			tagged, rma string
			path        string // pull, read, stream
		}{
			{"1", "1", "pull"},
			{"0", "1", "read"},
			{"1", "0", "pull"},
			{"0", "0", "stream"},
		} {
			t.Run(fmt.Sprintf("%s-tagged%s-rma%s", prov, c.tagged, c.rma), func(t *testing.T) {
				if _, err := probe(prov); err != nil {
					t.Skipf("libfabric provider %s: %v", prov, err)
				}
				ts, links := openPair(t, prov, ssi.Arg{Key: "rpi_ofi_tagged", Value: c.tagged}, ssi.Arg{Key: "rpi_ofi_rma", Value: c.rma})
				path := "stream"
				switch {
				case ts[1].pull:
					path = "pull"
				case ts[1].fb.rma():
					path = "read"
				}
				if path != c.path {
					t.Fatalf("long messages go by %s, want %s", path, c.path)
				}
				r := links[1][0].(rpi.RemoteReader)
				if path == "stream" {
					if r.SingleCopy() < 1<<40 {
						t.Errorf("single copy above %d without a way to do it", r.SingleCopy())
					}
					return
				}
				src := bytes.Repeat([]byte("pulled in place "), 3<<16) // 3 MiB
				src = append(src, 7)
				if !links[0][1].(rpi.Exposer).Expose(src) {
					t.Fatal("Expose refused")
				}
				addr := uint64(uintptr(unsafe.Pointer(&src[0])))
				// The key message comes through the stream before
				// what the core writes after it.
				rpitest.Exchange(t, links[0][1], links[1][0], []byte("rts"))
				for _, part := range [][2]int{{0, len(src)}, {1, 4097}, {len(src) - 1, 1}} {
					dst := make([]byte, part[1])
					if err := r.ReadRemote(dst, addr+uint64(part[0])); err != nil {
						t.Fatalf("read of [%d, +%d): %v", part[0], part[1], err)
					}
					if !bytes.Equal(dst, src[part[0]:part[0]+part[1]]) {
						t.Fatalf("read of [%d, +%d): the bytes changed", part[0], part[1])
					}
				}
				// Beyond the exposed buffer: refused by the receiver's
				// key table.
				if err := r.ReadRemote(make([]byte, 2), addr+uint64(len(src))-1); !errors.Is(err, errNoKey) {
					t.Errorf("read past the exposed buffer: %v", err)
				}
				links[0][1].(rpi.Exposer).Unexpose(src)
				if path == "pull" {
					// Unexposed: the sender answers with an empty message.
					if err := r.ReadRemote(make([]byte, 100), addr); err == nil {
						t.Error("a pull of a buffer no longer exposed succeeded")
					}
					if ts[0].links[1].tsends != 0 {
						t.Errorf("%d tagged sends left in flight", ts[0].links[1].tsends)
					}
				}
			})
		}
	}
}
