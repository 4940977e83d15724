// Package tcp is the tcp rpi module: every pair of processes of a job is
// joined by one TCP connection, authenticated with the job's secret, used
// without blocking by the MPI core's progress engine. The crtcp module is
// the same transport with per-peer byte counters for checkpointing (New).
package tcp

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/shared/buildinfo"
	"github.com/lamgo/lam/shared/linknet"
	"github.com/lamgo/lam/shared/ssi"
)

// Module is a TCP rpi module.
type Module struct {
	name     string
	priority int
	counting bool
}

// New makes a TCP module named name; with counting, every link counts the
// bytes it sends and receives (see Counter).
func New(name string, priority int, counting bool) Module {
	return Module{name: name, priority: priority, counting: counting}
}

func init() { rpi.Register(New("tcp", 20, false)) }

// SSI describes the module.
func (m Module) SSI() ssi.Info {
	return ssi.Info{
		Framework: ssi.RPI, Name: m.name, API: ssi.APIVersion[ssi.RPI], Version: buildinfo.ModuleVersion, Priority: m.priority,
		Params: []ssi.Param{
			{Name: "short", Default: "65536", Type: ssi.Size, Help: "Largest message sent eagerly; larger ones wait for the receiver (rendezvous)"},
			{Name: "sockbuf", Default: "-1", Type: ssi.Int, Help: "Socket buffer size in bytes (-1: the system's)"},
		},
	}
}

// Query: TCP is available everywhere.
func (m Module) Query(context.Context, *ssi.Settings) (int, error) { return m.SSI().Priority, nil }

// Open listens for the peers' connections.
func (m Module) Open(ctx context.Context, job *rpi.Job) (rpi.Transport, error) {
	short, err := job.Settings.Size(ssi.FullName(ssi.RPI, m.name, "short"))
	if err != nil {
		return nil, err
	}
	sockbuf, err := job.Settings.Int(ssi.FullName(ssi.RPI, m.name, "sockbuf"))
	if err != nil {
		return nil, err
	}
	host := job.Host
	if host == "" {
		host = "127.0.0.1"
	}
	l, err := linknet.Listen(host) // TCP, or AF_VSOCK for a vsock:CID host
	if err != nil {
		return nil, fmt.Errorf("rpi tcp: listen: %w", err)
	}
	dl, ok := l.(deadlineListener)
	if !ok {
		l.Close()
		return nil, fmt.Errorf("rpi tcp: a %T listener has no deadline", l)
	}
	return &transport{job: job, l: dl, short: int(short), sockbuf: sockbuf, counting: m.counting}, nil
}

type transport struct {
	counting bool
	job      *rpi.Job
	secret   []byte
	peers    []rpi.Peer
	l        deadlineListener
	short    int
	sockbuf  int
}

// deadlineListener is a TCP or vsock listener.
type deadlineListener interface {
	net.Listener
	SetDeadline(time.Time) error
}

func (t *transport) Addr() string { return linknet.AddrString(t.l.Addr()) }
func (t *transport) Short() int   { return t.short }
func (t *transport) Close() error { return t.l.Close() }

// The connection handshake: the accepting process sends a random
// challenge; the dialling one answers with its rank and an HMAC of the
// challenge and both ranks under the job's secret; the acceptor proves it
// knows the secret the same way. Nobody without the secret can join.
const (
	magic     = "LAMGOTCP1"
	nonceSize = 16
	// handshakeTimeout bounds one peer's side of the handshake.
	handshakeTimeout = 10 * time.Second
)

func (t *transport) mac(nonce []byte, from, to int, role string) []byte {
	h := hmac.New(sha256.New, t.secret)
	h.Write([]byte(magic + role))
	h.Write(nonce)
	var b [8]byte
	binary.BigEndian.PutUint32(b[:4], uint32(from))
	binary.BigEndian.PutUint32(b[4:], uint32(to))
	h.Write(b[:])
	return h.Sum(nil)
}

