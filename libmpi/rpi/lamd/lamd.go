// Package lamd is the lamd rpi module: point-to-point messages travel
// through the lamds as out-of-band messages, like LAM's lamd rpi. A send
// is done once the local lamd has taken it, whether or not the receiver is
// in an MPI call: progress is truly asynchronous, at the price of a trip
// through the lamds (one on a node, two between nodes) per message.
//
// Each process has a stream of its own to its lamd (rpi.OOBStream): the
// lamd writes each message for it to the stream as it arrives, and the
// process's posts leave without waiting for an answer. The MPI core polls
// the stream's descriptor like a socket's, so a process waiting for a
// message sleeps in poll(2) and the arrival itself wakes it; no goroutine
// and no timer stands in between.
package lamd

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/shared/buildinfo"
	"github.com/lamgo/lam/shared/ssi"
)

// msgType marks rpi traffic among a process's out-of-band messages (the
// wire-up uses other bits).
const msgType int32 = 16

// chunk bounds one out-of-band message.
const chunk = 1 << 20

// closeTimeout bounds how long Close waits for the lamd to take the
// posts still queued.
const closeTimeout = 10 * time.Second

// Module is the lamd rpi module.
type Module struct{}

func init() { rpi.Register(Module{}) }

// SSI describes the module.
func (Module) SSI() ssi.Info {
	return ssi.Info{Framework: ssi.RPI, Name: "lamd", API: ssi.APIVersion[ssi.RPI], Version: buildinfo.ModuleVersion, Priority: 20}
}

// Query: available wherever a lamd is.
func (m Module) Query(context.Context, *ssi.Settings) (int, error) { return m.SSI().Priority, nil }

// Open attaches this process's stream to the local lamd, before its
// address is published: a peer that knows the address can post to it.
func (Module) Open(ctx context.Context, job *rpi.Job) (rpi.Transport, error) {
	if job.OOB == nil {
		return nil, errors.New("rpi lamd: no lamd (the program was not started by mpirun)")
	}
	st, ok := job.OOB.(rpi.OOBStreamer)
	if !ok {
		return nil, errors.New("rpi lamd: the out-of-band channel has no streams")
	}
	s, err := st.OOBStream(ctx, msgType)
	if err != nil {
		return nil, fmt.Errorf("rpi lamd: %w", err)
	}
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		s.Close(0)
		return nil, fmt.Errorf("rpi lamd: %w", err)
	}
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, s.Fd(), &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(s.Fd())}); err != nil {
		unix.Close(ep)
		s.Close(0)
		return nil, fmt.Errorf("rpi lamd: %w", err)
	}
	t := &transport{job: job, s: s, ep: ep, head: make([]byte, 4, 64)}
	binary.BigEndian.PutUint32(t.head, uint32(job.Rank))
	return t, nil
}

// transport is one process's stream, shared by its links: every message
// starts with the sender's rank, which says whose link it is for.
type transport struct {
	job   *rpi.Job
	s     rpi.OOBStream
	links []*link
	// ep holds the stream's descriptor, watched for reading, and for
	// writing too (out) while a link waits to write: the core polls ep.
	ep  int
	out bool
	// begun is the link whose message the stream took part of; until
	// the stream has written the rest no other message goes. full: the
	// stream took nothing of the last message.
	begun *link
	full  bool
	// unreported counts the links whose message was written in full
	// but not yet reported to the core (link.done > 0).
	unreported int
	err        error // the stream failed
	// head is this rank, then (Write2) the header written with a body.
	head []byte
}

// Addr is where peers send: this process's node and pid.
func (t *transport) Addr() string { return fmt.Sprintf("lamd:%d:%d", t.job.Node, t.job.PID) }

// Short: messages up to this size are sent eagerly; through the lamds the
// rendezvous only saves buffering in them.
func (t *transport) Short() int { return 64 << 10 }

// Pace: a message reaches this process only after the lamd has run, so
// spinning or yielding would take the processor the lamd needs; a waiter
// polls once and sleeps in poll(2) until the arrival wakes it.
func (t *transport) Pace() rpi.Pace { return rpi.Pace{SpinPolls: 1, AtOnce: true} }

// Close writes the posts still queued (bounded) and closes the stream.
func (t *transport) Close() error {
	if t.s == nil {
		return nil
	}
	err := t.s.Close(closeTimeout)
	unix.Close(t.ep)
	t.s = nil
	if err != nil {
		return fmt.Errorf("rpi lamd: %w", err)
	}
	return nil
}

// Connect needs no connection: it only learns where each peer is.
func (t *transport) Connect(ctx context.Context, peers []rpi.Peer, _ []byte) ([]rpi.Link, error) {
	t.links = make([]*link, len(peers))
	out := make([]rpi.Link, len(peers))
	for _, p := range peers {
		if p.Rank == t.job.Rank || p.Addr == "" {
			continue
		}
		node, pid, err := parseAddr(p.Addr)
		if err != nil {
			return nil, fmt.Errorf("rank %d: %w", p.Rank, err)
		}
		l := &link{t: t, node: node, pid: pid}
		t.links[p.Rank] = l
		out[p.Rank] = l
	}
	return out, nil
}

