package mpi

import (
	"testing"
	"unsafe"

	"github.com/lamgo/lam/libmpi/internal/reduce"
)

// The kernels read Loc pairs with reduce.Loc's layout.
func TestLocLayout(t *testing.T) {
	if unsafe.Sizeof(Loc[int16]{}) != unsafe.Sizeof(reduce.Loc[int16]{}) ||
		unsafe.Offsetof(Loc[float64]{}.Index) != unsafe.Offsetof(reduce.Loc[float64]{}.Index) {
		t.Error("mpi.Loc and reduce.Loc differ")
	}
}

// BenchmarkKindOf is the element type's lookup every reduction makes.
func BenchmarkKindOf(b *testing.B) {
	type named float32
	b.Run("float32", func(b *testing.B) {
		for b.Loop() {
			if kindOf[float32]() != reduce.Float32 {
				b.Fatal("wrong kind")
			}
		}
	})
	b.Run("named", func(b *testing.B) {
		for b.Loop() {
			if kindOf[named]() != reduce.Float32 {
				b.Fatal("wrong kind")
			}
		}
	})
}
