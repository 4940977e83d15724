package shm

import (
	"errors"
	"fmt"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/libmpi/internal/futex"
	"github.com/lamgo/lam/libmpi/internal/vmcopy"
	"github.com/lamgo/lam/libmpi/rpi"
)

// errPeerGone is what a link to a local peer that died reports.
var errPeerGone = errors.New("the process at the other end of the shared-memory link is gone")

// link is the channel to one process of the node: a ring each way. Only
// the progress engine (under its lock) moves bytes on it.
type link struct {
	t          *transport
	out        *ring      // to the peer
	in         *ring      // from the peer
	peer       futex.Bell // the peer's doorbell
	pid        int
	short      int
	singleCopy int
	dead       atomic.Bool
	closed     bool
	iovs       *[iovMax]unix.Iovec // local pieces of a layout's single copy, made on first use
}

// Read takes what the peer wrote; the peer is woken if it sleeps waiting
// for room.
func (l *link) Read(p []byte) (int, error) {
	if l.closed {
		return 0, errors.New("link closed")
	}
	n := l.in.read(p)
	if n == 0 && l.dead.Load() {
		// What the peer wrote before it died has been read.
		if n = l.in.read(p); n == 0 {
			return 0, errPeerGone
		}
	}
	if n > 0 {
		l.peer.Ring()
	}
	return n, nil
}

// Peek shows the peer's next write in place when it sits in one slot.
func (l *link) Peek() ([]byte, bool, error) {
	if l.closed {
		return nil, false, errors.New("link closed")
	}
	p, ready := l.in.peek()
	if !ready && l.dead.Load() {
		// What the peer wrote before it died has been read.
		if p, ready = l.in.peek(); !ready {
			return nil, false, errPeerGone
		}
	}
	return p, ready, nil
}

// Consume releases what Peek showed; the peer is woken if it sleeps
// waiting for room.
func (l *link) Consume() {
	l.in.consume()
	l.peer.Ring()
}

// Write puts what fits into the ring and wakes the peer if it sleeps.
func (l *link) Write(p []byte) (int, error) { return l.Write2(p, nil) }

// Write2 writes a frame's header and body with one publication.
func (l *link) Write2(a, b []byte) (int, error) {
	if l.closed {
		return 0, errors.New("link closed")
	}
	if l.dead.Load() {
		return 0, errPeerGone
	}
	// A full ring is polled writelockpoll times for room before the
	// core moves on to other work.
	n := l.out.write(a, b)
	for i := 0; n == 0 && i < l.t.c.writePolls; i++ {
		n = l.out.write(a, b)
	}
	if n > 0 {
		l.peer.Ring()
	}
	return n, nil
}

// WriteGather writes a frame's header and a layout's bytes with one
// publication, copying the layout's blocks into the ring from where they
// lie.
func (l *link) WriteGather(hdr []byte, body *rpi.Cursor, n int) (int, error) {
	if l.closed {
		return 0, errors.New("link closed")
	}
	if l.dead.Load() {
		return 0, errPeerGone
	}
	w := l.out.writeGather(hdr, body, n)
	for i := 0; w == 0 && i < l.t.c.writePolls; i++ {
		w = l.out.writeGather(hdr, body, n)
	}
	if w > 0 {
		l.peer.Ring()
	}
	return w, nil
}

// ReadScatter copies what the peer wrote, up to n bytes, from the ring
// into a layout's blocks.
func (l *link) ReadScatter(body *rpi.Cursor, n int) (int, error) {
	if l.closed {
		return 0, errors.New("link closed")
	}
	k := l.in.readScatter(body, n)
	if k == 0 && l.dead.Load() {
		if k = l.in.readScatter(body, n); k == 0 {
			return 0, errPeerGone
		}
	}
	if k > 0 {
		l.peer.Ring()
	}
	return k, nil
}

