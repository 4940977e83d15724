package cached

import (
	"bytes"
	"testing"
)

// Copy copies what copy copies, whole or in pieces, and returns the same
// count; overlapping copies move as copy moves them.
func TestCopy(t *testing.T) {
	for _, tt := range []struct {
		name          string
		dst, src, off int // off: src starts off bytes into dst's memory (overlap) if non-zero
	}{
		{"empty", 0, 0, 0},
		{"small", 100, 100, 0},
		{"piece", piece, piece, 0},
		{"two pieces and a bit", 2*piece + 7, 2*piece + 7, 0},
		{"1 MiB", 1 << 20, 1 << 20, 0},
		{"dst shorter", 1<<20 + 3, 3 << 20, 0},
		{"src shorter", 3 << 20, 1<<20 + 5, 0},
		{"above Max", Max + 1, Max + 1, 0},
		{"overlap forward", 3 << 20, 3 << 20, 4096},
		{"overlap backward", 3 << 20, 3 << 20, -4096},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var dst, src, want []byte
			if tt.off == 0 {
				dst, src = make([]byte, tt.dst), make([]byte, tt.src)
				for i := range src {
					src[i] = byte(i*7 + i>>9)
				}
				want = append([]byte(nil), dst...)
				copy(want, src)
			} else {
				mem := make([]byte, tt.dst+4096)
				for i := range mem {
					mem[i] = byte(i*13 + i>>11)
				}
				ref := append([]byte(nil), mem...)
				d, s := 0, tt.off
				if tt.off < 0 {
					d, s = -tt.off, 0
				}
				copy(ref[d:d+tt.dst], ref[s:s+tt.src])
				dst, src, want = mem[d:d+tt.dst], mem[s:s+tt.src], ref[d:d+tt.dst]
			}
			if n, w := Copy(dst, src), min(tt.dst, tt.src); n != w {
				t.Fatalf("Copy = %d, want %d", n, w)
			}
			if !bytes.Equal(dst, want) {
				t.Fatal("copied bytes differ from copy's")
			}
		})
	}
}

func BenchmarkCopy(b *testing.B) {
	for _, n := range []int{1 << 20, 4 << 20} {
		src, dst := make([]byte, n), make([]byte, n)
		b.Run("copy/"+sizeName(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				copy(dst, src)
			}
		})
		b.Run("Copy/"+sizeName(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				Copy(dst, src)
			}
		})
	}
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return string(rune('0'+n>>20)) + "MiB"
	}
	return "small"
}
