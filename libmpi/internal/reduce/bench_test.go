package reduce

import (
	"fmt"
	"testing"
)

// BenchmarkSum is the cost of the sum kernel per byte (b.SetBytes: MB/s is
// bytes of inout per second), in cache (64 KiB) and past the L2 (4 MiB).
func BenchmarkSum(b *testing.B) {
	for _, k := range []struct {
		name string
		kind Kind
	}{{"float32", Float32}, {"float64", Float64}, {"int32", Int32}} {
		for _, size := range []int{64 << 10, 4 << 20} {
			b.Run(fmt.Sprintf("%s/%d", k.name, size), func(b *testing.B) {
				fn, _ := Kernel(Sum, k.kind)
				in, inout := make([]byte, size), make([]byte, size)
				b.SetBytes(int64(size))
				for b.Loop() {
					fn(in, inout)
				}
			})
		}
	}
}
