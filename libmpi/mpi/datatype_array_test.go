package mpi_test

import (
	"slices"
	"testing"

	"github.com/lamgo/lam/libmpi/mpi"
)

func TestSubarrayDarrayLayouts(t *testing.T) {
	sub := func(sizes, subsizes, starts []int, order mpi.Order, old *mpi.Datatype) layout {
		return must(mpi.TypeCreateSubarray(sizes, subsizes, starts, order, old))
	}
	dar := func(size, rank int, gsizes []int, distribs []mpi.Distribution, dargs, psizes []int, order mpi.Order) layout {
		return must(mpi.TypeCreateDarray(size, rank, gsizes, distribs, dargs, psizes, order, mpi.Int8))
	}
	B, C, N := mpi.DistributeBlock, mpi.DistributeCyclic, mpi.DistributeNone
	dflt := mpi.DistributeDfltDarg
	tests := []layout{
		// (r,c) of a 3×4 array of int16 is at (r*4+c)*2 in C order.
		sub([]int{3, 4}, []int{2, 2}, []int{1, 1}, mpi.OrderC, mpi.Int16).is("subarray C",
			cat(seq(10, 4), seq(18, 4)), 0, 24, 10, 12),
		// ... and at (r+c*3)*2 in Fortran order.
		sub([]int{3, 4}, []int{2, 2}, []int{1, 1}, mpi.OrderFortran, mpi.Int16).is("subarray Fortran",
			cat(seq(8, 4), seq(14, 4)), 0, 24, 8, 10),
		// (a,b,c) of 2×3×2 bytes is at a*6+b*2+c.
		sub([]int{2, 3, 2}, []int{1, 2, 1}, []int{1, 1, 1}, mpi.OrderC, mpi.Int8).is("subarray 3-D",
			[]int{9, 11}, 0, 12, 9, 3),
		sub([]int{3, 4}, []int{0, 2}, []int{0, 1}, mpi.OrderC, mpi.Int16).is("empty subarray", nil, 0, 24, 0, 0),
		sub([]int{5}, []int{5}, []int{0}, mpi.OrderC, mpi.Int8).is("whole array", seq(0, 5), 0, 5, 0, 5),
		dar(2, 0, []int{5}, []mpi.Distribution{B}, []int{dflt}, []int{2}, mpi.OrderC).is("block rank 0", seq(0, 3), 0, 5, 0, 3),
		dar(2, 1, []int{5}, []mpi.Distribution{B}, []int{dflt}, []int{2}, mpi.OrderC).is("block rank 1", seq(3, 2), 0, 5, 3, 2),
		dar(2, 0, []int{7}, []mpi.Distribution{C}, []int{2}, []int{2}, mpi.OrderC).is("cyclic(2) rank 0", []int{0, 1, 4, 5}, 0, 7, 0, 6),
		dar(2, 1, []int{7}, []mpi.Distribution{C}, []int{2}, []int{2}, mpi.OrderC).is("cyclic(2) rank 1", []int{2, 3, 6}, 0, 7, 2, 5),
		dar(3, 2, []int{2}, []mpi.Distribution{C}, []int{dflt}, []int{3}, mpi.OrderC).is("cyclic, nothing here", nil, 0, 2, 0, 0),
		// 4×6 bytes, rows in blocks over 2, columns cyclic over 2; rank 3 is (1,1).
		dar(4, 3, []int{4, 6}, []mpi.Distribution{B, C}, []int{dflt, dflt}, []int{2, 2}, mpi.OrderC).is("2-D C",
			[]int{13, 15, 17, 19, 21, 23}, 0, 24, 13, 11),
		dar(4, 3, []int{4, 6}, []mpi.Distribution{B, C}, []int{dflt, dflt}, []int{2, 2}, mpi.OrderFortran).is("2-D Fortran",
			[]int{6, 7, 14, 15, 22, 23}, 0, 24, 6, 18),
		dar(2, 1, []int{2, 3}, []mpi.Distribution{N, B}, []int{dflt, dflt}, []int{1, 2}, mpi.OrderC).is("none × block",
			[]int{2, 5}, 0, 6, 2, 4),
	}
	for _, l := range tests {
		checkLayout(t, l, 0, 1, 2)
	}

	// Every element of a distributed array belongs to exactly one rank.
	gsizes, psizes := []int{5, 7}, []int{3, 2}
	for _, order := range []mpi.Order{mpi.OrderC, mpi.OrderFortran} {
		src := seq(0, 35)
		buf := make([]byte, 35)
		for i, v := range src {
			buf[i] = byte(v)
		}
		var all []int
		for r := range 6 {
			d, err := mpi.TypeCreateDarray(6, r, gsizes, []mpi.Distribution{C, B}, []int{2, dflt}, psizes, order, mpi.Int8)
			if err != nil {
				t.Fatal(err)
			}
			out := make([]byte, d.Size())
			if err := mpi.Pack(buf, 1, d, out, new(int)); err != nil {
				t.Fatal(err)
			}
			for _, b := range out {
				all = append(all, int(b))
			}
		}
		slices.Sort(all)
		if !slices.Equal(all, src) {
			t.Errorf("order %d: the ranks hold %v", order, all)
		}
	}

	bad := []error{
		func() error {
			_, err := mpi.TypeCreateSubarray([]int{3}, []int{2}, []int{2}, mpi.OrderC, mpi.Int8)
			return err
		}(),
		func() error {
			_, err := mpi.TypeCreateSubarray([]int{3}, []int{4}, []int{0}, mpi.OrderC, mpi.Int8)
			return err
		}(),
		func() error { _, err := mpi.TypeCreateSubarray(nil, nil, nil, mpi.OrderC, mpi.Int8); return err }(),
		func() error { _, err := mpi.TypeCreateSubarray([]int{3}, []int{1}, []int{0}, 7, mpi.Int8); return err }(),
		func() error {
			_, err := mpi.TypeCreateDarray(2, 0, []int{5}, []mpi.Distribution{B}, []int{2}, []int{2}, mpi.OrderC, mpi.Int8)
			return err
		}(),
		func() error {
			_, err := mpi.TypeCreateDarray(3, 0, []int{5}, []mpi.Distribution{B}, []int{dflt}, []int{2}, mpi.OrderC, mpi.Int8)
			return err
		}(),
		func() error {
			_, err := mpi.TypeCreateDarray(2, 0, []int{5}, []mpi.Distribution{N}, []int{dflt}, []int{2}, mpi.OrderC, mpi.Int8)
			return err
		}(),
	}
	for i, err := range bad {
		if mpi.Class(err) != mpi.ErrArg {
			t.Errorf("bad arguments %d: %v", i, err)
		}
	}
}