// Connect links this process to every peer: it dials the higher ranks and
// accepts the lower ones, so no pair waits for the other.
func (t *transport) Connect(ctx context.Context, peers []rpi.Peer, secret []byte) ([]rpi.Link, error) {
	if len(secret) < 16 {
		return nil, errors.New("rpi tcp: the job's secret is missing or too short")
	}
	t.secret, t.peers = secret, peers
	if t.job.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.job.Timeout)
		defer cancel()
	}
	self := t.job.Rank
	links := make([]rpi.Link, len(peers))
	var mu sync.Mutex
	var first error
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
	}
	var wg sync.WaitGroup
	// Peers without an address are served by someone else.
	lower := 0
	for _, p := range peers[:self] {
		if p.Addr != "" {
			lower++
		}
	}
	// Accept from lower ranks. Every connection shakes hands in its own
	// goroutine, so a stranger that connects and stays silent delays nobody.
	if lower > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			actx, cancel := context.WithCancel(ctx)
			context.AfterFunc(actx, func() { t.l.SetDeadline(time.Now()) })
			acceptor := make(chan struct{})
			defer func() {
				// Stop accepting; the listener is reusable afterwards.
				cancel()
				<-acceptor
				t.l.SetDeadline(time.Time{})
			}()
			type result struct {
				rank int
				c    net.Conn
			}
			done := make(chan result)
			go func() {
				defer close(acceptor)
				for {
					c, err := t.l.Accept()
					if err != nil {
						return
					}
					go func() {
						c.SetDeadline(time.Now().Add(handshakeTimeout))
						rank, err := t.accept(c)
						if err != nil {
							c.Close() // a stranger or a bad peer
							return
						}
						select {
						case done <- result{rank, c}:
						case <-actx.Done():
							c.Close()
						}
					}()
				}
			}()
			for got := 0; got < lower; {
				var r result
				select {
				case r = <-done:
				case <-actx.Done():
					fail(fmt.Errorf("accept peers: %w", context.Cause(ctx)))
					return
				}
				l, err := t.link(r.c)
				if err != nil {
					fail(err)
					return
				}
				mu.Lock()
				dup := links[r.rank] != nil
				if !dup {
					links[r.rank] = l
				}
				mu.Unlock()
				if dup {
					l.Close()
					continue
				}
				got++
			}
		}()
	}
	// Dial higher ranks.
	for _, p := range peers[self+1:] {
		if p.Addr == "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := t.dial(ctx, p)
			if err != nil {
				fail(fmt.Errorf("connect to rank %d at %s: %w", p.Rank, p.Addr, err))
				return
			}
			l, err := t.link(c)
			if err != nil {
				fail(err)
				return
			}
			mu.Lock()
			links[p.Rank] = l
			mu.Unlock()
		}()
	}
	wg.Wait()
	if first != nil {
		for _, l := range links {
			if l != nil {
				l.Close()
			}
		}
		return nil, first
	}
	return links, nil
}

func (t *transport) dial(ctx context.Context, p rpi.Peer) (net.Conn, error) {
	var c net.Conn
	var err error
	for attempt := 0; ; attempt++ {
		c, err = linknet.Dial(ctx, p.Addr)
		if err == nil || ctx.Err() != nil || attempt > 50 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		return nil, err
	}
	tc := c
	if dl, ok := ctx.Deadline(); ok {
		tc.SetDeadline(dl)
	}
	nonce := make([]byte, nonceSize)
	if _, err := io.ReadFull(tc, nonce); err != nil {
		tc.Close()
		return nil, fmt.Errorf("handshake: %w", err)
	}
	msg := make([]byte, 4, 4+sha256.Size)
	binary.BigEndian.PutUint32(msg, uint32(t.job.Rank))
	msg = append(msg, t.mac(nonce, t.job.Rank, p.Rank, "dial")...)
	if _, err := tc.Write(msg); err != nil {
		tc.Close()
		return nil, fmt.Errorf("handshake: %w", err)
	}
	proof := make([]byte, sha256.Size)
	if _, err := io.ReadFull(tc, proof); err != nil {
		tc.Close()
		return nil, fmt.Errorf("handshake: rank %d refused us: %w", p.Rank, err)
	}
	if !hmac.Equal(proof, t.mac(nonce, p.Rank, t.job.Rank, "accept")) {
		tc.Close()
		return nil, errors.New("handshake: the peer does not hold the job's secret")
	}
	tc.SetDeadline(time.Time{})
	return tc, nil
}

