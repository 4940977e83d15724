package mpi_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/lamgo/lam/libmpi/mpi"
)

func TestPackExternal(t *testing.T) {
	type rec struct {
		A int16
		B float64
		C complex64
		D [2]uint32
		E bool
	}
	d, err := mpi.TypeOf[rec]()
	if err != nil {
		t.Fatal(err)
	}
	src := []rec{{-2, 1.5, complex(1, -2), [2]uint32{7, 1 << 31}, true}, {3, -0.25, complex(0, 3), [2]uint32{0, 9}, false}}
	sb, _ := mpi.AsBytes(src)
	n, err := mpi.PackExternalSize(mpi.External32, len(src), d)
	if err != nil || n != 2*(2+8+8+8+1) {
		t.Fatalf("size %d %v", n, err)
	}
	// The reference: each field big-endian, one after another.
	var want []byte
	for _, r := range src {
		want = binary.BigEndian.AppendUint16(want, uint16(r.A))
		want = binary.BigEndian.AppendUint64(want, math.Float64bits(r.B))
		want = binary.BigEndian.AppendUint32(want, math.Float32bits(real(r.C)))
		want = binary.BigEndian.AppendUint32(want, math.Float32bits(imag(r.C)))
		want = binary.BigEndian.AppendUint32(want, r.D[0])
		want = binary.BigEndian.AppendUint32(want, r.D[1])
		if r.E {
			want = append(want, 1)
		} else {
			want = append(want, 0)
		}
	}
	out := make([]byte, n+3)
	pos := 3
	if err := mpi.PackExternal(mpi.External32, sb, len(src), d, out, &pos); err != nil || pos != n+3 || !bytes.Equal(out[3:], want) {
		t.Fatalf("packed %x (%v), want %x", out[3:], err, want)
	}
	back := make([]rec, len(src))
	bb, _ := mpi.AsBytes(back)
	pos = 3
	if err := mpi.UnpackExternal(mpi.External32, out, &pos, bb, len(src), d); err != nil || pos != n+3 {
		t.Fatalf("unpack: %v %d", err, pos)
	}
	for i := range src {
		if back[i] != src[i] {
			t.Errorf("element %d: %+v, want %+v", i, back[i], src[i])
		}
	}
	// A vector of int32 with a negative stride, placed at 8 bytes.
	v, _ := mpi.TypeVector(2, 1, -2, mpi.Int32)
	s, _ := mpi.TypeStruct([]int{1}, []int{8}, []*mpi.Datatype{v})
	ints := []int32{1, 2, 3, 4}
	ib, _ := mpi.AsBytes(ints)
	out = make([]byte, 8)
	if err := mpi.PackExternal(mpi.External32, ib, 1, s, out, new(int)); err != nil || !bytes.Equal(out, []byte{0, 0, 0, 3, 0, 0, 0, 1}) {
		t.Errorf("negative stride: %x %v", out, err)
	}
	if err := mpi.PackExternal("native", ib, 1, s, out, new(int)); mpi.Class(err) != mpi.ErrArg {
		t.Errorf("unknown representation: %v", err)
	}
	if err := mpi.PackExternal(mpi.External32, ib, 1, s, out[:7], new(int)); mpi.Class(err) != mpi.ErrBuffer {
		t.Errorf("short buffer: %v", err)
	}
	if err := mpi.UnpackExternal(mpi.External32, out[:7], new(int), ib, 1, s); mpi.Class(err) != mpi.ErrTruncate {
		t.Errorf("short input: %v", err)
	}
	if err := mpi.PackExternal(mpi.External32, ib[:8], 1, s, out, new(int)); mpi.Class(err) != mpi.ErrBuffer {
		t.Errorf("data past the buffer: %v", err)
	}
}
