package mpi_test

import (
	"bytes"
	"testing"
	"unsafe"

	"github.com/lamgo/lam/libmpi/mpi"
)

// The v collectives over datatypes in a world of one (testprog dtypes
// runs them across processes): a column goes out, a contiguous run comes
// in at a displacement counted in the receive type's extents, and back.
func TestVCollectivesWithDatatypes(t *testing.T) {
	col, _ := mpi.TypeVector(3, 1, 4, mpi.Int8)
	pair, _ := mpi.TypeContiguous(2, mpi.Int8)
	m := []byte{0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23}
	ee := func(n int) []byte { return bytes.Repeat([]byte{0xee}, n) }
	for _, c := range []*mpi.Comm{mpi.World, mpi.Self} {
		h := c.Errhandler()
		c.SetErrhandler(mpi.ErrorsReturn)
		tests := []struct {
			name string
			run  func(got []byte) error
			want []byte
		}{
			// 3 Int8s as 1.5 pairs does not fit: 1 column (3 bytes) into 3 Int8s at
			// displacement 1 (in Int8 extents).
			{"GathervType", func(got []byte) error {
				return mpi.GathervType(c, m[1:], 1, col, got, []int{3}, []int{1}, mpi.Int8, 0)
			}, []byte{0xee, 1, 11, 21, 0xee, 0xee}},
			{"AllgathervType", func(got []byte) error {
				return mpi.AllgathervType(c, m[2:], 1, col, got, []int{3}, []int{2}, mpi.Int8)
			}, []byte{0xee, 0xee, 2, 12, 22, 0xee}},
			{"ScattervType", func(got []byte) error {
				// 2 pairs at displacement 1 pair: bytes 2..5 of the send buffer.
				g := ee(12)
				err := mpi.ScattervType(c, []byte{0, 1, 2, 3, 4, 5, 6, 7}, []int{2}, []int{1}, pair, g[1:], 1, mustVec(t, 4, 1, 2), 0)
				copy(got, g[:6])
				return err
			}, []byte{0xee, 2, 0xee, 3, 0xee, 4}},
			{"AlltoallvType", func(got []byte) error {
				return mpi.AlltoallvType(c, []byte{9, 8, 7, 6, 5, 4}, []int{1}, []int{1}, pair, got, []int{2}, []int{2}, mpi.Int8)
			}, []byte{0xee, 0xee, 7, 6, 0xee, 0xee}},
			{"GathervType in place", func(got []byte) error {
				copy(got, []byte{0, 0, 5, 6, 0, 0})
				return mpi.GathervType(c, nil, 0, nil, got, []int{1}, []int{1}, pair, 0)
			}, []byte{0, 0, 5, 6, 0, 0}},
			{"AllgathervType in place", func(got []byte) error {
				copy(got, []byte{1, 2, 3, 4, 5, 6})
				return mpi.AllgathervType(c, nil, 0, nil, got, []int{2}, []int{1}, pair)
			}, []byte{1, 2, 3, 4, 5, 6}},
			{"AlltoallvType in place", func(got []byte) error {
				copy(got, []byte{1, 2, 3, 4, 5, 6})
				return mpi.AlltoallvType(c, nil, nil, nil, nil, got, []int{1}, []int{2}, pair)
			}, []byte{1, 2, 3, 4, 5, 6}},
			{"zero counts", func(got []byte) error {
				return mpi.AllgathervType(c, m, 0, col, got, []int{0}, []int{0}, col)
			}, ee(6)},
		}
		for _, tt := range tests {
			got := ee(6)
			if err := tt.run(got); err != nil || !bytes.Equal(got, tt.want) {
				t.Errorf("%s on %s: %v %v, want %v", tt.name, c.Name(), got, err, tt.want)
			}
		}
		errs := []struct {
			name string
			err  error
			want mpi.ErrorClass
		}{
			{"sizes differ", mpi.GathervType(c, m, 2, mpi.Int8, ee(6), []int{3}, []int{0}, mpi.Int8, 0), mpi.ErrCount},
			{"block past the end", mpi.AllgathervType(c, m, 3, mpi.Int8, ee(6), []int{3}, []int{2}, pair), mpi.ErrBuffer},
			{"counts for 2", mpi.ScattervType(c, m, []int{1, 1}, []int{0, 1}, mpi.Int8, ee(6), 1, mpi.Int8, 0), mpi.ErrArg},
			{"nil type", mpi.AlltoallvType(c, m, []int{1}, []int{0}, nil, ee(6), []int{1}, []int{0}, mpi.Int8), mpi.ErrType},
			{"negative count", mpi.AlltoallvType(c, m, []int{-1}, []int{0}, mpi.Int8, ee(6), []int{1}, []int{0}, mpi.Int8), mpi.ErrCount},
			{"bad root", mpi.GathervType(c, m, 1, mpi.Int8, ee(6), []int{1}, []int{0}, mpi.Int8, 1), mpi.ErrRoot},
		}
		for _, e := range errs {
			if mpi.Class(e.err) != e.want {
				t.Errorf("%s on %s: %v, want %s", e.name, c.Name(), e.err, e.want)
			}
		}
		c.SetErrhandler(h)
	}
}

