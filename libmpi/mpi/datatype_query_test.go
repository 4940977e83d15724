package mpi_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/lamgo/lam/libmpi/mpi"
)

func TestEnvelopeContents(t *testing.T) {
	vec, _ := mpi.TypeVector(3, 2, -4, mpi.Int32)
	st, _ := mpi.TypeStruct([]int{1, 2}, []int{0, 8}, []*mpi.Datatype{mpi.Int8, vec})
	sub, _ := mpi.TypeCreateSubarray([]int{3, 4}, []int{1, 2}, []int{2, 0}, mpi.OrderFortran, mpi.Float64)
	dar, _ := mpi.TypeCreateDarray(4, 1, []int{8}, []mpi.Distribution{mpi.DistributeCyclic}, []int{2}, []int{4}, mpi.OrderC, mpi.Int8)
	res, _ := mpi.TypeCreateResized(vec, -8, 64)
	dup, _ := mpi.TypeDup(st)
	idx, _ := mpi.TypeIndexed([]int{1, 2}, []int{5, 0}, mpi.Int16)
	hidx, _ := mpi.TypeHindexed([]int{1, 2}, []int{5, 0}, mpi.Int16)
	blk, _ := mpi.TypeIndexedBlock(3, []int{4, 0}, mpi.Int16)
	hblk, _ := mpi.TypeHindexedBlock(3, []int{4, 0}, mpi.Int16)
	con, _ := mpi.TypeContiguous(5, st)
	hv, _ := mpi.TypeHvector(2, 1, 24, mpi.Int8)
	tests := []struct {
		d     *mpi.Datatype
		comb  mpi.Combiner
		ints  []int
		addrs []int
		types []*mpi.Datatype
	}{
		{con, mpi.CombinerContiguous, []int{5}, nil, []*mpi.Datatype{st}},
		{vec, mpi.CombinerVector, []int{3, 2, -4}, nil, []*mpi.Datatype{mpi.Int32}},
		{hv, mpi.CombinerHvector, []int{2, 1}, []int{24}, []*mpi.Datatype{mpi.Int8}},
		{idx, mpi.CombinerIndexed, []int{2, 1, 2, 5, 0}, nil, []*mpi.Datatype{mpi.Int16}},
		{hidx, mpi.CombinerHindexed, []int{2, 1, 2}, []int{5, 0}, []*mpi.Datatype{mpi.Int16}},
		{blk, mpi.CombinerIndexedBlock, []int{2, 3, 4, 0}, nil, []*mpi.Datatype{mpi.Int16}},
		{hblk, mpi.CombinerHindexedBlock, []int{2, 3}, []int{4, 0}, []*mpi.Datatype{mpi.Int16}},
		{st, mpi.CombinerStruct, []int{2, 1, 2}, []int{0, 8}, []*mpi.Datatype{mpi.Int8, vec}},
		{sub, mpi.CombinerSubarray, []int{2, 3, 4, 1, 2, 2, 0, int(mpi.OrderFortran)}, nil, []*mpi.Datatype{mpi.Float64}},
		{dar, mpi.CombinerDarray, []int{4, 1, 1, 8, int(mpi.DistributeCyclic), 2, 4, int(mpi.OrderC)}, nil, []*mpi.Datatype{mpi.Int8}},
		{res, mpi.CombinerResized, nil, []int{-8, 64}, []*mpi.Datatype{vec}},
		{dup, mpi.CombinerDup, nil, nil, []*mpi.Datatype{st}},
	}
	for _, tc := range tests {
		ni, na, nt, comb, err := mpi.TypeGetEnvelope(tc.d)
		if err != nil || comb != tc.comb || ni != len(tc.ints) || na != len(tc.addrs) || nt != len(tc.types) {
			t.Errorf("%s: envelope %d %d %d %s %v", tc.comb, ni, na, nt, comb, err)
			continue
		}
		ints, addrs, types, err := mpi.TypeGetContents(tc.d)
		if err != nil || !slices.Equal(ints, tc.ints) || !slices.Equal(addrs, tc.addrs) || !slices.Equal(types, tc.types) {
			t.Errorf("%s: contents %v %v %v %v", tc.comb, ints, addrs, types, err)
		}
	}
	if _, _, _, comb, err := mpi.TypeGetEnvelope(mpi.Float64); err != nil || comb != mpi.CombinerNamed {
		t.Errorf("named: %s %v", comb, err)
	}
	if _, _, _, err := mpi.TypeGetContents(mpi.Float64); mpi.Class(err) != mpi.ErrArg {
		t.Errorf("contents of a named type: %v", err)
	}
	if _, _, _, _, err := mpi.TypeGetEnvelope(nil); mpi.Class(err) != mpi.ErrType {
		t.Errorf("nil: %v", err)
	}
	// Rebuilding a type from its contents gives the same layout.
	ints, _, types, _ := mpi.TypeGetContents(vec)
	again, _ := mpi.TypeVector(ints[0], ints[1], ints[2], types[0])
	if again.Size() != vec.Size() || again.LB() != vec.LB() || again.Extent() != vec.Extent() {
		t.Errorf("rebuilt vector differs")
	}
}

