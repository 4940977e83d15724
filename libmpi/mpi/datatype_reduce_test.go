package mpi_test

import (
	"testing"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

func TestReduceWithDatatypes(t *testing.T) {
	// Column 1 of a 3×3 float64 matrix into column 2 of another.
	col, _ := mpi.TypeVector(3, 1, 3, mpi.Float64)
	m := []float64{0, 1, 2, 10, 11, 12, 20, 21, 22}
	mb := unsafe.Slice((*byte)(unsafe.Pointer(&m[0])), 8*len(m))
	r := make([]float64, 9)
	rb := unsafe.Slice((*byte)(unsafe.Pointer(&r[0])), 8*len(r))
	if err := mpi.AllreduceType(mpi.World, mb[8:], rb[16:], 1, col, mpi.Sum); err != nil || r[2] != 1 || r[5] != 11 || r[8] != 21 || r[0] != 0 || r[1] != 0 {
		t.Errorf("allreduce: %v %v", r, err)
	}
	twice, _ := mpi.NewOp(func(in, inout []float64) {
		for i := range in {
			inout[i] += 2 * in[i]
		}
	}, true)
	clear(r)
	if err := mpi.ReduceType(mpi.World, mb, rb, 1, col, twice, 0); err != nil || r[0] != 0 || r[3] != 10 || r[6] != 20 {
		t.Errorf("reduce with a user op: %v %v", r, err)
	}
	// In place.
	if err := mpi.AllreduceType(mpi.World, nil, mb, 1, col, mpi.Max); err != nil || m[3] != 10 {
		t.Errorf("in place: %v %v", m, err)
	}
	// Zero count.
	if err := mpi.AllreduceType(mpi.World, mb, rb, 0, col, mpi.Sum); err != nil {
		t.Errorf("zero count: %v", err)
	}
	st, _ := mpi.TypeStruct([]int{1, 1}, []int{0, 8}, []*mpi.Datatype{mpi.Int32, mpi.Float64})
	for _, tc := range []struct {
		name string
		err  error
		want mpi.ErrorClass
	}{
		{"mixed types", mpi.AllreduceType(mpi.World, mb, rb, 1, st, mpi.Sum), mpi.ErrType},
		{"nil type", mpi.AllreduceType(mpi.World, mb, rb, 1, nil, mpi.Sum), mpi.ErrType},
		{"op for another type", mpi.ReduceType(mpi.World, mb, rb, 1, col, mustOp(t), 0), mpi.ErrOp},
		{"band on floats", mpi.AllreduceType(mpi.World, mb, rb, 1, col, mpi.Band), mpi.ErrOp},
		{"short receive buffer", mpi.ReduceType(mpi.World, mb, rb[:40], 1, col, mpi.Sum, 0), mpi.ErrBuffer},
		{"bad root", mpi.ReduceType(mpi.World, mb, rb, 1, col, mpi.Sum, 2), mpi.ErrRoot},
	} {
		if mpi.Class(tc.err) != tc.want {
			t.Errorf("%s: %v, want %s", tc.name, tc.err, tc.want)
		}
	}
}

func mustOp(t *testing.T) *mpi.Op {
	op, err := mpi.NewOp(func(in, inout []int32) {}, true)
	if err != nil {
		t.Fatal(err)
	}
	return op
}
