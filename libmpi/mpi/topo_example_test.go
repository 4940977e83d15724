package mpi_test

import (
	"fmt"

	"github.com/lamgo/lam/libmpi/mpi"
)

// A periodic ring over every process: the neighbours each way, and their
// ranks gathered with a neighbour collective.
func ExampleCartCreate() {
	dims := []int{0}
	mpi.DimsCreate(mpi.World.Size(), dims)
	ring, err := mpi.CartCreate(mpi.World, dims, []bool{true}, true)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ring.Free()
	left, right, _ := ring.CartShift(0, 1)
	got := make([]int32, 2)
	mpi.NeighborAllgather(ring, []int32{int32(ring.Rank())}, got)
	fmt.Println(dims, left, right, got)
	// Output: [1] 0 0 [0 0]
}