func mustVec(t *testing.T, count, blen, stride int) *mpi.Datatype {
	t.Helper()
	d, err := mpi.TypeVector(count, blen, stride, mpi.Int8)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

type rec struct {
	A int8
	B float64
	C int32
}

// Scans and reduce-scatters over datatypes, and a NewTypeOp over a Go
// struct's datatype, in a world of one.
func TestScansAndTypeOps(t *testing.T) {
	w := mpi.World
	col, _ := mpi.TypeVector(2, 1, 2, mpi.Int32)
	in := []int32{5, -1, 7, -1, 9, -1, 11, -1}
	ib := bytesOf(in)
	out := make([]int32, 8)
	ob := bytesOf(out)
	reset := func() {
		for i := range out {
			out[i] = -9
		}
	}
	tests := []struct {
		name string
		run  func() error
		want []int32
	}{
		// col's extent is 3 Int32s: its second element is at 3.
		{"ScanType", func() error { return mpi.ScanType(w, ib, ob, 2, col, mpi.Sum) }, []int32{5, -9, 7, -1, -9, -1, -9, -9}},
		{"ExscanType leaves process 0's alone", func() error { return mpi.ExscanType(w, ib, ob, 2, col, mpi.Sum) }, []int32{-9, -9, -9, -9, -9, -9, -9, -9}},
		{"ReduceScatterType", func() error {
			return mpi.ReduceScatterType(w, ib, ob, []int{1}, col, mpi.Max)
		}, []int32{5, -9, 7, -9, -9, -9, -9, -9}},
		{"ReduceScatterBlockType", func() error {
			return mpi.ReduceScatterBlockType(w, ib, ob, 2, col, mpi.Sum)
		}, []int32{5, -9, 7, -1, -9, -1, -9, -9}},
		{"ScanType in place", func() error {
			copy(out, in)
			return mpi.ScanType(w, nil, ob, 1, col, mpi.Sum)
		}, []int32{5, -1, 7, -1, 9, -1, 11, -1}},
		{"ReduceScatterType in place", func() error {
			copy(out, in)
			return mpi.ReduceScatterType(w, nil, ob, []int{2}, col, mpi.Sum)
		}, []int32{5, -1, 7, -1, 9, -1, 11, -1}},
	}
	for _, tt := range tests {
		reset()
		if err := tt.run(); err != nil || !equal(out, tt.want) {
			t.Errorf("%s: %v %v, want %v", tt.name, out, err, tt.want)
		}
	}

	// A struct's datatype reduced with a NewTypeOp: the op sees whole
	// recs, with the fields the datatype leaves out zero.
	rt, err := mpi.TypeOf[rec]()
	if err != nil {
		t.Fatal(err)
	}
	var seen []rec
	op, err := mpi.NewTypeOp(func(in, inout []rec) {
		seen = append(seen, in...)
		for i := range in {
			inout[i].A = min(in[i].A, inout[i].A)
			inout[i].B += in[i].B
			inout[i].C = max(in[i].C, inout[i].C)
		}
	}, true)
	if err != nil {
		t.Fatal(err)
	}
	src := []rec{{1, 2.5, 3}, {-4, 5, 6}}
	dst := make([]rec, 2)
	sb, db := asBytes(src), asBytes(dst)
	for _, f := range []func() error{
		func() error { return mpi.AllreduceType(w, sb, db, 2, rt, op) },
		func() error { return mpi.ReduceType(w, sb, db, 2, rt, op, 0) },
		func() error { return mpi.ScanType(w, sb, db, 2, rt, op) },
		func() error { return mpi.ReduceScatterBlockType(w, sb, db, 2, rt, op) },
	} {
		clear(dst)
		if err := f(); err != nil || dst[0] != src[0] || dst[1] != src[1] {
			t.Errorf("NewTypeOp: %v %v", dst, err)
		}
	}
	// Only fields A and C, resized to a rec: B stays as it was.
	ac, _ := mpi.TypeStruct([]int{1, 1}, []int{0, int(unsafe.Offsetof(rec{}.C))}, []*mpi.Datatype{mpi.Int8, mpi.Int32})
	ac, _ = mpi.TypeCreateResized(ac, 0, int(unsafe.Sizeof(rec{})))
	dst = []rec{{9, 9, 9}, {9, 9, 9}}
	seen = nil
	db = asBytes(dst)
	if err := mpi.AllreduceType(w, sb, db, 2, ac, op); err != nil || dst[0] != (rec{1, 9, 3}) || dst[1] != (rec{-4, 9, 6}) {
		t.Errorf("NewTypeOp over fields A and C: %v %v", dst, err)
	}
	for _, r := range seen {
		if r.B != 0 {
			t.Errorf("the op saw field B, which the datatype leaves out: %v", seen)
		}
	}
	// The errors.
	if _, err := mpi.NewTypeOp(func(in, inout []*int) {}, true); mpi.Class(err) != mpi.ErrType {
		t.Errorf("NewTypeOp over pointers: %v", err)
	}
	if _, err := mpi.NewTypeOp[rec](nil, true); mpi.Class(err) != mpi.ErrOp {
		t.Errorf("NewTypeOp of nil: %v", err)
	}
	if err := mpi.AllreduceType(w, sb, db, 2, ac, mpi.Sum); mpi.Class(err) != mpi.ErrType {
		t.Errorf("mixed types with Sum: %v", err)
	}
	if err := mpi.AllreduceType(w, ib, ob, 1, col, op); mpi.Class(err) != mpi.ErrType {
		t.Errorf("a column with a rec op: %v", err)
	}
	if err := mpi.Allreduce(w, []int32{1}, []int32{0}, op); mpi.Class(err) != mpi.ErrOp {
		t.Errorf("a rec op on int32s: %v", err)
	}
	if err := mpi.ReduceScatterType(w, ib, ob, []int{1, 1}, col, mpi.Sum); mpi.Class(err) != mpi.ErrArg {
		t.Errorf("2 counts: %v", err)
	}
	if err := mpi.ScanType(w, ib, ob[:4], 1, col, mpi.Sum); mpi.Class(err) != mpi.ErrBuffer {
		t.Errorf("short receive: %v", err)
	}
}

func bytesOf(s []int32) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 4*len(s)) }

