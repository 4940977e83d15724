package tcp

import (
	"fmt"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/libmpi/rpi"
)

// BenchmarkGather moves 64 KiB of a layout over a socket pair in one
// goroutine, for pieces of several lengths: with writev and readv of the
// pieces themselves, against gathering into a buffer, write, read and
// scattering from a buffer (what the core does for links that cannot).
func BenchmarkGather(b *testing.B) {
	for _, piece := range []int{8, 64, 256, 1024, 4096} {
		for _, vector := range []bool{true, false} {
			name := "vector"
			if !vector {
				name = "buffer"
			}
			b.Run(fmt.Sprintf("piece%d/%s", piece, name), func(b *testing.B) { gatherBench(b, piece, vector) })
		}
	}
}

func gatherBench(b *testing.B, piece int, vector bool) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		b.Fatal(err)
	}
	for _, fd := range fds {
		unix.SetNonblock(fd, true)
		unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, 1<<20)
		unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 1<<20)
	}
	a, c := &fdLink{fd: fds[0]}, &fdLink{fd: fds[1]}
	defer a.Close()
	defer c.Close()
	const size = 64 << 10
	n := size / piece
	mk := func() *rpi.Layout {
		return &rpi.Layout{Base: make([]byte, 2*size), Blocks: []rpi.Block{{Off: 0, Len: piece}}, Count: n, Extent: 2 * piece, Size: piece}
	}
	src, dst := mk(), mk()
	buf := make([]byte, size)
	b.SetBytes(size)
	for b.Loop() {
		sc, dc := src.Cursor(), dst.Cursor()
		for dc.Left() > 0 {
			if sc.Left() > 0 {
				if vector {
					a.WriteGather(nil, &sc, sc.Left())
				} else {
					from := sc
					k := sc.CopyOut(buf)
					w, _ := a.Write(buf[:k])
					sc = from
					sc.Skip(w)
				}
			}
			if vector {
				c.ReadScatter(&dc, dc.Left())
			} else {
				r, _ := c.Read(buf[:dc.Left()])
				dc.CopyIn(buf[:r])
			}
		}
	}
}