// accept runs the acceptor's half of the handshake and returns the peer's
// rank.
func (t *transport) accept(c net.Conn) (int, error) {
	nonce := make([]byte, nonceSize)
	if _, err := rand.Read(nonce); err != nil {
		return 0, err
	}
	if _, err := c.Write(nonce); err != nil {
		return 0, err
	}
	msg := make([]byte, 4+sha256.Size)
	if _, err := io.ReadFull(c, msg); err != nil {
		return 0, err
	}
	rank := int(binary.BigEndian.Uint32(msg))
	if rank < 0 || rank >= t.job.Rank || t.peers[rank].Addr == "" {
		return 0, fmt.Errorf("peer claims rank %d", rank)
	}
	if !hmac.Equal(msg[4:], t.mac(nonce, rank, t.job.Rank, "dial")) {
		return 0, errors.New("peer does not hold the job's secret")
	}
	if _, err := c.Write(t.mac(nonce, t.job.Rank, rank, "accept")); err != nil {
		return 0, err
	}
	c.SetDeadline(time.Time{})
	return rank, nil
}

// link turns an authenticated connection into a non-blocking link on its
// own descriptor, outside Go's network poller.
func (t *transport) link(c net.Conn) (rpi.Link, error) {
	defer c.Close()
	if tc, ok := c.(*net.TCPConn); ok { // vsock has no Nagle and sizes its own buffers
		tc.SetNoDelay(true)
		if t.sockbuf > 0 {
			tc.SetReadBuffer(t.sockbuf)
			tc.SetWriteBuffer(t.sockbuf)
		}
	}
	f, err := linknet.File(c)
	if err != nil {
		return nil, fmt.Errorf("rpi tcp: %w", err)
	}
	fd, err := unix.Dup(int(f.Fd()))
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("rpi tcp: dup: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("rpi tcp: %w", err)
	}
	unix.CloseOnExec(fd)
	if t.counting {
		return &countingLink{fdLink: fdLink{fd: fd, short: t.short}}, nil
	}
	return &fdLink{fd: fd, short: t.short}, nil
}

// Counter is implemented by the links of a counting module (crtcp): the
// bytes sent to and received from the peer, which a checkpoint compares
// to know that nothing is in flight.
type Counter interface {
	Counters() (sent, received uint64)
}

// countingLink is an fdLink that counts what it moves. Only the progress
// engine (under its lock) reads and writes, so plain counters suffice.
type countingLink struct {
	fdLink
	sent, received uint64
}

func (l *countingLink) Read(p []byte) (int, error) {
	n, err := l.fdLink.Read(p)
	l.received += uint64(n)
	return n, err
}

func (l *countingLink) Write(p []byte) (int, error) {
	n, err := l.fdLink.Write(p)
	l.sent += uint64(n)
	return n, err
}

func (l *countingLink) Write2(a, b []byte) (int, error) {
	n, err := l.fdLink.Write2(a, b)
	l.sent += uint64(n)
	return n, err
}

func (l *countingLink) WriteGather(hdr []byte, body *rpi.Cursor, n int) (int, error) {
	w, err := l.fdLink.WriteGather(hdr, body, n)
	l.sent += uint64(w)
	return w, err
}

func (l *countingLink) ReadScatter(body *rpi.Cursor, n int) (int, error) {
	r, err := l.fdLink.ReadScatter(body, n)
	l.received += uint64(r)
	return r, err
}

// Counters returns the bytes moved so far.
func (l *countingLink) Counters() (sent, received uint64) { return l.sent, l.received }