// Fd: a shared-memory link has no descriptor; the core sleeps through the
// transport's doorbell instead.
func (l *link) Fd() int { return -1 }

// Short is the eager limit on this link.
func (l *link) Short() int { return l.short }

func (l *link) Close() error {
	l.closed = true
	return nil
}

// SingleCopy: messages up to rpi_*_single_copy (the ring's size at
// most) go through the ring, where both processes copy at once; longer
// ones in one copy (two halves at once) between the processes' buffers.
// Through the ring every byte is copied twice, each a transfer between
// the processors' caches when the processes run on two. Where those
// transfers are fast the ring won up to 1 MiB (ping-pong 52 µs against
// 132, session 5); where they are slow, as on the same machine in
// session 22, the one copy won from 128 KiB (1 MiB 197 → 99 µs, Open
// MPI, which copies once from 32 KiB, 151). The default, 64 KiB, is at
// or below Open MPI's time either way (bench/README.md, session 22).
func (l *link) SingleCopy() int { return l.singleCopy }

// WriteRemote copies src to addr in the peer's memory with one
// process_vm_writev(2) copy.
func (l *link) WriteRemote(src []byte, addr uint64) error {
	return l.remote(src, addr, true)
}

// ReadRemote copies len(dst) bytes at addr in the peer's memory into dst
// with one process_vm_readv(2) copy.
func (l *link) ReadRemote(dst []byte, addr uint64) error {
	return l.remote(dst, addr, false)
}

// ReadRemoteLayout copies n bytes at addr in the peer's memory into a
// layout's blocks with process_vm_readv(2) calls of up to IOV_MAX pieces
// each.
func (l *link) ReadRemoteLayout(dst *rpi.Cursor, n int, addr uint64) error {
	return l.remoteLayout(dst, n, addr, false)
}

// WriteRemoteLayout copies n bytes of a layout's blocks to addr in the
// peer's memory with process_vm_writev(2) calls of up to IOV_MAX pieces
// each.
func (l *link) WriteRemoteLayout(src *rpi.Cursor, n int, addr uint64) error {
	return l.remoteLayout(src, n, addr, true)
}

// iovMax is the most local pieces one process_vm_readv(2) takes.
const iovMax = 1024

// remoteLayout copies n bytes between a layout from c on and addr in the
// peer's memory: to the peer if write, from it otherwise.
func (l *link) remoteLayout(c *rpi.Cursor, n int, addr uint64, write bool) error {
	op, dir, trap := vmcopy.Op(write)
	if l.iovs == nil {
		l.iovs = new([iovMax]unix.Iovec)
	}
	rv := []unix.RemoteIovec{{}}
	for done := 0; done < n; {
		from := *c
		k, m := 0, 0
		for k < iovMax && done+m < n {
			p := c.Next(n - done - m)
			if p == nil {
				break
			}
			l.iovs[k].Base = &p[0]
			l.iovs[k].SetLen(len(p))
			k++
			m += len(p)
		}
		if m == 0 {
			return fmt.Errorf("%s %s process %d: the layout ends %d bytes short", op, dir, l.pid, n-done)
		}
		rv[0] = unix.RemoteIovec{Base: uintptr(addr) + uintptr(done), Len: m}
		w, err := vmcopy.Call(trap, l.pid, l.iovs[:k], rv)
		if err == unix.EINTR {
			*c = from
			continue
		}
		if err != nil {
			return fmt.Errorf("%s %d bytes %s process %d: %w", op, m, dir, l.pid, err)
		}
		if w == 0 {
			return fmt.Errorf("%s %s process %d: nothing moved", op, dir, l.pid)
		}
		if w < m {
			*c = from
			c.Skip(w)
		}
		done += w
	}
	return nil
}

// remote copies between local and addr in the peer's memory: to the peer
// if write, from it otherwise.
func (l *link) remote(local []byte, addr uint64, write bool) error {
	return vmcopy.Copy(l.pid, local, addr, write)
}
