package tcp

import (
	"bytes"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/libmpi/rpi"
)

// TestGatherScatter moves a layout of more pieces than one writev takes
// over a socket pair, gathered from one layout and scattered into
// another, with a header in front and partial calls as the socket fills.
func TestGatherScatter(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		unix.SetNonblock(fd, true)
	}
	a, b := &countingLink{fdLink: fdLink{fd: fds[0]}}, &countingLink{fdLink: fdLink{fd: fds[1]}}
	defer a.Close()
	defer b.Close()
	mk := func(count int, seed byte) *rpi.Layout {
		l := &rpi.Layout{Base: make([]byte, 16*count), Blocks: []rpi.Block{{Off: 8, Len: 8}, {Off: 1, Len: 2}}, Count: count, Extent: 16, Size: 10}
		for i := range l.Base {
			l.Base[i] = seed + byte(i*5+i/256)
		}
		return l
	}
	src, dst := mk(50000, 1), mk(50000, 0) // 100000 pieces, 500000 bytes
	hdr := []byte("header")
	sc, dc := src.Cursor(), dst.Cursor()
	var head []byte
	wrote, read := 0, 0
	for read < len(hdr)+src.Len() {
		if wrote < len(hdr)+src.Len() {
			h := hdr[min(wrote, len(hdr)):]
			n, err := a.WriteGather(h, &sc, src.Len()-sc.Pos())
			if err != nil {
				t.Fatal(err)
			}
			wrote += n
		}
		if len(head) < len(hdr) {
			p := make([]byte, len(hdr)-len(head))
			n, err := b.Read(p)
			if err != nil {
				t.Fatal(err)
			}
			head = append(head, p[:n]...)
			read += n
			continue
		}
		n, err := b.ReadScatter(&dc, dst.Len()-dc.Pos())
		if err != nil {
			t.Fatal(err)
		}
		read += n
	}
	want, got := make([]byte, src.Len()), make([]byte, dst.Len())
	c := src.Cursor()
	c.CopyOut(want)
	c = dst.Cursor()
	c.CopyOut(got)
	if !bytes.Equal(head, hdr) || !bytes.Equal(got, want) || sc.Left() != 0 || dc.Left() != 0 {
		t.Fatal("the layout changed on its way")
	}
	if s, _ := a.Counters(); s != uint64(wrote) {
		t.Errorf("sent %d, counted %d", wrote, s)
	}
	if _, r := b.Counters(); r != uint64(read) {
		t.Errorf("read %d, counted %d", read, r)
	}
	// The peer gone: a scattering read says so.
	a.Close()
	if _, err := b.ReadScatter(&dc, 0); err != nil {
		t.Fatalf("reading nothing: %v", err)
	}
	dc = dst.Cursor()
	if _, err := b.ReadScatter(&dc, 10); err == nil {
		t.Fatal("a read from a closed peer succeeded")
	}
}
