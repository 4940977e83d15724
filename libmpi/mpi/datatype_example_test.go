package mpi_test

import (
	"fmt"

	"github.com/lamgo/lam/libmpi/mpi"
)

// A slice of Go structs sent and received through the datatype TypeOf
// builds by reflection.
func ExampleTypeOf() {
	type Particle struct {
		ID   int8
		Mass float64
		Pos  [3]float32
	}
	d, err := mpi.TypeOf[Particle]()
	if err != nil {
		fmt.Println(err)
		return
	}
	out := []Particle{{1, 2.5, [3]float32{1, 2, 3}}, {2, 0.5, [3]float32{4, 5, 6}}}
	ob, _ := mpi.AsBytes(out)
	req, _ := mpi.IsendType(mpi.World, ob, len(out), d, 0, 0)
	in := make([]Particle, 2)
	ib, _ := mpi.AsBytes(in)
	st, _ := mpi.RecvType(mpi.World, ib, len(in), d, 0, 0)
	req.Wait()
	fmt.Println(d.Size(), d.Extent(), mpi.GetCountType(st, d), in[1])
	// Output: 21 32 2 {2 0.5 [4 5 6]}
}

// The interior of a 4×4 grid, a subarray, packed in the portable
// external32 representation.
func ExampleTypeCreateSubarray() {
	grid := make([]byte, 16)
	for i := range grid {
		grid[i] = byte(i)
	}
	inner, _ := mpi.TypeCreateSubarray([]int{4, 4}, []int{2, 2}, []int{1, 1}, mpi.OrderC, mpi.Byte)
	out := make([]byte, inner.Size())
	mpi.PackExternal(mpi.External32, grid, 1, inner, out, new(int))
	fmt.Println(out, inner.Extent())
	// Output: [5 6 9 10] 16
}