func asBytes(s []rec) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), int(unsafe.Sizeof(rec{}))*len(s))
}

func equal(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Alltoallw in place: recv holds the blocks to send.
func TestAlltoallwInPlace(t *testing.T) {
	vec, _ := mpi.TypeVector(2, 1, 2, mpi.Int8)
	buf := []byte{1, 2, 3, 4}
	if err := mpi.Alltoallw(mpi.World, nil, nil, nil, nil, buf, []int{1}, []int{1}, []*mpi.Datatype{vec}); err != nil || !bytes.Equal(buf, []byte{1, 2, 3, 4}) {
		t.Errorf("Alltoallw in place: %v %v", buf, err)
	}
}

// ReduceLocalType applies an op over a datatype in place: a column of
// Int32s with Sum, recs with a NewTypeOp (whose in and inout hold whole
// recs, zero where the datatype leaves a field out).
func TestReduceLocalType(t *testing.T) {
	col, _ := mpi.TypeVector(2, 1, 2, mpi.Int32)
	in := []int32{1, 100, 2, 100}
	io := []int32{10, 7, 20, 7}
	if err := mpi.ReduceLocalType(bytesOf(in), bytesOf(io), 1, col, mpi.Sum); err != nil || !equal(io, []int32{11, 7, 22, 7}) {
		t.Errorf("column: %v %v", io, err)
	}
	var seen []rec
	op, _ := mpi.NewTypeOp(func(in, inout []rec) {
		seen = append(seen, in...)
		for i := range in {
			inout[i].A = min(in[i].A, inout[i].A)
			inout[i].C += in[i].C
		}
	}, false)
	ac, _ := mpi.TypeStruct([]int{1, 1}, []int{0, int(unsafe.Offsetof(rec{}.C))}, []*mpi.Datatype{mpi.Int8, mpi.Int32})
	ac, _ = mpi.TypeCreateResized(ac, 0, int(unsafe.Sizeof(rec{})))
	a := []rec{{1, 5, 2}, {-3, 5, 4}}
	b := []rec{{0, 9, 10}, {0, 9, 20}}
	if err := mpi.ReduceLocalType(asBytes(a), asBytes(b), 2, ac, op); err != nil || b[0] != (rec{0, 9, 12}) || b[1] != (rec{-3, 9, 24}) {
		t.Errorf("NewTypeOp: %v %v", b, err)
	}
	if len(seen) != 2 || seen[0] != (rec{1, 0, 2}) || seen[1] != (rec{-3, 0, 4}) {
		t.Errorf("the op saw %v", seen)
	}
	if err := mpi.ReduceLocalType(asBytes(a), asBytes(b), 2, ac, mpi.Sum); mpi.Class(err) != mpi.ErrType {
		t.Errorf("mixed types with Sum: %v", err)
	}
	if err := mpi.ReduceLocalType(bytesOf(in), bytesOf(io[:2]), 1, col, mpi.Sum); mpi.Class(err) != mpi.ErrBuffer {
		t.Errorf("short inout: %v", err)
	}
	if err := mpi.ReduceLocalType(bytesOf(in), bytesOf(io), 1, col, op); mpi.Class(err) != mpi.ErrType {
		t.Errorf("a rec op on a column: %v", err)
	}
}
