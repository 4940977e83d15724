package coll

import (
	"errors"
	"testing"
)

// Temp gives buffers of the size asked, from tempMin to tempMax from the
// pool's power-of-two classes; a schedule that ends without error gives
// them back, one that ends with an error (a receive may still be posted
// into one) does not, and smaller and larger ones are never the pool's.
func TestTemp(t *testing.T) {
	var given [][]byte
	giveBack = func(b []byte) { given = append(given, b) }
	t.Cleanup(func() { giveBack = putTemp })
	for _, tt := range []struct {
		name  string
		sizes []int
		err   error
		back  int // buffers given back
	}{
		{"clean", []int{tempMin, tempMin + 1, 3 << 20}, nil, 3},
		{"small ones are the collector's", []int{8, tempMin - 1}, nil, 0},
		{"so are those past the classes", []int{tempMax + 1}, nil, 0},
		{"an error keeps them from the pool", []int{1 << 20}, errors.New("a peer died"), 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			given = nil
			s := newSchedule(nil, nil)
			for _, n := range tt.sizes {
				b := s.Temp(n)
				if len(b) != n {
					t.Fatalf("Temp(%d): %d bytes", n, len(b))
				}
				if n >= tempMin && n <= tempMax && cap(b)&(cap(b)-1) != 0 {
					t.Errorf("Temp(%d): capacity %d, not a class's", n, cap(b))
				}
			}
			s.err = tt.err
			s.finish()
			if len(given) != tt.back {
				t.Errorf("%d buffers given back, want %d", len(given), tt.back)
			}
		})
	}
	// A buffer given back is taken again by a Temp of its class (the
	// pool may drop it: only what comes out is checked).
	b := getTemp(tempMin + 5)
	putTemp(b)
	if c := getTemp(tempMin * 2); cap(c) != tempMin*2 || len(c) != tempMin*2 {
		t.Errorf("a buffer of class %d: len %d cap %d", tempMin*2, len(c), cap(c))
	}
	putTemp(make([]byte, 100, 3000)) // not a class's: dropped, not kept
}
