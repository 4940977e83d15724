package rpi

import (
	"bytes"
	"testing"
)

// naive is a layout's bytes, read element by element, block by block.
func naive(l *Layout) []byte {
	var out []byte
	for i := 0; i < l.Count; i++ {
		for _, b := range l.Blocks {
			at := i*l.Extent + b.Off
			out = append(out, l.Base[at:at+b.Len]...)
		}
	}
	return out
}

func newLayout(blocks []Block, count, extent, span int) *Layout {
	l := &Layout{Base: make([]byte, span), Blocks: blocks, Count: count, Extent: extent}
	for _, b := range blocks {
		l.Size += b.Len
	}
	for i := range l.Base {
		l.Base[i] = byte(i*31 + 7)
	}
	return l
}

var layouts = []struct {
	name string
	l    func() *Layout
}{
	{"empty", func() *Layout { return newLayout(nil, 0, 0, 0) }},
	{"zero count", func() *Layout { return newLayout([]Block{{0, 4}}, 0, 4, 4) }},
	{"no blocks", func() *Layout { return newLayout(nil, 5, 8, 40) }},
	{"empty blocks", func() *Layout { return newLayout([]Block{{0, 0}, {3, 2}, {5, 0}}, 4, 8, 40) }},
	{"contiguous", func() *Layout { return newLayout([]Block{{0, 16}}, 3, 16, 48) }},
	{"strided", func() *Layout { return newLayout([]Block{{0, 8}}, 10, 16, 160) }},
	{"out of order", func() *Layout { return newLayout([]Block{{6, 3}, {0, 2}, {3, 1}}, 5, 10, 50) }},
	{"overlapping", func() *Layout { return newLayout([]Block{{0, 6}, {2, 6}}, 3, 8, 24) }},
	{"negative extent", func() *Layout { return newLayout([]Block{{36, 4}}, 5, -8, 40) }},
}

// TestCursor reads and writes every layout in steps of every length,
// through Next, CopyOut and CopyIn, against the naive order, and seeks.
func TestCursor(t *testing.T) {
	for _, tc := range layouts {
		l := tc.l()
		want := naive(l)
		if l.Len() != len(want) {
			t.Fatalf("%s: Len %d, want %d", tc.name, l.Len(), len(want))
		}
		for step := 1; step <= len(want)+1; step++ {
			var got, out []byte
			c := l.Cursor()
			for p := c.Next(step); p != nil; p = c.Next(step) {
				if len(p) > step {
					t.Fatalf("%s: Next(%d) gave %d bytes", tc.name, step, len(p))
				}
				got = append(got, p...)
			}
			c = l.Cursor()
			for {
				b := make([]byte, step)
				n := c.CopyOut(b)
				out = append(out, b[:n]...)
				if n < step {
					break
				}
			}
			if !bytes.Equal(got, want) || !bytes.Equal(out, want) {
				t.Fatalf("%s step %d: Next %x, CopyOut %x, want %x", tc.name, step, got, out, want)
			}
			// Scatter the naive bytes, reversed, back in steps.
			rev := bytes.Clone(want)
			for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
				rev[i], rev[j] = rev[j], rev[i]
			}
			c = l.Cursor()
			for in := rev; len(in) > 0; {
				n := c.CopyIn(in[:min(step, len(in))])
				if n == 0 {
					t.Fatalf("%s step %d: CopyIn stopped %d bytes short", tc.name, step, len(in))
				}
				in = in[n:]
			}
			if tc.name != "overlapping" && !bytes.Equal(naive(l), rev) {
				t.Fatalf("%s step %d: CopyIn gave %x, want %x", tc.name, step, naive(l), rev)
			}
			l = tc.l()
		}
		for pos := 0; pos <= len(want)+2; pos++ {
			c := l.Cursor()
			c.Seek(pos)
			if c.Pos() != min(pos, len(want)) || c.Left() != len(want)-c.Pos() {
				t.Fatalf("%s: Seek(%d) at %d, %d left", tc.name, pos, c.Pos(), c.Left())
			}
			rest := make([]byte, len(want))
			n := c.CopyOut(rest)
			if !bytes.Equal(rest[:n], want[min(pos, len(want)):]) {
				t.Fatalf("%s: after Seek(%d) read %x", tc.name, pos, rest[:n])
			}
		}
	}
}

// FuzzCursor checks the cursor against the naive order for layouts made
// of fuzzed blocks, counts and extents, read in fuzzed steps.
func FuzzCursor(f *testing.F) {
	f.Add([]byte{0, 3, 5, 2}, uint8(4), int8(9), uint8(3))
	f.Add([]byte{2, 6, 0, 6}, uint8(3), int8(8), uint8(1))
	f.Add([]byte{4, 4}, uint8(5), int8(-8), uint8(7))
	f.Fuzz(func(t *testing.T, raw []byte, count uint8, extent int8, step uint8) {
		var blocks []Block
		for i := 0; i+1 < len(raw) && len(blocks) < 16; i += 2 {
			blocks = append(blocks, Block{Off: int(raw[i] % 64), Len: int(raw[i+1] % 16)})
		}
		n, ext := int(count%32), int(extent)
		// Place the elements inside a buffer: shift the blocks so the
		// lowest byte of any element is at 0.
		lo, hi := 0, 0
		for _, b := range blocks {
			for _, e := range []int{0, n - 1} {
				if n == 0 {
					continue
				}
				lo = min(lo, e*ext+b.Off)
				hi = max(hi, e*ext+b.Off+b.Len)
			}
		}
		for i := range blocks {
			blocks[i].Off -= lo
		}
		l := newLayout(blocks, n, ext, hi-lo)
		want := naive(l)
		var got []byte
		c := l.Cursor()
		for p := c.Next(int(step%17) + 1); p != nil; p = c.Next(int(step%17) + 1) {
			got = append(got, p...)
		}
		if !bytes.Equal(got, want) || c.Left() != 0 {
			t.Fatalf("got %x, want %x (%d left)", got, want, c.Left())
		}
	})
}