func parseAddr(a string) (int32, int, error) {
	parts := strings.Split(a, ":")
	if len(parts) != 3 || parts[0] != "lamd" {
		return 0, 0, fmt.Errorf("bad lamd rpi address %q", a)
	}
	node, err1 := strconv.ParseInt(parts[1], 10, 32)
	pid, err2 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || node < 0 || pid <= 0 {
		return 0, 0, fmt.Errorf("bad lamd rpi address %q", a)
	}
	return int32(node), pid, nil
}

// post sends head then data, which carry count bytes of l's stream, to
// l's process, and returns how many of them the link may report written.
// A message the stream took part of counts as written only once the rest
// is: until then its link's writes return 0, and once it is, its link's
// next write (the same bytes again, as the core retries) returns count.
func (t *transport) post(l *link, head, data []byte, count int) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	if !t.flush() {
		return 0, t.err
	}
	if l.done > 0 {
		n := l.done
		l.done = 0
		t.unreported--
		t.watchOut()
		return n, nil
	}
	ok, err := t.s.Post(l.node, l.pid, head, data)
	switch {
	case err != nil:
		t.err = err
		return 0, err
	case ok:
		t.full = false
		t.watchOut()
		return count, nil
	case t.s.Pending():
		t.begun, l.done = l, -count
	default:
		t.full = true
	}
	t.watchOut()
	return 0, nil
}

// flush writes the rest of a message begun, and reports whether the
// stream is free for another.
func (t *transport) flush() bool {
	if t.begun == nil {
		return true
	}
	done, err := t.s.Flush()
	if err != nil {
		t.err = err
		return false
	}
	if !done {
		return false
	}
	t.begun.done = -t.begun.done
	t.begun = nil
	t.unreported++
	t.watchOut()
	return true
}

// watchOut has ep watch for writing while a link waits to write: the
// rest of a message begun, a full stream, or a link whose message was
// written in full but not yet reported.
func (t *transport) watchOut() {
	want := t.begun != nil || t.full || t.unreported > 0
	if want == t.out {
		return
	}
	ev := uint32(unix.EPOLLIN)
	if want {
		ev |= unix.EPOLLOUT
	}
	fd := t.s.Fd()
	if err := unix.EpollCtl(t.ep, unix.EPOLL_CTL_MOD, fd, &unix.EpollEvent{Events: ev, Fd: int32(fd)}); err == nil {
		t.out = want
	}
}

// pump writes what waits, then files every message that came under its
// sender's link.
func (t *transport) pump() {
	if t.err != nil || !t.flush() && t.err != nil {
		return
	}
	for {
		data, ok, err := t.s.Next()
		if err != nil {
			t.err = err
			return
		}
		if !ok {
			return
		}
		if len(data) < 4 {
			continue
		}
		from := int(binary.BigEndian.Uint32(data))
		if from < 0 || from >= len(t.links) || t.links[from] == nil {
			continue
		}
		l := t.links[from]
		l.in = append(l.in, data[4:]...)
	}
}

// link is the stream to one peer, carried in out-of-band messages that
// start with the sender's rank.
type link struct {
	t      *transport
	node   int32
	pid    int
	in     []byte // in[off:] received, not yet read
	off    int
	closed bool
	// done counts the bytes of this link's message the stream took part
	// of (negative) or has written in full (positive, not yet reported).
	done int
}

// Fd is the transport's epoll descriptor: readable when a message came
// or queued posts can be written.
func (l *link) Fd() int { return l.t.ep }

func (l *link) Close() error {
	l.closed = true
	return nil
}

// Write hands up to one chunk to the local lamd. A full stream is "not
// now", not an error.
func (l *link) Write(p []byte) (int, error) {
	if l.closed {
		return 0, errors.New("link closed")
	}
	n := min(len(p), chunk)
	return l.t.post(l, l.t.head[:4], p[:n], n)
}

// Write2 sends a frame's header and (up to a chunk of) its body in one
// message.
func (l *link) Write2(a, b []byte) (int, error) {
	if l.closed {
		return 0, errors.New("link closed")
	}
	if len(a) > chunk {
		return l.Write(a)
	}
	t := l.t
	t.head = append(t.head[:4], a...)
	n := min(len(b), chunk-len(a))
	return t.post(l, t.head, b[:n], len(a)+n)
}

// Read returns the bytes received from this peer.
func (l *link) Read(p []byte) (int, error) {
	if l.off == len(l.in) {
		l.in, l.off = l.in[:0], 0
		l.t.pump()
	}
	if l.off == len(l.in) {
		return 0, l.t.err
	}
	n := copy(p, l.in[l.off:])
	l.off += n
	return n, nil
}
