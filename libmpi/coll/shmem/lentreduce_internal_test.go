package shmem

import "testing"

// The slices of a lent reduction cover its data once, in order, each of
// whole elements.
func TestSliceAt(t *testing.T) {
	for _, tt := range []struct{ size, esz, n int }{
		{65544, 8, 3}, {160008, 8, 7}, {65540, 4, 5}, {65552, 16, 4}, {24, 8, 5}, {1 << 20, 8, 8}, {0, 8, 3},
	} {
		next := 0
		for i := range tt.n {
			lo, hi := sliceAt(tt.size, tt.esz, tt.n, i)
			if lo != next || hi < lo || hi > tt.size || lo%tt.esz != 0 || (hi%tt.esz != 0 && hi != tt.size) {
				t.Fatalf("%+v: slice %d is [%d, %d) after %d", tt, i, lo, hi, next)
			}
			next = hi
		}
		if next != tt.size {
			t.Errorf("%+v: the slices end at %d", tt, next)
		}
	}
}
