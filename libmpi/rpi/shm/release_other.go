//go:build !amd64 || race

package shm

import (
	"sync/atomic"
	"unsafe"
)

// storeRelease stores v at p with release ordering (see the amd64 form);
// elsewhere, and for the race detector, it is an atomic store.
func storeRelease(p *uint64, v uint64) {
	(*atomic.Uint64)(unsafe.Pointer(p)).Store(v)
}
