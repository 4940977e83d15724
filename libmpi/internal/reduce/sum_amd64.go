package reduce

// The sum's bulk in SSE2 (sum_amd64.s): 64 bytes a turn, against the
// scalar loop's one element (float32 4 MiB: about 4x; BenchmarkSum).

//go:noescape
func addF32(in, inout *byte, n int)

//go:noescape
func addF64(in, inout *byte, n int)

//go:noescape
func addI8(in, inout *byte, n int)

//go:noescape
func addI16(in, inout *byte, n int)

//go:noescape
func addI32(in, inout *byte, n int)

//go:noescape
func addI64(in, inout *byte, n int)

// vectorSum returns the vector sum of n bytes (a multiple of 64) for
// elements of kind k, nil where there is none. A complex sum is the sum
// of its parts, element by element.
func vectorSum(k Kind) func(in, inout *byte, n int) {
	switch k {
	case Float32, Complex64:
		return addF32
	case Float64, Complex128:
		return addF64
	case Int8, Uint8:
		return addI8
	case Int16, Uint16:
		return addI16
	case Int32, Uint32:
		return addI32
	case Int64, Uint64, Int, Uint:
		return addI64
	}
	return nil
}

const isAMD64 = true
