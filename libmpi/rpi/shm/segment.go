package shm

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/libmpi/internal/futex"
	"github.com/lamgo/lam/libmpi/internal/shmfile"
)

// The segment one node's processes of a job share:
//
//	header   one line: magic, local process count, ring size, attach count
//	bells    one line per local process: its doorbell
//	rings    n×n channels (from, to), the diagonal unused: a line for the
//	         consumer's counters, the slots, then the data ring (see ring)
//
// Lines are 128 bytes, so that the adjacent-line prefetcher does not make
// two counters share one.
const (
	line       = 128
	magic      = 0x4c414d53484d3032 // "LAMSHM02"
	offMagic   = 0
	offLocal   = 8
	offRing    = 16
	offAttach  = 24
	offBells   = line
	ringHeader = line + slotsSize
)

// layout is a segment's geometry.
type layout struct {
	n        int // processes on the node
	ringSize int // data bytes per channel, a power of two
}

func (l layout) ringsAt() int     { return offBells + l.n*line }
func (l layout) channelSize() int { return ringHeader + l.ringSize }
func (l layout) size() int        { return l.ringsAt() + l.n*l.n*l.channelSize() }

func (l layout) channel(from, to int) int {
	return l.ringsAt() + (from*l.n+to)*l.channelSize()
}

// segment is a mapped segment.
type segment struct {
	layout
	mem  []byte
	path string
}

func (s *segment) u64(off int) *atomic.Uint64 { return (*atomic.Uint64)(unsafe.Pointer(&s.mem[off])) }
func (s *segment) u32(off int) *atomic.Uint32 { return (*atomic.Uint32)(unsafe.Pointer(&s.mem[off])) }

func (s *segment) bell(i int) futex.Bell {
	off := offBells + i*line
	return futex.At(unsafe.Pointer(&s.mem[off]))
}

// ring returns one side of channel from→to.
func (s *segment) ring(from, to int, producer bool) *ring {
	off := s.channel(from, to)
	slots := s.mem[off+line : off+ringHeader : off+ringHeader]
	data := s.mem[off+ringHeader : off+ringHeader+s.ringSize : off+ringHeader+s.ringSize]
	return newRing(s.u64(off), s.u64(off+8), slots, data, producer)
}

// create makes and maps the segment; the node's first process does this.
// Its pages are reserved (a segment too big for the free space of
// /dev/shm fails here, not with a SIGBUS later) but the unused diagonal's.
func create(path string, l layout) (*segment, error) {
	unused := make([]shmfile.Span, l.n)
	for i := range l.n {
		unused[i] = shmfile.Span{Off: l.channel(i, i), Len: l.channelSize()}
	}
	mem, err := shmfile.Create(path, l.size(), unused...)
	if err != nil {
		return nil, err
	}
	s := &segment{layout: l, mem: mem, path: path}
	s.u64(offRing).Store(uint64(l.ringSize))
	s.u32(offLocal).Store(uint32(l.n))
	s.u64(offMagic).Store(magic) // last: the segment is ready
	return s, nil
}

// open maps the segment another process of the node creates, waiting for
// it until ctx ends.
func open(ctx context.Context, path string, l layout) (*segment, error) {
	for wait := 50 * time.Microsecond; ; wait = min(2*wait, 5*time.Millisecond) {
		s, err := tryOpen(path, l)
		if err == nil {
			return s, nil
		}
		if !errors.Is(err, shmfile.ErrNotYet) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("shared segment %s: the node's first process did not create it: %w", path, context.Cause(ctx))
		case <-time.After(wait):
		}
	}
}

func tryOpen(path string, l layout) (*segment, error) {
	mem, err := shmfile.Open(path, l.size())
	if err != nil {
		return nil, err
	}
	s := &segment{layout: l, mem: mem, path: path}
	if s.u64(offMagic).Load() != magic {
		s.unmap()
		return nil, shmfile.ErrNotYet
	}
	if int(s.u32(offLocal).Load()) != l.n || int(s.u64(offRing).Load()) != l.ringSize {
		s.unmap()
		return nil, fmt.Errorf("shared segment %s: made for %d processes with %d-byte rings, expected %d and %d (do the processes of the node disagree on the rpi parameters?)",
			path, s.u32(offLocal).Load(), s.u64(offRing).Load(), l.n, l.ringSize)
	}
	return s, nil
}

// attached counts this process in; the node's last process to attach
// removes the segment's name, so nothing is left behind whatever happens
// to the processes afterwards.
func (s *segment) attached() error {
	if int(s.u32(offAttach).Add(1)) == s.n {
		if err := unix.Unlink(s.path); err != nil && err != unix.ENOENT {
			return fmt.Errorf("remove shared segment's name %s: %w", s.path, err)
		}
	}
	return nil
}

func (s *segment) unmap() error {
	if s.mem == nil {
		return nil
	}
	err := unix.Munmap(s.mem)
	s.mem = nil
	return err
}
