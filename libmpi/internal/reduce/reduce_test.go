package reduce

import (
	"slices"
	"testing"
	"unsafe"
)

func bytesOf[T any](v []T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*int(unsafe.Sizeof(v[0])))
}

func TestKernels(t *testing.T) {
	in, inout := []int32{1, 5, -3, 0, 9, 9, 9, 9, 9, 2}, []int32{4, 2, 7, 0, 1, 1, 1, 1, 1, 8}
	tests := []struct {
		op    int
		want  []int32
		exact bool
	}{
		{Sum, []int32{5, 7, 4, 0, 10, 10, 10, 10, 10, 10}, true},
		{Max, []int32{4, 5, 7, 0, 9, 9, 9, 9, 9, 8}, true},
		{Land, []int32{1, 1, 1, 0, 1, 1, 1, 1, 1, 1}, true},
		{Bxor, []int32{5, 7, -6, 0, 8, 8, 8, 8, 8, 10}, true},
	}
	for _, tt := range tests {
		fn, exact := Kernel(tt.op, Int32)
		got := slices.Clone(inout)
		fn(bytesOf(in), bytesOf(got))
		if !slices.Equal(got, tt.want) || exact != tt.exact {
			t.Errorf("op %d: %v (exact %v), want %v", tt.op, got, exact, tt.want)
		}
	}
	if fn, _ := Kernel(Band, Float64); fn != nil {
		t.Error("a bitwise op on floating point")
	}
	if _, exact := Kernel(Sum, Float32); exact {
		t.Error("a floating-point sum is exact")
	}
	a, b := []Loc[float64]{{2, 3}, {1, 0}}, []Loc[float64]{{2, 1}, {5, 4}}
	fn, _ := Kernel(MaxLoc, LocFloat64)
	fn(bytesOf(a), bytesOf(b))
	if b[0] != (Loc[float64]{2, 1}) || b[1] != (Loc[float64]{5, 4}) {
		t.Errorf("MaxLoc: %v", b)
	}
}
