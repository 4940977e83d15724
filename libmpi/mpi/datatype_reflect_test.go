package mpi_test

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

type dtParticle struct {
	ID     int32
	Alive  bool
	Pos    [3]float64
	Charge float32
	Inner  struct {
		Tag  uint16
		Mass complex64
	}
	Hist  [2]i32i8
	Flags uint8
	_     [0]int64
}

func TestTypeOfStructs(t *testing.T) {
	check := func(name string, d *mpi.Datatype, err error, size, sizeof uintptr) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d.Size() != int(size) || d.LB() != 0 || d.Extent() != int(sizeof) {
			t.Errorf("%s: size %d lb %d extent %d, want %d 0 %d", name, d.Size(), d.LB(), d.Extent(), size, sizeof)
		}
	}
	d, err := mpi.TypeOf[i8f64i32]()
	check("i8f64i32", d, err, 13, unsafe.Sizeof(i8f64i32{}))
	d, err = mpi.TypeOf[nested]()
	check("nested", d, err, 7, unsafe.Sizeof(nested{}))
	d, err = mpi.TypeOf[dtParticle]()
	check("dtParticle", d, err, 4+1+24+4+2+8+2*5+1, unsafe.Sizeof(dtParticle{}))
	d, err = mpi.TypeOf[[4]int]()
	check("[4]int", d, err, 4*unsafe.Sizeof(0), unsafe.Sizeof([4]int{}))
	if d, _ := mpi.TypeOf[float64](); d != mpi.Float64 {
		t.Errorf("float64 is %s", d.Name())
	}
	if d2, _ := mpi.TypeOfReflect(reflect.TypeFor[dtParticle]()); d2.Name() != "mpi_test.dtParticle" {
		t.Errorf("name %q", d2.Name())
	}
	type bad struct {
		A int32
		S []int
	}
	type bad2 struct {
		A [2]struct{ P *int }
	}
	for _, tc := range []struct {
		err  error
		name string
	}{
		{func() error { _, err := mpi.TypeOf[bad](); return err }(), "slice"},
		{func() error { _, err := mpi.TypeOf[bad2](); return err }(), "pointer"},
		{func() error { _, err := mpi.TypeOf[string](); return err }(), "string"},
		{func() error { _, err := mpi.TypeOf[map[int]int](); return err }(), "map"},
		{func() error { _, err := mpi.TypeOf[any](); return err }(), "interface"},
		{func() error { _, err := mpi.AsBytes([]*int{nil}); return err }(), "AsBytes of pointers"},
		{func() error { _, err := mpi.TypeOfReflect(nil); return err }(), "nil"},
	} {
		if mpi.Class(tc.err) != mpi.ErrType {
			t.Errorf("%s: %v, want ErrType", tc.name, tc.err)
		}
	}
}

func TestTypeOfSendRecv(t *testing.T) {
	d, err := mpi.TypeOf[dtParticle]()
	if err != nil {
		t.Fatal(err)
	}
	src := make([]dtParticle, 5)
	for i := range src {
		p := &src[i]
		p.ID, p.Alive, p.Pos, p.Charge = int32(i), i%2 == 0, [3]float64{float64(i), -1, 1e300}, float32(i)/3
		p.Inner.Tag, p.Inner.Mass = uint16(1000+i), complex(float32(i), 2)
		p.Hist = [2]i32i8{{int32(-i), 7}, {1 << 20, int8(-i)}}
		p.Flags = uint8(0xf0 | i)
	}
	sb, err := mpi.AsBytes(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := mpi.SendType(mpi.World, sb, len(src), d, 0, 60); err != nil {
		t.Fatal(err)
	}
	dst := make([]dtParticle, len(src))
	db, _ := mpi.AsBytes(dst)
	st, err := mpi.RecvType(mpi.World, db, len(dst), d, 0, 60)
	if err != nil || mpi.GetCountType(st, d) != len(src) {
		t.Fatalf("recv: %v, count %d", err, mpi.GetCountType(st, d))
	}
	for i := range src {
		if dst[i] != src[i] {
			t.Errorf("element %d: got %+v, want %+v", i, dst[i], src[i])
		}
	}
	// Pack/Unpack the same way.
	packed := make([]byte, mpi.PackSize(len(src), d))
	pos := 0
	if err := mpi.Pack(sb, len(src), d, packed, &pos); err != nil {
		t.Fatal(err)
	}
	back := make([]dtParticle, len(src))
	bb, _ := mpi.AsBytes(back)
	pos = 0
	if err := mpi.Unpack(packed, &pos, bb, len(src), d); err != nil {
		t.Fatal(err)
	}
	for i := range src {
		if back[i] != src[i] {
			t.Errorf("unpacked %d: got %+v, want %+v", i, back[i], src[i])
		}
	}
}
