package core

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/libmpi/rpi"
)

// gatherLink is a socket link that gathers and scatters layouts itself
// (writev and readv of at most 512 pieces, so long layouts take several
// calls).
type gatherLink struct {
	sockLink
	calls *atomic.Int64
}

func (l *gatherLink) WriteGather(hdr []byte, c *rpi.Cursor, n int) (int, error) {
	l.calls.Add(1)
	var bufs [][]byte
	if len(hdr) > 0 {
		bufs = append(bufs, hdr)
	}
	from, m := *c, 0
	for len(bufs) < 512 {
		p := c.Next(n - m)
		if p == nil {
			break
		}
		bufs, m = append(bufs, p), m+len(p)
	}
	if len(bufs) == 0 {
		return 0, nil
	}
	w, err := unix.Writev(l.fd, bufs)
	if err == unix.EAGAIN {
		w, err = 0, nil
	}
	if took := max(w-len(hdr), 0); took < m {
		*c = from
		c.Skip(took)
	}
	return w, err
}

func (l *gatherLink) ReadScatter(c *rpi.Cursor, n int) (int, error) {
	l.calls.Add(1)
	var bufs [][]byte
	from, m := *c, 0
	for len(bufs) < 512 {
		p := c.Next(n - m)
		if p == nil {
			break
		}
		bufs, m = append(bufs, p), m+len(p)
	}
	r, err := unix.Readv(l.fd, bufs)
	if err == unix.EAGAIN {
		r, err = 0, nil
	} else if err == nil && r == 0 && m > 0 {
		err = io.EOF
	}
	if r < m {
		*c = from
		c.Skip(r)
	}
	return r, err
}

// layoutLink is a writingLink whose single copies take layouts (piece by
// piece, in this process's own memory).
type layoutLink struct {
	writingLink
	calls *atomic.Int64
}

func (l *layoutLink) remoteLayout(c *rpi.Cursor, n int, addr uint64, call func(int, []unix.Iovec, []unix.RemoteIovec, uint) (int, error)) error {
	l.calls.Add(1)
	for done := 0; done < n; {
		var lv []unix.Iovec
		m := 0
		for len(lv) < 512 {
			p := c.Next(n - done - m)
			if p == nil {
				break
			}
			v := unix.Iovec{Base: &p[0]}
			v.SetLen(len(p))
			lv, m = append(lv, v), m+len(p)
		}
		if m == 0 {
			return errors.New("layout too short")
		}
		rv := []unix.RemoteIovec{{Base: uintptr(addr) + uintptr(done), Len: m}}
		if k, err := call(os.Getpid(), lv, rv, 0); err != nil || k != m {
			return fmt.Errorf("moved %d of %d: %v", k, m, err)
		}
		done += m
	}
	return nil
}

func (l *layoutLink) ReadRemoteLayout(c *rpi.Cursor, n int, addr uint64) error {
	return l.remoteLayout(c, n, addr, unix.ProcessVMReadv)
}

func (l *layoutLink) WriteRemoteLayout(c *rpi.Cursor, n int, addr uint64) error {
	return l.remoteLayout(c, n, addr, unix.ProcessVMWritev)
}

// shape is an element layout: blocks, extent and size; the reverse
// shapes run backwards (negative extent) from the buffer's end.
type shape struct {
	name    string
	blocks  []rpi.Block
	extent  int
	reverse bool
}

func (s shape) size() int {
	n := 0
	for _, b := range s.blocks {
		n += b.Len
	}
	return n
}

// layout is count elements of s over a new buffer, or nil for the flat
// shape (a plain buffer instead).
func (s shape) layout(total int) *rpi.Layout {
	if s.blocks == nil {
		return nil
	}
	count := total / s.size()
	l := &rpi.Layout{Count: count, Extent: s.extent, Size: s.size(), Blocks: s.blocks}
	span := 0
	for _, b := range s.blocks {
		span = max(span, b.Off+b.Len)
	}
	if count > 0 {
		span += (count - 1) * s.extent
	}
	if s.reverse {
		span = count * -s.extent
		l.Blocks = nil
		for _, b := range s.blocks {
			l.Blocks = append(l.Blocks, rpi.Block{Off: b.Off + (count-1)*-s.extent, Len: b.Len})
		}
	}
	l.Base = make([]byte, span+3)
	return l
}

