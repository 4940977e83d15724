//go:build !amd64

package reduce

// vectorSum: no vector sum off amd64; the scalar loop does it all.
func vectorSum(Kind) func(in, inout *byte, n int) { return nil }

const isAMD64 = false
