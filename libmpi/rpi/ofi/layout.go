//go:build ofi && cgo

package ofi

import (
	"errors"
	"fmt"

	"github.com/lamgo/lam/libmpi/rpi"
)

// Long messages into a derived datatype's layout. The providers here
// take at most four local pieces per operation (iov_limit and
// rma_iov_limit are 4 for tcp and shm), so a read or a pull straight into
// a layout of many small blocks would cost one round trip per four
// blocks. Instead, runs of the layout's bytes that lie in blocks of at
// least layoutDirect bytes are read straight into them, and the rest is
// read into a scratch buffer of the link's, layoutScratch bytes at a time,
// and scattered from there: the provider's copy and one scatter, as the
// stream makes, but in one read (or pull) per layoutScratch bytes instead
// of a message per rpi_ofi_bufsize bytes waiting for credits.
const (
	layoutDirect  = 64 << 10
	layoutScratch = 1 << 20
)

// errNoWrite: the module has no remote writes (the core asks for them
// only of links that are rpi.RemoteWriter, which these are not).
var errNoWrite = errors.New("the ofi rpi module does not write into a peer's memory")

// ReadRemoteLayout copies n bytes at addr in the peer's memory into the
// layout from dst on, and moves dst past them (rpi.RemoteLayout).
func (l *link) ReadRemoteLayout(dst *rpi.Cursor, n int, addr uint64) error {
	l.t.mu.Lock()
	l.t.layoutReads++
	l.t.mu.Unlock()
	for done := 0; done < n; {
		from := *dst
		p := dst.Next(n - done)
		if p == nil {
			return fmt.Errorf("rpi ofi: the layout ends %d bytes short of a read of %d", n-done, n)
		}
		if len(p) >= layoutDirect {
			if err := l.ReadRemote(p, addr+uint64(done)); err != nil {
				*dst = from
				return err
			}
			done += len(p)
			continue
		}
		*dst = from
		if l.scratch2 == nil {
			l.scratch2 = make([]byte, layoutScratch)
		}
		// Up to the scratch's size, or to the next block that is read
		// straight into.
		k := 0
		for c := *dst; k < min(n-done, layoutScratch); {
			q := c.Next(min(n-done, layoutScratch) - k)
			if q == nil || len(q) >= layoutDirect {
				break
			}
			k += len(q)
		}
		buf := l.scratch2[:k]
		if err := l.ReadRemote(buf, addr+uint64(done)); err != nil {
			return err
		}
		if m := dst.CopyIn(buf); m != k {
			return fmt.Errorf("rpi ofi: scattered %d of %d bytes into the layout", m, k)
		}
		done += k
	}
	return nil
}

// WriteRemoteLayout: no remote writes (the core does not ask: the links
// are not rpi.RemoteWriter).
func (l *link) WriteRemoteLayout(*rpi.Cursor, int, uint64) error { return errNoWrite }
