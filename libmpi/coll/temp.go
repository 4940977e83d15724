package coll

import (
	"math/bits"
	"sync"
)

// Temp is a buffer of n bytes for the schedule's own use (a block it
// receives to combine, a partial result it passes on), which the caller
// does not keep past the schedule: from a pool from tempMin bytes on, and
// back to it once the schedule ends without error (one that ends with an
// error may leave a receive posted into it: the collector has it then).
// Its bytes are not cleared. A nonblocking collective of 1 MiB took
// 20–24 fresh buffers of its size a call (4 processes, Ireduce), each
// cleared by the allocator and the pages faulted in again after every
// collection.
func (s *Schedule) Temp(n int) []byte {
	if n < tempMin || n > tempMax {
		return Buffer(n)
	}
	b := getTemp(n)
	s.temps = append(s.temps, b)
	return b
}

// tempMin is the smallest buffer Temp takes from the pool; tempClasses
// the size classes (powers of two up to 64 MiB: a larger buffer, which a
// class would round up by as much as its size, is the collector's).
const (
	tempMin     = 64 << 10
	tempClasses = 27
	tempMax     = 1 << (tempClasses - 1)
)

// tempPools holds, in class k, buffers of 1<<k bytes.
var tempPools [tempClasses]sync.Pool

// tempBuf carries a buffer through a pool (a slice would be boxed on
// every Put).
type tempBuf struct{ b []byte }

func getTemp(n int) []byte {
	k := bits.Len(uint(n - 1))
	if k >= tempClasses {
		return Buffer(n)
	}
	if t, _ := tempPools[k].Get().(*tempBuf); t != nil {
		return t.b[:n]
	}
	return Buffer(1 << k)[:n]
}

// giveBack is what finish gives a clean schedule's temps back with (a
// test's seam).
var giveBack = putTemp

// putTemp gives b, which getTemp returned, back to its pool.
func putTemp(b []byte) {
	c := cap(b)
	k := bits.Len(uint(c - 1))
	if k >= tempClasses || c != 1<<k || c < tempMin {
		return
	}
	tempPools[k].Put(&tempBuf{b: b[:c]})
}
