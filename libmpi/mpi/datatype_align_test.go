package mpi_test

import (
	"bytes"
	"testing"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// The Go structs whose layouts the struct datatypes must reproduce.
type (
	i8f64i32 struct {
		A int8
		B float64
		C int32
	}
	i32i8 struct {
		A int32
		B int8
	}
	f64i16 struct {
		A float64
		B int16
	}
	i16c64i8 struct {
		A int16
		B complex64
		C int8
	}
	nested struct {
		A int8
		B i32i8
		C int8
	}
	u8x3 struct{ A, B, C uint8 }
)

// TestStructExtentMatchesGo checks that TypeStruct pads a struct's extent
// to its members' largest alignment (MPI-1 §3.12.2), as Go pads its
// structs: extent == unsafe.Sizeof, for several real Go structs.
func TestStructExtentMatchesGo(t *testing.T) {
	var (
		s1 i8f64i32
		s2 i32i8
		s3 f64i16
		s4 i16c64i8
		s5 nested
		s6 u8x3
	)
	inner, err := mpi.TypeStruct([]int{1, 1}, []int{int(unsafe.Offsetof(s2.A)), int(unsafe.Offsetof(s2.B))}, []*mpi.Datatype{mpi.Int32, mpi.Int8})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		lens   []int
		displs []uintptr
		types  []*mpi.Datatype
		size   int
		sizeof uintptr
	}{
		{"int8,float64,int32", []int{1, 1, 1}, []uintptr{unsafe.Offsetof(s1.A), unsafe.Offsetof(s1.B), unsafe.Offsetof(s1.C)},
			[]*mpi.Datatype{mpi.Int8, mpi.Float64, mpi.Int32}, 13, unsafe.Sizeof(s1)},
		{"int32,int8", []int{1, 1}, []uintptr{unsafe.Offsetof(s2.A), unsafe.Offsetof(s2.B)},
			[]*mpi.Datatype{mpi.Int32, mpi.Int8}, 5, unsafe.Sizeof(s2)},
		{"float64,int16", []int{1, 1}, []uintptr{unsafe.Offsetof(s3.A), unsafe.Offsetof(s3.B)},
			[]*mpi.Datatype{mpi.Float64, mpi.Int16}, 10, unsafe.Sizeof(s3)},
		{"int16,complex64,int8", []int{1, 1, 1}, []uintptr{unsafe.Offsetof(s4.A), unsafe.Offsetof(s4.B), unsafe.Offsetof(s4.C)},
			[]*mpi.Datatype{mpi.Int16, mpi.Complex64, mpi.Int8}, 11, unsafe.Sizeof(s4)},
		{"nested", []int{1, 1, 1}, []uintptr{unsafe.Offsetof(s5.A), unsafe.Offsetof(s5.B), unsafe.Offsetof(s5.C)},
			[]*mpi.Datatype{mpi.Int8, inner, mpi.Int8}, 7, unsafe.Sizeof(s5)},
		{"uint8 x3", []int{3}, []uintptr{0}, []*mpi.Datatype{mpi.Uint8}, 3, unsafe.Sizeof(s6)},
	}
	for _, tc := range tests {
		displs := make([]int, len(tc.displs))
		for i, d := range tc.displs {
			displs[i] = int(d)
		}
		d, err := mpi.TypeStruct(tc.lens, displs, tc.types)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if d.Size() != tc.size || d.Extent() != int(tc.sizeof) || d.LB() != 0 {
			t.Errorf("%s: size %d lb %d extent %d, want size %d lb 0 extent %d (unsafe.Sizeof)", tc.name, d.Size(), d.LB(), d.Extent(), tc.size, tc.sizeof)
		}
	}
}

// TestStructSliceSendRecv sends a slice of Go structs with count > 1
// through the struct datatype and checks every field and that the padding
// of the receiving slice is untouched.
func TestStructSliceSendRecv(t *testing.T) {
	var s i8f64i32
	d, err := mpi.TypeStruct([]int{1, 1, 1},
		[]int{int(unsafe.Offsetof(s.A)), int(unsafe.Offsetof(s.B)), int(unsafe.Offsetof(s.C))},
		[]*mpi.Datatype{mpi.Int8, mpi.Float64, mpi.Int32})
	if err != nil {
		t.Fatal(err)
	}
	src := []i8f64i32{{1, 1.5, -1}, {2, 2.5, -2}, {3, 3.5, -3}, {-4, 4.5, 1 << 30}}
	buf := unsafe.Slice((*byte)(unsafe.Pointer(&src[0])), len(src)*int(unsafe.Sizeof(s)))
	if err := mpi.SendType(mpi.World, buf, len(src), d, 0, 40); err != nil {
		t.Fatal(err)
	}
	dst := make([]i8f64i32, len(src))
	out := unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), len(dst)*int(unsafe.Sizeof(s)))
	for i := range out {
		out[i] = 0xee // padding must stay as it was
	}
	st, err := mpi.RecvType(mpi.World, out, len(dst), d, 0, 40)
	if err != nil {
		t.Fatal(err)
	}
	if st.Bytes != 13*len(src) || mpi.GetCountType(st, d) != len(src) {
		t.Errorf("status: %d bytes, count %d", st.Bytes, mpi.GetCountType(st, d))
	}
	for i := range src {
		if dst[i] != src[i] {
			t.Errorf("element %d: got %+v, want %+v", i, dst[i], src[i])
		}
	}
	if pad := out[1:8]; !bytes.Equal(pad, bytes.Repeat([]byte{0xee}, 7)) {
		t.Errorf("padding overwritten: %x", pad)
	}
}
