package shm

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/lamgo/lam/libmpi/rpi"
)

// strided is a layout of count elements of two blocks (3 bytes, then 1
// byte two bytes on), 8 bytes apart, over a patterned buffer.
func strided(count int, seed byte) *rpi.Layout {
	l := &rpi.Layout{Base: make([]byte, 8*count), Blocks: []rpi.Block{{Off: 0, Len: 3}, {Off: 5, Len: 1}}, Count: count, Extent: 8, Size: 4}
	for i := range l.Base {
		l.Base[i] = seed + byte(i*11)
	}
	return l
}

func packed(l *rpi.Layout) []byte {
	b := make([]byte, l.Len())
	c := l.Cursor()
	c.CopyOut(b)
	return b
}

// TestRingLayouts writes frames whose bodies are layouts (gathered into
// the ring) mixed with plain writes, and reads them back plainly and into
// layouts (scattered from the ring), at random lengths that split and
// wrap: the stream must come out as it went in.
func TestRingLayouts(t *testing.T) {
	w, r := testRing(256)
	rng := rand.New(rand.NewPCG(3, 4))
	var sent, got []byte
	var pending []*rpi.Layout // layouts to read into, in order
	out := strided(40, 1)
	outC := out.Cursor()
	for i := 0; i < 20000 && len(sent) < 200000; i++ {
		hdr := make([]byte, rng.IntN(12))
		for j := range hdr {
			hdr[j] = byte(rng.Uint32())
		}
		if outC.Left() == 0 {
			out = strided(1+rng.IntN(60), byte(i))
			outC = out.Cursor()
		}
		from := outC.Pos()
		n := w.writeGather(hdr, &outC, min(outC.Left(), rng.IntN(80)))
		if n > 0 {
			all := append(bytes.Clone(hdr), packed(out)[from:outC.Pos()]...)
			if len(all) < n || outC.Pos()-from != max(n-len(hdr), 0) {
				t.Fatalf("wrote %d, the cursor moved %d past a header of %d", n, outC.Pos()-from, len(hdr))
			}
			sent = append(sent, all[:n]...)
		}
		if rng.IntN(2) == 0 {
			in := strided(1+rng.IntN(30), 0)
			pending = append(pending, in)
			c := in.Cursor()
			k := r.readScatter(&c, in.Len())
			got = append(got, packed(in)[:k]...)
			if c.Pos() != k {
				t.Fatalf("read %d, the cursor moved %d", k, c.Pos())
			}
		} else {
			buf := make([]byte, rng.IntN(50))
			k := r.read(buf)
			got = append(got, buf[:k]...)
		}
	}
	for {
		buf := make([]byte, 100)
		k := r.read(buf)
		if k == 0 {
			break
		}
		got = append(got, buf[:k]...)
	}
	if !bytes.Equal(sent, got) {
		t.Fatalf("the ring changed the stream (%d bytes sent, %d read)", len(sent), len(got))
	}
	if len(sent) < 50000 || len(pending) == 0 {
		t.Fatalf("only %d bytes went through", len(sent))
	}
}

// TestRemoteLayout copies between a layout and a peer's contiguous
// memory in both directions, with more pieces than one system call takes.
func TestRemoteLayout(t *testing.T) {
	_, links, _ := job(t, New("usysv", 40, true), 2)
	rl := links[1][0].(rpi.RemoteLayout)
	l := strided(3000, 9) // 6000 pieces
	want := packed(l)
	flat := make([]byte, len(want))
	c := l.Cursor()
	if err := rl.WriteRemoteLayout(&c, len(want), uint64(uintptrOf(flat))); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(flat, want) || c.Left() != 0 {
		t.Fatal("a gathering remote write changed the bytes")
	}
	back := strided(3000, 0)
	c = back.Cursor()
	if err := rl.ReadRemoteLayout(&c, len(want)-5, uint64(uintptrOf(flat))); err != nil {
		t.Fatal(err)
	}
	if got := packed(back); !bytes.Equal(got[:len(want)-5], want[:len(want)-5]) || c.Left() != 5 {
		t.Fatal("a scattering remote read changed the bytes")
	}
}