// fdLink is a non-blocking socket.
type fdLink struct {
	fd       int
	short    int // the eager limit (rpi_tcp_short)
	closed   bool
	iov      [2]unix.Iovec
	iovs     *[iovMax]unix.Iovec // for layouts (vector.go), made on first use
	quickAck bool                // quick acknowledgements asked for since the last long read took bytes
}

// Write2 writes a and then b with one writev(2), without allocating.
func (l *fdLink) Write2(a, b []byte) (int, error) {
	if l.closed {
		return 0, net.ErrClosed
	}
	if len(a) == 0 || len(b) == 0 {
		return l.Write(append(a[:len(a):len(a)], b...))
	}
	l.iov[0].Base, l.iov[1].Base = &a[0], &b[0]
	l.iov[0].SetLen(len(a))
	l.iov[1].SetLen(len(b))
	for {
		n, _, errno := unix.RawSyscall(unix.SYS_WRITEV, uintptr(l.fd), uintptr(unsafe.Pointer(&l.iov[0])), 2)
		switch errno {
		case 0:
			return int(n), nil
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return 0, nil
		}
		return 0, errno
	}
}

func (l *fdLink) Fd() int { return l.fd }

// Short is the link's eager limit, tcp's own also when the links serve
// the peers on other nodes for a shared-memory module, whose limit the
// job's engine takes as its default (rpi.Shorter): with usysv's 8 KiB, a
// 32 KiB message between nodes waited for a round trip (rts, cts)
// before its body left.
func (l *fdLink) Short() int { return l.short }

// io reads or writes the socket.
//
// The socket is non-blocking, so a read or write cannot wait: it copies
// what the socket takes or holds (a few megabytes at most) and returns.
// It is made as a raw call, which skips the Go scheduler's system-call
// bookkeeping (entersyscall/exitsyscall). That bookkeeping cost a waiter
// spinning on read(2) on every poll (1-byte latency over loopback 6.8 ->
// 5.8 µs), and on a long copy it let the scheduler's monitor take the
// processor away mid-call and hand it back after, in context switches
// (4 MiB ping-pong: 9500 switches a second, against 170 for Open MPI).
//
// A closed link fails: its descriptor's number may belong to another
// file by now.
func (l *fdLink) io(trap uintptr, p []byte) (int, error) {
	if l.closed {
		return 0, net.ErrClosed
	}
	var base unsafe.Pointer
	if len(p) > 0 {
		base = unsafe.Pointer(&p[0])
	}
	n, _, errno := unix.RawSyscall(trap, uintptr(l.fd), uintptr(base), uintptr(len(p)))
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// quickAckRead is the length above which a read asks for quick
// acknowledgements first. A long read is a rendezvous body arriving; with
// delayed acknowledgements the sender, its window full, waited for them
// (over loopback, 4 MiB ping-pong 1.10x Open MPI's time -> 0.88x, 1 MiB
// 1.3-1.5x -> about 1.0x). Quick-ack mode does not last, so it is asked
// for again after every long read that took bytes (not on every poll of
// an empty socket).
const quickAckRead = 64 << 10

// longRead reports whether a read of n bytes is long, and asks for
// quick acknowledgements first if it is.
func (l *fdLink) longRead(n int) bool {
	long := n > quickAckRead
	if long && !l.quickAck {
		unix.SetsockoptInt(l.fd, unix.IPPROTO_TCP, unix.TCP_QUICKACK, 1)
		l.quickAck = true
	}
	return long
}

func (l *fdLink) Read(p []byte) (int, error) {
	long := l.longRead(len(p))
	for {
		n, err := l.io(unix.SYS_READ, p)
		if long && n > 0 {
			l.quickAck = false
		}
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return 0, nil
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (l *fdLink) Write(p []byte) (int, error) {
	for {
		n, err := l.io(unix.SYS_WRITE, p)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return 0, nil
		case err != nil:
			return 0, err
		}
		return n, nil
	}
}

func (l *fdLink) Close() error {
	if l.closed {
		return nil
	}
	l.closed = true
	return unix.Close(l.fd)
}
