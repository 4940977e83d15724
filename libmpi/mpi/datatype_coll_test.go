package mpi_test

import (
	"bytes"
	"testing"

	"github.com/lamgo/lam/libmpi/mpi"
)

// The collectives over derived datatypes in a world of one: what a
// process sends as one type arrives as another of the same signature.
func TestCollectivesWithDatatypes(t *testing.T) {
	// Column 1 of a 3×4 matrix of bytes, sent; a contiguous 3 received.
	col, _ := mpi.TypeVector(3, 1, 4, mpi.Int8)
	three, _ := mpi.TypeContiguous(3, mpi.Int8)
	m := []byte{0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23}
	h := mpi.Self.Errhandler()
	mpi.Self.SetErrhandler(mpi.ErrorsReturn)
	defer mpi.Self.SetErrhandler(h)
	for _, c := range []*mpi.Comm{mpi.World, mpi.Self} {
		got := bytes.Repeat([]byte{0xee}, 5)
		if err := mpi.GatherType(c, m[1:], 1, col, got, 1, three, 0); err != nil || !bytes.Equal(got, []byte{1, 11, 21, 0xee, 0xee}) {
			t.Errorf("gather: %v %v", got, err)
		}
		got = bytes.Repeat([]byte{0xee}, 3)
		if err := mpi.AllgatherType(c, m[2:], 1, col, got, 3, mpi.Int8); err != nil || !bytes.Equal(got, []byte{2, 12, 22}) {
			t.Errorf("allgather: %v %v", got, err)
		}
		dst := bytes.Repeat([]byte{0xee}, 12)
		if err := mpi.ScatterType(c, []byte{7, 8, 9}, 3, mpi.Int8, dst[3:], 1, col, 0); err != nil ||
			!bytes.Equal(dst, []byte{0xee, 0xee, 0xee, 7, 0xee, 0xee, 0xee, 8, 0xee, 0xee, 0xee, 9}) {
			t.Errorf("scatter: %v %v", dst, err)
		}
		dst = bytes.Repeat([]byte{0xee}, 12)
		if err := mpi.AlltoallType(c, []byte{4, 5, 6}, 1, three, dst, 1, col); err != nil || dst[0] != 4 || dst[4] != 5 || dst[8] != 6 || dst[1] != 0xee {
			t.Errorf("alltoall: %v %v", dst, err)
		}
		buf := append([]byte(nil), m...)
		two, _ := mpi.TypeCreateResized(col, 0, 1) // columns 0 and 1
		if err := mpi.BcastType(c, buf, 2, two, 0); err != nil || !bytes.Equal(buf, m) {
			t.Errorf("bcast: %v %v", buf, err)
		}
		// In place: the root's block is already in recv.
		in := []byte{0, 5, 0, 0, 6, 0, 0, 7}
		if err := mpi.GatherType(c, nil, 0, nil, in, 1, mpi.Byte, 0); err != nil {
			t.Errorf("gather in place: %v", err)
		}
		if err := mpi.AllgatherType(c, nil, 0, nil, in[1:], 2, col); mpi.Class(err) != mpi.ErrBuffer {
			t.Errorf("allgather in place past the buffer: %v", err)
		}
		st, _ := mpi.TypeStruct([]int{1, 1}, []int{0, 4}, []*mpi.Datatype{mpi.Int16, mpi.Int32})
		sb := []byte{1, 2, 0xee, 0xee, 3, 4, 5, 6}
		rb := make([]byte, 8)
		if err := mpi.AllgatherType(c, sb, 1, st, rb, 1, st); err != nil || !bytes.Equal(rb, []byte{1, 2, 0, 0, 3, 4, 5, 6}) {
			t.Errorf("allgather of a struct: %v %v", rb, err)
		}
		copy(rb, []byte{9, 9, 0, 0, 8, 8, 8, 8})
		if err := mpi.AllgatherType(c, nil, 0, nil, rb, 1, st); err != nil || !bytes.Equal(rb, []byte{9, 9, 0, 0, 8, 8, 8, 8}) {
			t.Errorf("allgather of a struct in place: %v %v", rb, err)
		}
		// Argument errors.
		if err := mpi.BcastType(c, buf, 1, nil, 0); mpi.Class(err) != mpi.ErrType {
			t.Errorf("nil type: %v", err)
		}
		if err := mpi.BcastType(c, buf[:5], 1, col, 0); mpi.Class(err) != mpi.ErrBuffer {
			t.Errorf("short buffer: %v", err)
		}
		if err := mpi.GatherType(c, m, 2, mpi.Int8, got, 1, mpi.Int8, 0); mpi.Class(err) != mpi.ErrCount {
			t.Errorf("mismatched sizes: %v", err)
		}
		if err := mpi.ScatterType(c, m, 1, mpi.Int8, got, -1, mpi.Int8, 0); mpi.Class(err) != mpi.ErrCount {
			t.Errorf("negative count: %v", err)
		}
		if err := mpi.BcastType(c, buf, 1, mpi.Int8, 3); mpi.Class(err) != mpi.ErrRoot {
			t.Errorf("bad root: %v", err)
		}
	}
}
