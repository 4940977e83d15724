//go:build !amd64 || race

package release

import "sync/atomic"

// Store64 stores v at p with release ordering.
func Store64(p *uint64, v uint64) { atomic.StoreUint64(p, v) }

// Store32 stores v at p with release ordering.
func Store32(p *uint32, v uint32) { atomic.StoreUint32(p, v) }
