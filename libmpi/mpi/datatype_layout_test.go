package mpi_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/lamgo/lam/libmpi/mpi"
)

// layout is a datatype and the reference layout of one element, computed
// by hand: the byte offsets of its data in type-map order, its bounds and
// its true bounds.
type layout struct {
	name         string
	d            *mpi.Datatype
	err          error
	offs         []int // the data bytes of one element, in order
	lb, extent   int
	tlb, textent int
}

// bytesAt spreads per-element offsets over count elements.
func bytesAt(l layout, count int) []int {
	var all []int
	for i := 0; i < count; i++ {
		for _, o := range l.offs {
			all = append(all, i*l.extent+o)
		}
	}
	return all
}

// span is the buffer length count elements need.
func span(offs []int) int {
	if len(offs) == 0 {
		return 0
	}
	return slices.Max(offs) + 1
}

var tagSeq = 500

// checkLayout checks d's bounds against the reference and round-trips
// count elements through Pack/Unpack and SendType/RecvType, comparing
// every byte with the reference layout.
func checkLayout(t *testing.T, l layout, counts ...int) {
	t.Helper()
	if l.err != nil {
		t.Errorf("%s: %v", l.name, l.err)
		return
	}
	d := l.d
	if d.Size() != len(l.offs) || d.LB() != l.lb || d.Extent() != l.extent {
		t.Errorf("%s: size %d lb %d extent %d, want %d %d %d", l.name, d.Size(), d.LB(), d.Extent(), len(l.offs), l.lb, l.extent)
	}
	if tlb, text, _ := mpi.TypeGetTrueExtent(d); tlb != l.tlb || text != l.textent {
		t.Errorf("%s: true lb %d extent %d, want %d %d", l.name, tlb, text, l.tlb, l.textent)
	}
	for _, count := range counts {
		offs := bytesAt(l, count)
		src := make([]byte, span(offs)+3)
		for i := range src {
			src[i] = byte(i*7 + 1)
		}
		want := make([]byte, len(offs))
		for i, o := range offs {
			want[i] = src[o]
		}
		// Pack and Unpack.
		packed := make([]byte, mpi.PackSize(count, d))
		pos := 0
		if err := mpi.Pack(src, count, d, packed, &pos); err != nil || pos != len(want) || !bytes.Equal(packed, want) {
			t.Errorf("%s ×%d: pack: %v pos %d\n got %v\nwant %v", l.name, count, err, pos, packed, want)
			continue
		}
		back := bytes.Repeat([]byte{0xee}, len(src))
		pos = 0
		if err := mpi.Unpack(packed, &pos, back, count, d); err != nil {
			t.Errorf("%s ×%d: unpack: %v", l.name, count, err)
			continue
		}
		ref := bytes.Repeat([]byte{0xee}, len(src))
		for _, o := range offs {
			ref[o] = src[o]
		}
		if !bytes.Equal(back, ref) {
			t.Errorf("%s ×%d: unpacked\n got %v\nwant %v", l.name, count, back, ref)
		}
		// Send and receive.
		tagSeq++
		if err := mpi.SendType(mpi.World, src, count, d, 0, tagSeq); err != nil {
			t.Errorf("%s ×%d: send: %v", l.name, count, err)
			continue
		}
		got := make([]byte, len(want))
		if st, err := mpi.Recv(mpi.World, got, 0, tagSeq); err != nil || st.Bytes != len(want) || !bytes.Equal(got, want) {
			t.Errorf("%s ×%d: sent %v (%v), want %v", l.name, count, got, err, want)
		}
		tagSeq++
		mpi.Send(mpi.World, want, 0, tagSeq)
		back = bytes.Repeat([]byte{0xee}, len(src))
		st, err := mpi.RecvType(mpi.World, back, count, d, 0, tagSeq)
		if err != nil || !bytes.Equal(back, ref) {
			t.Errorf("%s ×%d: received %v (%v), want %v", l.name, count, back, err, ref)
		}
		if len(l.offs) > 0 && mpi.GetCountType(st, d) != count {
			t.Errorf("%s ×%d: count %d", l.name, count, mpi.GetCountType(st, d))
		}
	}
}

func seq(from, n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = from + i
	}
	return s
}

func cat(parts ...[]int) []int { return slices.Concat(parts...) }

