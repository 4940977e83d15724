//go:build ofi && cgo

package ofi

import (
	"errors"
	"fmt"
	"net"
	"runtime"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Long messages by remote reads. The MPI core sends a long message's
// buffer address in its rendezvous message when the receiver may read
// it itself (rpi.RemoteReader); over a fabric the receiver also needs the
// key of a registration of that buffer. So the core first asks the
// sender's link to expose the buffer (rpi.Exposer): the link registers
// it through the registration cache and sends a key message, numbered
// with the stream's data messages so that the receiver's link has taken
// it before the core reads the rendezvous message after it. The
// receiver's core then calls ReadRemote, which reads the buffer with
// fi_read straight into the receive buffer: one copy, made by the
// provider, where the stream made two and sent the message in pieces
// through the credits. The sender's buffer is released when the core
// says it is done with it (Unexpose, once the receiver acknowledged).

// keyTable is how many of a peer's key messages a link remembers: the
// buffers of the long messages it sent that this process has not read
// yet. A message whose key was forgotten comes through the stream (the
// core asks for it when a read fails).
const keyTable = 64

// errNoKey: a read of a buffer the peer did not expose.
var errNoKey = errors.New("the peer did not expose that memory for reading")

// readTimeout bounds a remote read: a peer that does not serve it (its
// provider makes progress only while it calls it, or its background
// goroutine does) for this long is taken for dead.
const readTimeout = time.Minute

// cachedRegions is how many unused registrations the cache keeps. The
// software providers (tcp, shm) register addresses, not pages, so a
// registration may outlive the memory's use; a hardware provider pins
// the pages, which the Go runtime may give back to the kernel and map
// anew once the buffer is garbage, so its registrations are made per
// message and not kept.
func cachedRegions(prov string) int {
	core, _, _ := strings.Cut(prov, ";")
	if softwareProviders[core] {
		return 64
	}
	return 0
}

// Expose registers buf for the peer's reads and sends it the key, ahead
// of the rendezvous message the core writes next. It reports false when
// the provider cannot read remote memory, or not now (no credit, or a
// registration refused): the message then streams.
func (l *link) Expose(buf []byte) bool {
	t := l.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rc == nil || l.closed || l.dead != nil || l.eof || len(buf) == 0 {
		return false
	}
	if l.credits < 2 { // data's rule: the last credit returns credits
		t.progress()
		if l.credits < 2 {
			return false
		}
	}
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	r, err := t.rc.acquire(addr, uintptr(len(buf)))
	if err != nil {
		return false
	}
	k := keyMsg{addr: uint64(addr), len: uint64(len(buf)), raddr: uint64(addr), key: r.key}
	if !t.fb.virtAddr() {
		k.raddr = uint64(addr - r.start)
	}
	var p [keySize]byte
	k.put(p[:])
	h := header{kind: kindKey, credits: uint16(min(l.owed, maxCredits16)), from: uint32(t.job.Rank), seq: l.sendSeq}
	sent, err := l.send(h, p[:], nil, true)
	if err != nil {
		l.die(err)
	}
	if !sent {
		t.rc.release(r)
		return false
	}
	l.sendSeq++
	t.sent.Store(true)
	if l.exposed == nil {
		l.exposed = map[uintptr][]exposure{}
	}
	l.exposed[addr] = append(l.exposed[addr], exposure{n: uintptr(len(buf)), r: r})
	return true
}

// Unexpose releases the registration Expose made for buf.
func (l *link) Unexpose(buf []byte) {
	t := l.t
	t.mu.Lock()
	defer t.mu.Unlock()
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	rs := l.exposed[addr]
	if len(rs) == 0 || t.rc == nil {
		return
	}
	t.rc.release(rs[len(rs)-1].r)
	if rs = rs[:len(rs)-1]; len(rs) == 0 {
		delete(l.exposed, addr)
	} else {
		l.exposed[addr] = rs
	}
}

// learn takes a key message's payload. The caller holds mu.
func (l *link) learn(p []byte) {
	k, err := parseKey(p)
	if err != nil {
		l.die(fmt.Errorf("%w: rank %d: %w", errProtocol, l.rank, err))
		return
	}
	l.keys[l.nkeys%keyTable] = k
	l.nkeys++
}

// key finds the newest key message for a buffer that holds [addr, +n).
// The caller holds mu.
func (l *link) key(addr uint64, n int) (keyMsg, bool) {
	for i := l.nkeys - 1; i >= 0 && i >= l.nkeys-keyTable; i-- {
		if k := l.keys[i%keyTable]; k.holds(addr, n) {
			return k, true
		}
	}
	return keyMsg{}, false
}

// SingleCopy: every message beyond the eager limit is read remotely
// where the provider can; elsewhere none is.
func (l *link) SingleCopy() int {
	if l.t.rc == nil {
		return 1 << 62
	}
	return l.t.c.short
}

// ReadRemote reads len(dst) bytes at addr in the peer's memory, which
// the peer exposed, into dst: one fi_read at a time (the core reads one
// message at a time), waited for within readTimeout.
func (l *link) ReadRemote(dst []byte, addr uint64) error {
	if len(dst) == 0 {
		return nil
	}
	t := l.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rc == nil || l.closed {
		return errNoKey
	}
	k, ok := l.key(addr, len(dst))
	if !ok {
		return errNoKey
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(dst)))
	var desc unsafe.Pointer
	if t.fb.mrLocal() {
		r, err := t.rc.acquire(base, uintptr(len(dst)))
		if err != nil {
			return err
		}
		defer t.rc.release(r)
		desc = t.mrs.desc(r.key)
	}
	deadline := time.Now().Add(readTimeout)
	if t.pull {
		return l.pullRemote(dst, base, addr, desc, deadline)
	}
	raddr := k.raddr + (addr - k.addr)
	for off, most := 0, t.fb.maxMsg(); off < len(dst); {
		n := min(len(dst)-off, most)
		if err := l.submit(deadline, "fi_read", func() int {
			return t.fb.read(base+uintptr(off), n, desc, l.dest, raddr+uint64(off), k.key)
		}); err != nil {
			return err
		}
		t.reading = true
		if err := l.await(deadline, func() bool { return !t.reading }); err != nil {
			return err
		}
		if t.readErr != 0 {
			return fmt.Errorf("fi_read from rank %d: %s", l.rank, errText(t.readErr))
		}
		off += n
	}
	runtime.KeepAlive(dst)
	return nil
}

