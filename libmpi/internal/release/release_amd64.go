//go:build amd64 && !race

package release

// Store64 stores v at p with release ordering.
//
//go:noescape
func Store64(p *uint64, v uint64)

// Store32 stores v at p with release ordering.
//
//go:noescape
func Store32(p *uint32, v uint32)