var (
	flat    = shape{name: "flat"}
	gaps    = shape{name: "gaps", blocks: []rpi.Block{{Off: 0, Len: 5}, {Off: 8, Len: 3}}, extent: 16}
	overlap = shape{name: "overlap", blocks: []rpi.Block{{Off: 2, Len: 6}, {Off: 0, Len: 6}}, extent: 8}
	tiny    = shape{name: "tiny", blocks: []rpi.Block{{Off: 0, Len: 1}}, extent: 2}
	reverse = shape{name: "reverse", blocks: []rpi.Block{{Off: 4, Len: 4}}, extent: -8, reverse: true}
)

// refPack is a layout's bytes, packed naively.
func refPack(l *rpi.Layout) []byte {
	var out []byte
	for i := 0; i < l.Count; i++ {
		for _, b := range l.Blocks {
			at := i*l.Extent + b.Off
			out = append(out, l.Base[at:at+b.Len]...)
		}
	}
	return out
}

// refUnpack is dst's base as it is after the bytes of in were scattered
// into it naively.
func refUnpack(l *rpi.Layout, in []byte) []byte {
	out := bytes.Clone(l.Base)
	for i := 0; i < l.Count && len(in) > 0; i++ {
		for _, b := range l.Blocks {
			at := i*l.Extent + b.Off
			in = in[copy(out[at:at+b.Len], in):]
		}
	}
	return out
}

// data is a send's or receive's buffer: flat bytes or a layout.
type data struct {
	buf []byte
	l   *rpi.Layout
}

func newData(s shape, total int, fill byte) data {
	d := data{l: s.layout(total)}
	b := &d.buf
	if d.l != nil {
		b = &d.l.Base
	} else {
		d.buf = make([]byte, total)
	}
	for i := range *b {
		(*b)[i] = fill + byte(i*7)
	}
	return d
}

func (d data) bytes() []byte {
	if d.l != nil {
		return refPack(d.l)
	}
	return d.buf
}

func (d data) mem() []byte {
	if d.l != nil {
		return d.l.Base
	}
	return d.buf
}

// want is what the receive's memory holds once msg is received.
func (d data) want(msg []byte) []byte {
	if d.l != nil {
		return refUnpack(d.l, msg)
	}
	out := bytes.Clone(d.buf)
	copy(out, msg)
	return out
}

func (d data) request(e *Engine, r *Request) *Request {
	if d.l != nil {
		r.SetLayout(d.l)
	}
	return r
}

// layoutJob is two engines over links of the kind named, and a counter
// of the calls that moved layouts themselves.
func layoutJob(t *testing.T, kind string) ([]*Engine, *atomic.Int64) {
	fds := sockPair(t)
	calls, reads, writes := new(atomic.Int64), new(int), new(int)
	var a, b rpi.Link
	switch kind {
	case "sock":
		a, b = &sockLink{fds[0]}, &sockLink{fds[1]}
	case "gather":
		a, b = &gatherLink{sockLink{fds[0]}, calls}, &gatherLink{sockLink{fds[1]}, calls}
	case "direct":
		a = &writingLink{directLink{sockLink{fds[0]}, false, reads}, false, writes}
		b = &writingLink{directLink{sockLink{fds[1]}, false, reads}, false, writes}
	case "layout":
		a = &layoutLink{writingLink{directLink{sockLink{fds[0]}, false, reads}, false, writes}, calls}
		b = &layoutLink{writingLink{directLink{sockLink{fds[1]}, false, reads}, false, writes}, calls}
	case "mem":
		unix.Close(fds[0])
		unix.Close(fds[1])
		a, b = memPair(1<<16, 64)
	}
	return pairEngines(t, a, b), calls
}

