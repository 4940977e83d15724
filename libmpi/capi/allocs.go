package main

import "C"

import (
	"runtime/metrics"
	"sync"
)

// lamgo_heap_allocs is how many heap objects the Go side of the process
// has allocated so far (runtime/metrics' /gc/heap/allocs:objects and
// the tiny ones packed into its blocks, as runtime.MemStats.Mallocs), for
// tests and benchmarks that check that a loop of MPI calls allocates
// nothing (not in mpi.h: declare it, weak where another MPI may be
// linked, as bench/c/coll.c does). It may be called from any thread.
//
//export lamgo_heap_allocs
func lamgo_heap_allocs() C.ulonglong {
	heapAllocs.Lock()
	defer heapAllocs.Unlock()
	metrics.Read(heapAllocs.s[:])
	return C.ulonglong(heapAllocs.s[0].Value.Uint64() + heapAllocs.s[1].Value.Uint64())
}

var heapAllocs struct {
	sync.Mutex
	s [2]metrics.Sample
}

func init() {
	heapAllocs.s[0].Name = "/gc/heap/allocs:objects"
	heapAllocs.s[1].Name = "/gc/heap/tiny/allocs:objects"
}
