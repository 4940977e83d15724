package fence

import (
	"sync/atomic"
	"unsafe"
)

// amd64 keeps stores in program order, and a load after a store in
// program order (it may take the load before the store is seen: the
// waiter's Others covers that).
const plainStores = true

// storeLoad stores v in *p, then loads *q (plain_amd64.s).
//
//go:noescape
func storeLoad(p *atomic.Uint64, v uint64, q *atomic.Int32) int32

// store stores v in *p (plain_amd64.s).
//
//go:noescape
func store(p *atomic.Uint64, v uint64)

// prefetchW asks for the line at p for writing (plain_amd64.s).
//
//go:noescape
func prefetchW(p unsafe.Pointer)

// pause is the spin-wait hint (plain_amd64.s).
func pause()