// TestLayouts sends between flat buffers and layouts of every shape, over
// links that gather and scatter themselves, that cannot, that copy
// single messages directly (with and without layouts), and that show
// small writes in place, eager, rendezvous and direct: the receiver's
// memory must hold what a naive pack and unpack give, and truncation be
// reported.
func TestLayouts(t *testing.T) {
	shapes := []shape{flat, gaps, overlap, tiny, reverse}
	for _, kind := range []string{"sock", "gather", "direct", "layout", "mem"} {
		es, calls := layoutJob(t, kind)
		i := 0
		for _, total := range []int{0, 480, 48000, 120000} {
			if total > 100000 && kind != "direct" && kind != "layout" {
				continue // only the direct links treat long messages differently
			}
			for _, ss := range shapes {
				for _, rs := range shapes {
					if rs.name == overlap.name {
						continue // overlapping receive blocks are erroneous in MPI
					}
					// Standard and synchronous, posted early and late, in turn.
					i++
					mode, early := []SendMode{Standard, Sync}[i%2], i/2%2 == 0
					name := fmt.Sprintf("%s/%d/%s->%s/mode%d/early=%v", kind, total, ss.name, rs.name, mode, early)
					layoutCase(t, es, name, ss, rs, total, total, mode, early)
					// Truncated, and a receive longer than the message
					// (ending inside an element).
					layoutCase(t, es, fmt.Sprintf("%s/%d/%s->%s/truncated", kind, total, ss.name, rs.name), ss, rs, total, total/2, Standard, true)
					layoutCase(t, es, fmt.Sprintf("%s/%d/%s->%s/longer", kind, total, ss.name, rs.name), ss, rs, total, total*2, Standard, false)
				}
			}
		}
		if (kind == "gather" || kind == "layout") && calls.Load() == 0 {
			t.Errorf("%s: the links never moved a layout themselves", kind)
		}
	}
}

func layoutCase(t *testing.T, es []*Engine, name string, ss, rs shape, total, room int, mode SendMode, early bool) {
	t.Helper()
	// overlap's elements are 12 bytes, gaps' 8: keep totals whole for both.
	room -= room % 24
	src := newData(ss, total, 1)
	dst := newData(rs, room, 200)
	msg := src.bytes()
	want := dst.want(msg)
	var r *Request
	post := func() { r = dst.request(es[1], es[1].NewRecv(dst.buf, 0, 5, 0)); es[1].Start(r) }
	if early {
		post()
	}
	done := make(chan error, 1)
	go func() {
		s := src.request(es[0], es[0].NewSend(src.buf, 1, 1, 0, 5, 0, mode))
		es[0].Start(s)
		err := es[0].Wait(ctx(t), s)
		if err == nil {
			err = s.Status().Err
		}
		done <- err
	}()
	if !early {
		time.Sleep(time.Millisecond)
		post()
	}
	st := wait(t, es[1], r)
	if err := <-done; err != nil {
		t.Fatalf("%s: send: %v", name, err)
	}
	n := min(len(msg), dst.size())
	if truncated := len(msg) > dst.size(); truncated != errors.Is(st.Err, ErrTruncate) || (!truncated && st.Err != nil) {
		t.Fatalf("%s: status error %v (message %d bytes, room %d)", name, st.Err, len(msg), dst.size())
	}
	if st.Count != n || st.Source != 0 || st.Tag != 5 {
		t.Fatalf("%s: status %+v, want %d bytes", name, st, n)
	}
	if !bytes.Equal(dst.mem(), want) {
		t.Fatalf("%s: the receive's memory differs from a pack and unpack", name)
	}
}

func (d data) size() int {
	if d.l != nil {
		return d.l.Len()
	}
	return len(d.buf)
}

// TestLayoutSelf sends layouts to this process itself, matched at once
// and queued, standard and synchronous (a synchronous send queued keeps
// a packed copy and completes when matched).
func TestLayoutSelf(t *testing.T) {
	es := job(t, 1, 1024)
	e := es[0]
	for _, ss := range []shape{flat, gaps, overlap, tiny} {
		for _, rs := range []shape{flat, gaps, tiny, reverse} {
			for i, early := range []bool{true, false, true, false} {
				mode := []SendMode{Standard, Sync}[i/2]
				src, dst := newData(ss, 4800, 3), newData(rs, 4800, 90)
				msg, want := src.bytes(), dst.want(src.bytes())
				var r *Request
				post := func() { r = dst.request(e, e.NewRecv(dst.buf, 0, 1, 0)); e.Start(r) }
				if early {
					post()
				}
				s := src.request(e, e.NewSend(src.buf, 0, 0, 0, 1, 0, mode))
				e.Start(s)
				if !early {
					post()
				}
				st := wait(t, e, r)
				wait(t, e, s)
				if st.Err != nil || st.Count != len(msg) || !bytes.Equal(dst.mem(), want) {
					t.Fatalf("%s->%s mode %d early=%v: %+v", ss.name, rs.name, mode, early, st)
				}
			}
		}
	}
}
