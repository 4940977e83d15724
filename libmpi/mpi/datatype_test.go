package mpi_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/lamgo/lam/libmpi/mpi"
)

func f64s(vals ...float64) []byte {
	b := make([]byte, 8*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	return b
}

func TestVectorColumn(t *testing.T) {
	// A 3×4 matrix, row-major; send column 1.
	m := f64s(0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23)
	col, err := mpi.TypeVector(3, 1, 4, mpi.Float64)
	if err != nil {
		t.Fatal(err)
	}
	if col.Size() != 24 || col.Extent() != 8*(2*4+1) {
		t.Errorf("size %d extent %d", col.Size(), col.Extent())
	}
	if err := mpi.SendType(mpi.World, m[8:], 1, col, 0, 30); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 24)
	st, err := mpi.Recv(mpi.World, got, 0, 30)
	if err != nil || !bytes.Equal(got, f64s(1, 11, 21)) || st.Bytes != 24 {
		t.Errorf("column: %v %v", got, err)
	}
	// Receive into a column of another matrix.
	mpi.Send(mpi.World, f64s(7, 8, 9), 0, 31)
	dst := make([]byte, len(m))
	st, err = mpi.RecvType(mpi.World, dst[16:], 1, col, 0, 31)
	if err != nil || mpi.GetCountType(st, col) != 1 || !bytes.Equal(dst, f64s(0, 0, 7, 0, 0, 0, 8, 0, 0, 0, 9, 0)) {
		t.Errorf("into a column: %v %v", dst, err)
	}
}

func TestStructPackUnpack(t *testing.T) {
	// struct { int32 a; float64 b } with 4 bytes of padding.
	st, err := mpi.TypeStruct([]int{1, 1}, []int{0, 8}, []*mpi.Datatype{mpi.Int32, mpi.Float64})
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() != 12 || st.Extent() != 16 {
		t.Fatalf("size %d extent %d", st.Size(), st.Extent())
	}
	rec := make([]byte, 32)
	binary.LittleEndian.PutUint32(rec[0:], 5)
	copy(rec[8:], f64s(2.5))
	binary.LittleEndian.PutUint32(rec[16:], 6)
	copy(rec[24:], f64s(3.5))
	out := make([]byte, mpi.PackSize(2, st))
	pos := 0
	if err := mpi.Pack(rec, 2, st, out, &pos); err != nil || pos != 24 {
		t.Fatalf("pack: %v %d", err, pos)
	}
	back := make([]byte, 32)
	pos = 0
	if err := mpi.Unpack(out, &pos, back, 2, st); err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]int{{0, 4}, {8, 16}, {16, 20}, {24, 32}} {
		if !bytes.Equal(back[r[0]:r[1]], rec[r[0]:r[1]]) {
			t.Errorf("bytes %v differ", r)
		}
	}
	if err := mpi.Pack(rec[:20], 2, st, out, new(int)); mpi.Class(err) != mpi.ErrBuffer {
		t.Errorf("pack past the buffer: %v", err)
	}
}

func TestIndexedContiguous(t *testing.T) {
	idx, _ := mpi.TypeIndexed([]int{2, 1}, []int{0, 3}, mpi.Int32)
	if idx.Size() != 12 || idx.Extent() != 16 {
		t.Errorf("indexed size %d extent %d", idx.Size(), idx.Extent())
	}
	c, _ := mpi.TypeContiguous(3, idx)
	if c.Size() != 36 || c.Extent() != 48 {
		t.Errorf("contiguous size %d extent %d", c.Size(), c.Extent())
	}
	if _, err := mpi.TypeVector(-1, 1, 1, mpi.Byte); mpi.Class(err) != mpi.ErrCount {
		t.Errorf("negative count: %v", err)
	}
	if _, err := mpi.TypeHindexed([]int{1}, []int{0, 1}, mpi.Byte); mpi.Class(err) != mpi.ErrArg {
		t.Errorf("mismatched lists: %v", err)
	}
}
