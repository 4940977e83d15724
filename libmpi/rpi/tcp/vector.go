package tcp

import (
	"io"
	"net"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/libmpi/rpi"
)

// iovMax is the most buffers one readv(2) or writev(2) takes (IOV_MAX).
const iovMax = 1024

// minPiece is the shortest mean piece of a layout worth its own entry in
// an I/O vector: moving 64 KiB over a socket pair (BenchmarkGather), 8-,
// 64- and 256-byte pieces went 3x faster copied through a buffer than by
// writev and readv, 1 KiB pieces about as fast, 4 KiB ones as fast.
const minPiece = 1024

// MinPiece: layouts of shorter pieces go through the core's buffers.
func (l *fdLink) MinPiece() int { return minPiece }

// vectors returns the link's I/O vector for layouts, made on first use
// (most links never move one).
func (l *fdLink) vectors() []unix.Iovec {
	if l.iovs == nil {
		l.iovs = new([iovMax]unix.Iovec)
	}
	return l.iovs[:]
}

// gather fills iov from k on with up to n bytes of a layout from c on,
// moving c past them; it returns the vector's length and the bytes.
func gather(iov []unix.Iovec, k int, c *rpi.Cursor, n int) (int, int) {
	m := 0
	for k < len(iov) && m < n {
		p := c.Next(n - m)
		if p == nil {
			break
		}
		iov[k].Base = &p[0]
		iov[k].SetLen(len(p))
		k++
		m += len(p)
	}
	return k, m
}

// vectorIO makes a raw readv or writev of iov[:k] (see io on why raw),
// retrying on EINTR; it reports EAGAIN (nothing can move now) as again.
func (l *fdLink) vectorIO(trap uintptr, iov []unix.Iovec, k int) (n int, again bool, err error) {
	for {
		n, _, errno := unix.RawSyscall(trap, uintptr(l.fd), uintptr(unsafe.Pointer(&iov[0])), uintptr(k))
		switch errno {
		case 0:
			return int(n), false, nil
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return 0, true, nil
		}
		return 0, false, errno
	}
}

// WriteGather writes hdr and up to n bytes of a layout from body on with
// one writev(2) of at most IOV_MAX pieces: the layout's blocks leave from
// where they lie.
func (l *fdLink) WriteGather(hdr []byte, body *rpi.Cursor, n int) (int, error) {
	if l.closed {
		return 0, net.ErrClosed
	}
	iov := l.vectors()
	k := 0
	if len(hdr) > 0 {
		iov[0].Base = &hdr[0]
		iov[0].SetLen(len(hdr))
		k = 1
	}
	from := *body
	k, m := gather(iov, k, body, n)
	if k == 0 {
		return 0, nil
	}
	w, _, err := l.vectorIO(unix.SYS_WRITEV, iov, k)
	if took := max(w-len(hdr), 0); took < m {
		*body = from
		body.Skip(took)
	}
	return w, err
}

// ReadScatter reads up to n bytes into a layout from body on with one
// readv(2) of at most IOV_MAX pieces: the bytes land in the blocks.
func (l *fdLink) ReadScatter(body *rpi.Cursor, n int) (int, error) {
	if l.closed {
		return 0, net.ErrClosed
	}
	iov := l.vectors()
	from := *body
	k, m := gather(iov, 0, body, n)
	if k == 0 {
		return 0, nil
	}
	long := l.longRead(m)
	r, again, err := l.vectorIO(unix.SYS_READV, iov, k)
	if long && r > 0 {
		l.quickAck = false
	}
	if r < m {
		*body = from
		body.Skip(r)
	}
	if r == 0 && !again && err == nil {
		return 0, io.EOF // room for m > 0 bytes and none came: the peer closed
	}
	return r, err
}
