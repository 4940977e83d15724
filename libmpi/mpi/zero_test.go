package mpi_test

import (
	"testing"

	"github.com/lamgo/lam/libmpi/mpi"
)

// TestZeroSizeCollectives: a collective that moves nothing returns at
// once (zeroCall's early return), and one whose arguments are wrong still
// reports the error class the full path gives, whichever path it takes.
func TestZeroSizeCollectives(t *testing.T) {
	freed, err := mpi.World.Dup()
	if err != nil {
		t.Fatal(err)
	}
	if err := freed.Free(); err != nil {
		t.Fatal(err)
	}
	var b, f []float64
	myop, err := mpi.NewOp(func(in, inout []float64) {}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer myop.Free()
	w := mpi.World
	for _, tc := range []struct {
		name string
		f    func() error
		want mpi.ErrorClass // Success: no error
	}{
		{"Bcast", func() error { return mpi.Bcast(w, b, 0) }, mpi.Success},
		{"Bcast root 1", func() error { return mpi.Bcast(w, b, 1) }, mpi.ErrRoot},
		{"Bcast root -1", func() error { return mpi.Bcast(w, b, -1) }, mpi.ErrRoot},
		{"Bcast freed", func() error { return mpi.Bcast(freed, b, 0) }, mpi.ErrComm},
		{"Bcast nil comm", func() error { return mpi.Bcast(nil, b, 0) }, mpi.ErrComm},
		{"Gather", func() error { return mpi.Gather(w, b, f, 0) }, mpi.Success},
		{"Gather root 2", func() error { return mpi.Gather(w, b, f, 2) }, mpi.ErrRoot},
		{"Scatter", func() error { return mpi.Scatter(w, b, f, 0) }, mpi.Success},
		{"Scatter root 5", func() error { return mpi.Scatter(w, b, f, 5) }, mpi.ErrRoot},
		{"Allgather", func() error { return mpi.Allgather(w, b, f) }, mpi.Success},
		{"Allgather freed", func() error { return mpi.Allgather(freed, b, f) }, mpi.ErrComm},
		{"Alltoall", func() error { return mpi.Alltoall(w, b, f) }, mpi.Success},
		{"Allreduce Sum", func() error { return mpi.Allreduce(w, b, f, mpi.Sum) }, mpi.Success},
		{"Allreduce user op", func() error { return mpi.Allreduce(w, b, f, myop) }, mpi.Success},
		{"Allreduce nil op", func() error { return mpi.Allreduce(w, b, f, nil) }, mpi.ErrOp},
		{"Reduce Max", func() error { return mpi.Reduce(w, b, f, mpi.Max, 0) }, mpi.Success},
		{"Reduce nil op", func() error { return mpi.Reduce(w, b, f, nil, 0) }, mpi.ErrOp},
		{"Reduce root 3", func() error { return mpi.Reduce(w, b, f, mpi.Max, 3) }, mpi.ErrRoot},
		{"Scan nil op", func() error { return mpi.Scan(w, b, f, nil) }, mpi.ErrOp},
		{"Exscan", func() error { return mpi.Exscan(w, b, f, mpi.Sum) }, mpi.Success},
		{"ReduceScatterBlock nil op", func() error { return mpi.ReduceScatterBlock(w, b, f, nil) }, mpi.ErrOp},
	} {
		// Twice: the first call of an op with a type takes the full
		// path, which readies what the early return then finds.
		for i := range 2 {
			err := tc.f()
			if got := mpi.Class(err); got != tc.want {
				t.Errorf("%s (call %d): %v (class %v), want class %v", tc.name, i+1, err, got, tc.want)
			}
		}
	}
}
