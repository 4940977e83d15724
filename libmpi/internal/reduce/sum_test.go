package reduce

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

// TestVectorSum checks the sum kernel that Kernel returns against the
// scalar loop, bit for bit, for every kind the vector loop takes, at
// lengths around its 64-byte blocks, with floats' special values (NaNs,
// infinities, signed zeros, subnormals) among random ones.
func TestVectorSum(t *testing.T) {
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, 5e-324, -1e-310, math.MaxFloat64}
	specials32 := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Copysign(0, -1)), 1e-45, -1e-40, math.MaxFloat32}
	rng := rand.New(rand.NewPCG(1, 2))
	fill := func(k Kind, b []byte) {
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		switch k {
		case Float64, Complex128:
			v := View[float64](b)
			for i := range v {
				v[i] = rng.NormFloat64() * 1e3
				if rng.IntN(4) == 0 {
					v[i] = specials[rng.IntN(len(specials))]
				}
			}
		case Float32, Complex64:
			v := View[float32](b)
			for i := range v {
				v[i] = float32(rng.NormFloat64())
				if rng.IntN(4) == 0 {
					v[i] = specials32[rng.IntN(len(specials32))]
				}
			}
		}
	}
	kinds := []struct {
		k    Kind
		size int
	}{{Int8, 1}, {Uint8, 1}, {Int16, 2}, {Uint16, 2}, {Int32, 4}, {Uint32, 4}, {Int64, 8}, {Uint64, 8}, {Int, 8}, {Uint, 8}, {Float32, 4}, {Float64, 8}, {Complex64, 8}, {Complex128, 16}}
	for _, kk := range kinds {
		fn, _ := Kernel(Sum, kk.k)
		scalar, _ := kernel(Sum, kk.k)
		if vectorSum(kk.k) == nil && isAMD64 {
			t.Errorf("kind %d: no vector sum", kk.k)
		}
		for _, elems := range []int{0, 1, 63 / kk.size, 64 / kk.size, 64/kk.size + 1, 1000, 4096} {
			n := elems * kk.size
			in, inout := make([]byte, n), make([]byte, n)
			fill(kk.k, in)
			fill(kk.k, inout)
			want := bytes.Clone(inout)
			scalar(in, want)
			fn(in, inout)
			if !bytes.Equal(inout, want) {
				t.Errorf("kind %d, %d elements: the sum differs from the scalar loop's", kk.k, elems)
			}
		}
	}
}