func TestGetElements(t *testing.T) {
	// {int32, float64}: 12 data bytes, two basic elements.
	st, _ := mpi.TypeStruct([]int{1, 1}, []int{0, 8}, []*mpi.Datatype{mpi.Int32, mpi.Float64})
	pair, _ := mpi.TypeContiguous(2, st)
	empty, _ := mpi.TypeContiguous(0, mpi.Int32)
	tests := []struct {
		d           *mpi.Datatype
		bytes, want int
		count       int
	}{
		{st, 0, 0, 0},
		{st, 24, 4, 2},
		{st, 28, 5, mpi.Undefined},
		{st, 30, mpi.Undefined, mpi.Undefined},
		{pair, 36, 6, mpi.Undefined},
		{pair, 40, 7, mpi.Undefined},
		{mpi.Float64, 16, 2, 2},
		{empty, 0, 0, mpi.Undefined},
		{empty, 4, mpi.Undefined, mpi.Undefined},
	}
	for i, tc := range tests {
		s := mpi.Status{Bytes: tc.bytes}
		if got := mpi.GetElements(s, tc.d); got != tc.want {
			t.Errorf("%d: GetElements of %d bytes = %d, want %d", i, tc.bytes, got, tc.want)
		}
		if got := mpi.GetCountType(s, tc.d); got != tc.count {
			t.Errorf("%d: GetCountType of %d bytes = %d, want %d", i, tc.bytes, got, tc.count)
		}
	}
	// A real short message: 2 whole structs and the int32 of a third.
	rec := bytes.Repeat([]byte{0xee}, 3*16)
	mpi.Send(mpi.World, make([]byte, 28), 0, 70)
	s, err := mpi.RecvType(mpi.World, rec, 3, st, 0, 70)
	if err != nil || mpi.GetElements(s, st) != 5 || mpi.GetCountType(s, st) != mpi.Undefined || rec[32] != 0 || rec[40] != 0xee {
		t.Errorf("short message: %v, %d elements", err, mpi.GetElements(s, st))
	}
}

// TestTypeDupAttributes: TypeDup copies attributes through their copy
// callbacks, Free runs the delete callbacks, and types made from a type
// with attributes (resized, reflected) start without any.
func TestTypeDupAttributes(t *testing.T) {
	var deleted []string
	k := mpi.NewTypeKeyval(func(_ *mpi.Datatype, v string) (string, bool, error) { return v + "'", true, nil },
		func(_ *mpi.Datatype, v string) error { deleted = append(deleted, v); return nil })
	defer k.Free()
	v, _ := mpi.TypeVector(2, 1, 2, mpi.Int32)
	if err := mpi.SetTypeAttr(v, k, "a"); err != nil {
		t.Fatal(err)
	}
	d, err := mpi.TypeDup(v)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok, _ := mpi.GetTypeAttr(d, k); got != "a'" || !ok {
		t.Errorf("dup's attribute: %q %v", got, ok)
	}
	r, _ := mpi.TypeCreateResized(v, 0, 16)
	if _, ok, _ := mpi.GetTypeAttr(r, k); ok {
		t.Error("a resized type has its old type's attribute")
	}
	mpi.SetTypeAttr(r, k, "r")
	if got, _, _ := mpi.GetTypeAttr(v, k); got != "a" {
		t.Errorf("setting the resized type's attribute changed the old type's: %q", got)
	}
	if err := d.Free(); err != nil || len(deleted) != 1 || deleted[0] != "a'" {
		t.Errorf("Free: %v, deleted %v", err, deleted)
	}
	if got, _, _ := mpi.GetTypeAttr(v, k); got != "a" {
		t.Errorf("the original lost its attribute: %q", got)
	}
	r.Free()
	v.Free()
}