func must(d *mpi.Datatype, err error) layout { return layout{d: d, err: err} }

func (l layout) is(name string, offs []int, lb, extent, tlb, textent int) layout {
	l.name, l.offs, l.lb, l.extent, l.tlb, l.textent = name, offs, lb, extent, tlb, textent
	return l
}

func TestConstructorLayouts(t *testing.T) {
	i32, i16 := mpi.Int32, mpi.Int16
	vec := func(c, b, s int, d *mpi.Datatype) (*mpi.Datatype, error) { return mpi.TypeVector(c, b, s, d) }
	negVec, _ := mpi.TypeVector(3, 1, -2, i16) // data at 0, -4, -8
	lbub, _ := mpi.TypeStruct([]int{1, 1, 1}, []int{-4, 2, 12}, []*mpi.Datatype{mpi.LB, i32, mpi.UB})
	resized, _ := mpi.TypeCreateResized(i32, -2, 10)
	pair, _ := mpi.TypeContiguous(2, i16)
	tests := []layout{
		must(mpi.TypeContiguous(3, i32)).is("contiguous", seq(0, 12), 0, 12, 0, 12),
		must(mpi.TypeContiguous(0, i32)).is("contiguous of 0", nil, 0, 0, 0, 0),
		must(vec(3, 2, 3, i16)).is("vector", cat(seq(0, 4), seq(6, 4), seq(12, 4)), 0, 16, 0, 16),
		must(vec(0, 2, 3, i16)).is("vector of 0", nil, 0, 0, 0, 0),
		must(vec(2, 0, 3, i16)).is("vector of empty blocks", nil, 0, 0, 0, 0),
		must(mpi.TypeStruct([]int{1}, []int{8}, []*mpi.Datatype{negVec})).is("negative stride",
			cat(seq(8, 2), seq(4, 2), seq(0, 2)), 0, 10, 0, 10),
		must(mpi.TypeHvector(2, 1, -6, i16)).is("negative byte stride", nil, 0, 0, 0, 0),
		must(mpi.TypeIndexed([]int{2, 0, 1}, []int{1, 0, 4}, i16)).is("indexed", cat(seq(2, 4), seq(8, 2)), 2, 8, 2, 8),
		must(mpi.TypeHindexed([]int{1, 1}, []int{6, 0}, i16)).is("hindexed out of order", cat(seq(6, 2), seq(0, 2)), 0, 8, 0, 8),
		must(mpi.TypeHindexed([]int{1, 1}, []int{0, 1}, i16)).is("overlapping (send only)", []int{0, 1, 1, 2}, 0, 3, 0, 3),
		must(mpi.TypeIndexedBlock(2, []int{3, 0}, i16)).is("indexed block", cat(seq(6, 4), seq(0, 4)), 0, 10, 0, 10),
		must(mpi.TypeHindexedBlock(1, []int{5, 0}, i32)).is("hindexed block", cat(seq(5, 4), seq(0, 4)), 0, 9, 0, 9),
		must(mpi.TypeIndexedBlock(0, []int{3, 0}, i16)).is("indexed block of 0", nil, 0, 0, 0, 0),
		must(mpi.TypeStruct([]int{1, 1, 1}, []int{0, 4, 16}, []*mpi.Datatype{mpi.LB, i32, mpi.UB})).is("LB/UB markers", seq(4, 4), 0, 16, 4, 4),
		must(mpi.TypeStruct([]int{1, 1}, []int{4, 0}, []*mpi.Datatype{lbub, mpi.Int8})).is("markers inherited",
			append(seq(6, 4), 0), 0, 16, 0, 10),
		must(mpi.TypeCreateResized(i32, 0, 8)).is("resized larger", seq(0, 4), 0, 8, 0, 4),
		must(mpi.TypeContiguous(2, resized)).is("contiguous of resized", cat(seq(0, 4), seq(10, 4)), -2, 20, 0, 14),
		must(mpi.TypeCreateResized(pair, 0, 2)).is("resized smaller (overlap)", seq(0, 4), 0, 2, 0, 4),
		must(mpi.TypeDup(pair)).is("dup", seq(0, 4), 0, 4, 0, 4),
		must(mpi.TypeStruct([]int{0, 1}, []int{0, 2}, []*mpi.Datatype{mpi.Float64, i16})).is("struct with an empty block", seq(2, 2), 2, 2, 2, 2),
	}
	// The overlapping type can be sent but not received into meaningfully;
	// the negative byte stride reaches before buf[0]: both are checked apart.
	for _, l := range tests {
		switch l.name {
		case "negative byte stride", "overlapping (send only)":
			continue
		case "resized smaller (overlap)", "contiguous of resized":
			checkLayout(t, l, 1)
			continue
		}
		checkLayout(t, l, 0, 1, 3)
	}
	neg, _ := mpi.TypeHvector(2, 1, -6, i16)
	if neg.LB() != -6 || neg.Extent() != 8 {
		t.Errorf("negative byte stride: lb %d extent %d", neg.LB(), neg.Extent())
	}
	if err := mpi.Pack(make([]byte, 16), 1, neg, make([]byte, 4), new(int)); mpi.Class(err) != mpi.ErrBuffer {
		t.Errorf("data before buf[0]: %v", err)
	}
	ov, _ := mpi.TypeHindexed([]int{1, 1}, []int{0, 1}, i16)
	out := make([]byte, 4)
	if err := mpi.Pack([]byte{1, 2, 3}, 1, ov, out, new(int)); err != nil || !bytes.Equal(out, []byte{1, 2, 2, 3}) {
		t.Errorf("overlapping pack: %v %v", out, err)
	}
}

