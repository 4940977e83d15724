package mpi_test

import (
	"testing"

	"github.com/lamgo/lam/libmpi/mpi"
)

func TestIsContiguous(t *testing.T) {
	must := func(d *mpi.Datatype, err error) *mpi.Datatype {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	ld := must(mpi.TypeOpaque("long double", 16, 16))
	tests := []struct {
		name string
		d    *mpi.Datatype
		want bool
	}{
		{"int", mpi.Int32, true},
		{"nil", nil, false},
		{"lb marker", mpi.LB, false},
		{"contiguous", must(mpi.TypeContiguous(4, mpi.Int32)), true},
		{"contiguous of vector without gaps", must(mpi.TypeContiguous(2, must(mpi.TypeVector(3, 2, 2, mpi.Float64)))), true},
		{"zero count", must(mpi.TypeContiguous(0, mpi.Int32)), true},
		{"vector with gaps", must(mpi.TypeVector(3, 1, 2, mpi.Int32)), false},
		{"out of order", must(mpi.TypeHindexed([]int{1, 1}, []int{4, 0}, mpi.Int32)), false},
		{"overlapping", must(mpi.TypeHindexed([]int{1, 1, 1}, []int{0, 0, 8}, mpi.Int32)), false},
		{"shifted", must(mpi.TypeHindexed([]int{1}, []int{4}, mpi.Int32)), false},
		{"padded struct", must(mpi.TypeStruct([]int{1, 1}, []int{0, 8}, []*mpi.Datatype{mpi.Float64, mpi.Int32})), false},
		{"resized", must(mpi.TypeCreateResized(mpi.Int32, 0, 8)), false},
		{"opaque", ld, true},
	}
	for _, tt := range tests {
		if got := tt.d.IsContiguous(); got != tt.want {
			t.Errorf("%s: IsContiguous = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestTypeOpaque(t *testing.T) {
	ld, err := mpi.TypeOpaque("long double", 16, 16)
	if err != nil {
		t.Fatal(err)
	}
	s, err := mpi.TypeStruct([]int{1, 1}, []int{0, 16}, []*mpi.Datatype{ld, mpi.Char})
	if err != nil {
		t.Fatal(err)
	}
	if s.Extent() != 32 || s.Size() != 17 {
		t.Errorf("struct {long double; char}: extent %d size %d, want 32 17", s.Extent(), s.Size())
	}
	if n := mpi.GetElements(mpi.Status{Bytes: 34}, s); n != 4 {
		t.Errorf("GetElements of two structs = %d, want 4", n)
	}
	for _, bad := range [][2]int{{0, 1}, {4, 0}, {4, 3}} {
		if _, err := mpi.TypeOpaque("x", bad[0], bad[1]); mpi.Class(err) != mpi.ErrArg {
			t.Errorf("TypeOpaque(%d, %d): %v, want ErrArg", bad[0], bad[1], err)
		}
	}
}
