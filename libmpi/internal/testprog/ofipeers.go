//go:build ofi && cgo

package main

import (
	"fmt"
	"strings"

	"github.com/lamgo/lam/libmpi/mpi"
	"github.com/lamgo/lam/libmpi/rpi/ofi"
)

// ofipeers (testprog-ofi only): every pair of ranks exchanges small and
// long messages; then rank 0 prints the pairs whose messages went through
// the ofi module ("ofi pairs 0-1 0-3 ..."), from each process's count of
// the data messages its ofi endpoint received (ofi.Traffic). Usysv
// carries the others. A pair that only one side saw through ofi fails.
func init() {
	suites["ofipeers"] = func(rank, size int) {
		small, long := make([]byte, 64), make([]byte, 256<<10)
		got := make([]byte, len(long))
		for d := 1; d < size; d++ {
			to, from := (rank+d)%size, (rank-d+size)%size
			for _, b := range [][]byte{small, long} {
				if _, err := mpi.Sendrecv(mpi.World, b, to, d, got[:len(b)], from, d); err != nil {
					fail("sendrecv with %d and %d: %v", to, from, err)
				}
			}
		}
		seen := make([]int32, size)
		for i, n := range ofi.Traffic() {
			if n > 0 {
				seen[i] = 1
			}
		}
		all := make([]int32, size*size)
		if err := mpi.Gather(mpi.World, seen, all, 0); err != nil {
			fail("gather: %v", err)
		}
		if rank != 0 {
			return
		}
		var pairs []string
		for i := range size {
			for j := i + 1; j < size; j++ {
				a, b := all[i*size+j], all[j*size+i]
				if a != b {
					fail("ranks %d and %d: through ofi %d one way, %d the other", i, j, a, b)
				}
				if a == 1 {
					pairs = append(pairs, fmt.Sprintf("%d-%d", i, j))
				}
			}
		}
		fmt.Printf("ofi pairs %s\n", strings.Join(pairs, " "))
	}
}