func TestIsendType(t *testing.T) {
	col, _ := mpi.TypeVector(2, 1, 3, mpi.Int8)
	buf := []byte{1, 2, 3, 4, 5, 6}
	req, err := mpi.IsendType(mpi.World, buf, 1, col, 0, 80)
	if err != nil {
		t.Fatal(err)
	}
	buf[0] = 9 // packed already
	got := make([]byte, 5)
	if _, err := mpi.RecvType(mpi.World, got, 1, col, 0, 80); err != nil || !bytes.Equal(got, []byte{1, 0, 0, 4, 0}) {
		t.Errorf("received %v %v", got, err)
	}
	if _, err := req.Wait(); err != nil {
		t.Error(err)
	}
	if _, err := mpi.IsendType(mpi.World, buf[:3], 1, col, 0, 80); mpi.Class(err) != mpi.ErrBuffer {
		t.Errorf("short buffer: %v", err)
	}
}

func TestMarkers(t *testing.T) {
	// The lowest LB and the highest UB win, whatever the data's bounds.
	d, err := mpi.TypeStruct([]int{1, 1, 1, 1, 1}, []int{8, 2, 4, 6, 30},
		[]*mpi.Datatype{mpi.LB, mpi.LB, mpi.Int16, mpi.UB, mpi.UB})
	if err != nil || d.LB() != 2 || d.UB() != 30 || d.Extent() != 28 || d.TrueLB() != 4 || d.TrueExtent() != 2 {
		t.Errorf("lb %d ub %d true %d+%d %v", d.LB(), d.UB(), d.TrueLB(), d.TrueExtent(), err)
	}
	// A UB marker inside the data sets a small extent, not padded.
	d, _ = mpi.TypeStruct([]int{1, 1}, []int{0, 2}, []*mpi.Datatype{mpi.Float64, mpi.UB})
	if d.LB() != 0 || d.Extent() != 2 {
		t.Errorf("ub inside the data: lb %d extent %d", d.LB(), d.Extent())
	}
	// Markers survive a vector; a resize replaces them.
	v, _ := mpi.TypeContiguous(2, d)
	if v.LB() != 0 || v.Extent() != 4 || v.Size() != 16 {
		t.Errorf("contiguous of a marked type: lb %d extent %d", v.LB(), v.Extent())
	}
	r, _ := mpi.TypeCreateResized(v, -4, 12)
	if r.LB() != -4 || r.Extent() != 12 || r.TrueLB() != 0 || r.TrueExtent() != 10 {
		t.Errorf("resized: lb %d extent %d true %d+%d", r.LB(), r.Extent(), r.TrueLB(), r.TrueExtent())
	}
	if m, _ := mpi.TypeDup(mpi.UB); m.Size() != 0 || m.Extent() != 0 {
		t.Errorf("dup of UB: %d %d", m.Size(), m.Extent())
	}
	if _, err := mpi.TypeCreateResized(nil, 0, 1); mpi.Class(err) != mpi.ErrType {
		t.Errorf("resize of nil: %v", err)
	}
}