// submit calls op, which hands the provider an operation, until the
// provider takes it: while it answers again (busy), the link makes
// progress (await); any other answer is the error of the call named what.
// The caller holds mu.
func (l *link) submit(deadline time.Time, what string, op func() int) error {
	for {
		switch rc := op(); rc {
		case 0:
			return nil
		case again:
			if err := l.await(deadline, func() bool { return true }); err != nil {
				return err
			}
		default:
			return ferr(what, rc)
		}
	}
}

// await makes progress until done, the link fails, or the deadline,
// which fails the link. It spins a little, then yields the processor
// (the peer's provider may need it to serve the read), then sleeps on
// the completion queue. The caller holds mu; await lets it go while it
// yields and sleeps.
func (l *link) await(deadline time.Time, done func() bool) error {
	t := l.t
	for i := 0; ; i++ {
		t.progress()
		switch {
		case done():
			return nil
		case l.dead != nil:
			return l.dead
		case t.fb == nil:
			return net.ErrClosed
		}
		if i&63 == 63 && time.Now().After(deadline) {
			l.die(fmt.Errorf("%w: rank %d did not serve a remote read in %v", errPeerGone, l.rank, readTimeout))
			return l.dead
		}
		switch {
		case i < 64:
		case i < 4096:
			t.mu.Unlock()
			unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
			t.mu.Lock()
		default:
			token := t.Arm()
			t.mu.Unlock()
			t.Sleep(token, time.Millisecond)
			t.mu.Lock()
		}
	}
}

// closeRMA releases what the links still expose and deregisters every
// region, before the domain closes. The caller holds mu.
func (t *transport) closeRMA() {
	if t.rc == nil {
		return
	}
	for _, l := range t.links {
		if l == nil {
			continue
		}
		for _, rs := range l.exposed {
			for _, e := range rs {
				t.rc.release(e.r)
			}
		}
		l.exposed = nil
	}
	t.rc.close()
	t.rc = nil
}
