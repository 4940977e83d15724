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
