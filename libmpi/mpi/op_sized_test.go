package mpi_test

import (
	"encoding/binary"
	"testing"

	"github.com/lamgo/lam/libmpi/mpi"
)

// TestSizedOp reduces 12-byte records (a uint32 summed, then 8 bytes
// kept from the lower rank) in a world of one, and checks the
// arguments NewSizedOp refuses.
func TestSizedOp(t *testing.T) {
	d, err := mpi.TypeContiguous(12, mpi.Byte)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	op, err := mpi.NewSizedOp(12, func(in, inout []byte) {
		calls++
		for i := 0; i+12 <= len(inout); i += 12 {
			sum := binary.LittleEndian.Uint32(in[i:]) + binary.LittleEndian.Uint32(inout[i:])
			binary.LittleEndian.PutUint32(inout[i:], sum)
			copy(inout[i+4:i+12], in[i+4:i+12])
		}
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	in, inout := make([]byte, 24), make([]byte, 24)
	for i := range 2 {
		binary.LittleEndian.PutUint32(in[12*i:], uint32(10+i))
		binary.LittleEndian.PutUint32(inout[12*i:], 5)
		copy(in[12*i+4:], "lowerrk!")
		copy(inout[12*i+4:], "higherrk")
	}
	if err := mpi.ReduceLocalType(in, inout, 2, d, op); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if got := binary.LittleEndian.Uint32(inout[12*i:]); got != uint32(15+i) || string(inout[12*i+4:12*i+12]) != "lowerrk!" {
			t.Errorf("element %d: %d %q", i, got, inout[12*i+4:12*i+12])
		}
	}
	if calls == 0 {
		t.Error("the op was never called")
	}
	recv := make([]byte, 24)
	if err := mpi.AllreduceType(mpi.World, in, recv, 2, d, op); err != nil {
		t.Fatal(err)
	}
	if string(recv) != string(in) {
		t.Errorf("Allreduce in a world of one: %q, want %q", recv, in)
	}
	wrong, _ := mpi.TypeContiguous(8, mpi.Byte)
	if err := mpi.ReduceLocalType(in, inout, 1, wrong, op); mpi.Class(err) != mpi.ErrType {
		t.Errorf("an 8-byte datatype with a 12-byte op: %v, want ErrType", err)
	}
	if _, err := mpi.NewSizedOp(0, func(in, inout []byte) {}, true); mpi.Class(err) != mpi.ErrArg {
		t.Errorf("size 0: %v", err)
	}
	if _, err := mpi.NewSizedOp(4, nil, true); mpi.Class(err) != mpi.ErrOp {
		t.Errorf("nil function: %v", err)
	}
}
