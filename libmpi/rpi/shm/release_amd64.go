//go:build amd64 && !race

package shm

// storeRelease stores v at p with release ordering: a reader that loads
// v atomically sees every store made before. On amd64 every store has
// release ordering, so this is a plain move, without the full fence of
// atomic.Uint64.Store (an exchange that waits for the store buffer to
// drain).
//
//go:noescape
func storeRelease(p *uint64, v uint64)
