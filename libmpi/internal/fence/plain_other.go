//go:build !amd64

package fence

import (
	"sync/atomic"
	"unsafe"
)

// Elsewhere a plain store may be seen out of program order: the atomic
// ones are used.
const plainStores = false

func storeLoad(p *atomic.Uint64, v uint64, q *atomic.Int32) int32 {
	p.Store(v)
	return q.Load()
}

func store(p *atomic.Uint64, v uint64) { p.Store(v) }

func prefetchW(unsafe.Pointer) {}

func pause() {}
