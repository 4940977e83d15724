package mpi

import (
	"reflect"
	"testing"
)

// TestWalkRuns checks the runs walk hands over: adjacent blocks merged
// (within an element and across elements), holes kept, the buffer's end
// enforced.
func TestWalkRuns(t *testing.T) {
	mk := func(d *Datatype, err error) *Datatype {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Commit(); err != nil {
			t.Fatal(err)
		}
		return d
	}
	vec := mk(TypeVector(2, 1, 2, Int32))                    // 4 bytes, hole of 4, 4 bytes: extent 12
	adj := mk(TypeIndexed([]int{1, 1}, []int{0, 1}, Int32))  // two adjacent blocks: one run
	back := mk(TypeIndexed([]int{1, 1}, []int{1, 0}, Int32)) // second block before the first: two runs
	rsz := mk(TypeCreateResized(Int32, 0, 8))                // 4 bytes then a hole of 4
	tests := []struct {
		name  string
		count int
		d     *Datatype
		buf   int
		runs  [][2]int // offset, length
		fails bool
	}{
		{"bytes in one run", 32768, Byte, 32768, [][2]int{{0, 32768}}, false},
		{"ints in one run", 3, Int32, 16, [][2]int{{0, 12}}, false},
		{"zero count", 0, Int32, 0, nil, false},
		{"too short", 5, Int32, 16, nil, true},
		{"vector keeps its holes", 2, vec, 24, [][2]int{{0, 4}, {8, 8}, {20, 4}}, false},
		{"adjacent blocks merge", 2, adj, 16, [][2]int{{0, 16}}, false},
		{"out of order", 1, back, 8, [][2]int{{4, 4}, {0, 4}}, false},
		{"resized keeps its holes", 3, rsz, 20, [][2]int{{0, 4}, {8, 4}, {16, 4}}, false},
		{"resized past the end", 3, rsz, 19, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			buf := make([]byte, tt.buf)
			var runs [][2]int
			err := walk(buf, tt.count, tt.d, func(b []byte) {
				off := 0
				if len(b) > 0 {
					off = int(cap(buf) - cap(b))
				}
				runs = append(runs, [2]int{off, len(b)})
			})
			if (err != nil) != tt.fails {
				t.Fatalf("walk: %v, want failure %v", err, tt.fails)
			}
			if !tt.fails && !reflect.DeepEqual(runs, tt.runs) {
				t.Errorf("runs %v, want %v", runs, tt.runs)
			}
		})
	}
}

func BenchmarkPackBytes(b *testing.B) {
	in, out := make([]byte, 32768), make([]byte, 32768)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		pos := 0
		if err := Pack(in, len(in), Byte, out, &pos); err != nil {
			b.Fatal(err)
		}
	}
}
