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

// TestZeroOp: an empty reduction takes the quick path with a predefined
// op defined for its type even when no reduction used that op with that
// type before (its first reductions may be the empty ones), and not with
// an op undefined for the type or a program's own op, whose errors the
// full path reports.
func TestZeroOp(t *testing.T) {
	predefinedOps[Sum.id][kindOf[int16]()].Store(nil)
	if !zeroOp[int16](Sum) {
		t.Error("Sum on int16, not used before: not taken as good")
	}
	if predefinedOps[Sum.id][kindOf[int16]()].Load() == nil {
		t.Error("Sum on int16: not kept for the next call")
	}
	if zeroOp[float32](Band) {
		t.Error("Band on float32 taken as good")
	}
	if zeroOp[int16](nil) {
		t.Error("a nil op taken as good")
	}
	own, err := NewOp(func(in, inout []int16) {}, true)
	if err != nil {
		t.Fatal(err)
	}
	if zeroOp[int16](own) {
		t.Error("a program's op taken as good")
	}
}

// TestRequestSize: a Request stays in the 48-byte size class; every
// nonblocking call allocates one, and a program's first calls pay for
// every new page of the heap they take (a page fault each: 12 µs on this
// project's test machine).
func TestRequestSize(t *testing.T) {
	if s := unsafe.Sizeof(Request{}); s > 48 {
		t.Errorf("Request is %d bytes, more than 48", s)
	}
}
