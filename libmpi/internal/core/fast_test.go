package core

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/lamgo/lam/libmpi/rpi"
)

// chunks is one direction of a memLink: the writes in order, each kept
// whole as a shared-memory ring keeps them in its slots.
type chunks struct {
	mu    sync.Mutex
	q     [][]byte
	off   int // bytes of q[0] already read
	bytes int // bytes queued
	room  int // bytes the direction holds at most
}

// memLink is an in-memory link that shows small writes in place (Peeker)
// and takes only what fits in its room, so writes may be partial.
type memLink struct {
	in, out  *chunks
	inline   int // writes up to this long are shown in place
	consumed int // frames read in place
	peeked   []byte
}

func memPair(room, inline int) (*memLink, *memLink) {
	a, b := &chunks{room: room}, &chunks{room: room}
	return &memLink{in: a, out: b, inline: inline}, &memLink{in: b, out: a, inline: inline}
}

func (l *memLink) Fd() int      { return -1 }
func (l *memLink) Close() error { return nil }

func (l *memLink) Write(p []byte) (int, error) { return l.Write2(p, nil) }

func (l *memLink) Write2(a, b []byte) (int, error) {
	c := l.out
	c.mu.Lock()
	defer c.mu.Unlock()
	n := min(len(a)+len(b), c.room-c.bytes)
	if n <= 0 {
		return 0, nil
	}
	chunk := append(append([]byte(nil), a...), b...)[:n]
	c.q = append(c.q, chunk)
	c.bytes += n
	return n, nil
}

func (l *memLink) Read(p []byte) (int, error) {
	c := l.in
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for n < len(p) && len(c.q) > 0 {
		k := copy(p[n:], c.q[0][c.off:])
		n += k
		c.off += k
		if c.off == len(c.q[0]) {
			c.bytes -= len(c.q[0])
			c.q, c.off = c.q[1:], 0
		}
	}
	return n, nil
}

func (l *memLink) Peek() ([]byte, bool, error) {
	c := l.in
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.q) == 0 {
		return nil, false, nil
	}
	if len(c.q[0]) > l.inline {
		return nil, true, nil
	}
	// A copy, so that a test sees the core keep to the contract: the
	// bytes are dead after Consume.
	l.peeked = append(l.peeked[:0], c.q[0][c.off:]...)
	return l.peeked, true, nil
}

func (l *memLink) Consume() {
	c := l.in
	c.mu.Lock()
	defer c.mu.Unlock()
	c.bytes -= len(c.q[0])
	c.q, c.off = c.q[1:], 0
	clear(l.peeked)
	l.consumed++
}

// memJob is two engines joined by a memLink.
func memJob(t *testing.T, room, inline, short int) ([]*Engine, [2]*memLink) {
	a, b := memPair(room, inline)
	es := []*Engine{
		New(Config{Rank: 0, Links: []rpi.Link{nil, a}, Short: short, Pace: rpi.Pace{SpinPolls: 16}}),
		New(Config{Rank: 1, Links: []rpi.Link{b, nil}, Short: short, Pace: rpi.Pace{SpinPolls: 16}}),
	}
	return es, [2]*memLink{a, b}
}

// TestInPlace sends frames of every kind over a link that shows small
// writes in place: those read in place and those read through the
// staging buffer must give the same results.
func TestInPlace(t *testing.T) {
	for _, inline := range []int{0, 56, 1 << 20} {
		t.Run(fmt.Sprint(inline), func(t *testing.T) {
			es, links := memJob(t, 1<<20, inline, 1024)
			var want [][]byte
			for i, size := range []int{0, 1, 16, 17, 100, 1024, 1025, 5000} {
				want = append(want, bytes.Repeat([]byte{byte(i + 1)}, size))
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				for i, m := range want {
					mode := Standard
					if i%3 == 1 {
						mode = Sync
					}
					send(t, es[0], m, 1, i, mode)
				}
			}()
			// Every other receive is posted late, so those messages
			// wait as unexpected ones; the last is truncated.
			for i, m := range want {
				size := len(m)
				if i == len(want)-1 {
					size /= 2
				}
				buf := make([]byte, size)
				r := irecv(es[1], buf, 0, i)
				st := wait(t, es[1], r)
				if i == len(want)-1 {
					if st.Err != ErrTruncate || st.Count != size {
						t.Errorf("truncated receive: %+v", st)
					}
					continue
				}
				if st.Err != nil || st.Count != len(m) || st.Tag != i || !bytes.Equal(buf, m) {
					t.Errorf("message %d (%d bytes): %+v, %v", i, len(m), st, buf)
				}
			}
			<-done
			if inline > 0 && links[1].consumed == 0 {
				t.Error("no frame was read in place")
			}
			if inline == 0 && links[1].consumed != 0 {
				t.Error("a frame too long to show was read in place")
			}
		})
	}
}

func TestSendNow(t *testing.T) {
	es, links := memJob(t, 1<<20, 56, 1024)
	msg := []byte("hello")
	for _, tc := range []struct {
		name string
		buf  []byte
		dest int
		want bool
	}{
		{"to another process", msg, 1, true},
		{"empty", nil, 1, true},
		{"to self", msg, 0, false},
		{"to ProcNull", msg, ProcNull, false},
		{"to a rank out of range", msg, 2, false},
		{"longer than eager", make([]byte, 1025), 1, false},
	} {
		before := len(links[1].in.q)
		if got := es[0].SendNow(tc.buf, tc.dest, 0, 3, 0); got != tc.want {
			t.Errorf("%s: SendNow = %v, want %v", tc.name, got, tc.want)
		}
		if wrote := len(links[1].in.q) != before; wrote != tc.want {
			t.Errorf("%s: wrote %v, want %v", tc.name, wrote, tc.want)
		}
	}
	for _, want := range [][]byte{msg, {}} {
		buf := make([]byte, 8)
		st := wait(t, es[1], irecv(es[1], buf, 0, 3))
		if st.Count != len(want) || !bytes.Equal(buf[:st.Count], want) {
			t.Errorf("received %+v %q, want %q", st, buf[:st.Count], want)
		}
	}
}

// TestSendNowPartial: a link that takes part of the frame leaves the rest
// queued with a copy of the body, so the caller may reuse its buffer at
// once; nothing may overtake it, and a link that takes nothing sends
// nothing.
func TestSendNowPartial(t *testing.T) {
	es, _ := memJob(t, 50, 56, 1024)
	msg := bytes.Repeat([]byte{7}, 30) // 70 bytes with the header: 50 fit
	if !es[0].SendNow(msg, 1, 0, 1, 0) {
		t.Fatal("a partly written frame was not sent")
	}
	clear(msg)
	if es[0].SendNow([]byte{1}, 1, 0, 2, 0) {
		t.Error("a message overtook one still queued")
	}
	// The sender's engine moves the rest when its process makes
	// progress (here: finalizes).
	go es[0].Close(ctx(t))
	buf := make([]byte, 30)
	st := wait(t, es[1], irecv(es[1], buf, 0, 1))
	if st.Count != 30 || !bytes.Equal(buf, bytes.Repeat([]byte{7}, 30)) {
		t.Errorf("received %+v %v", st, buf)
	}
}

// TestSendNowFull: over a link that takes nothing now, SendNow sends
// nothing.
func TestSendNowFull(t *testing.T) {
	es, links := memJob(t, 50, 56, 1024)
	links[0].Write(make([]byte, 50))
	if es[0].SendNow([]byte{1}, 1, 0, 2, 0) {
		t.Error("a send over a full link reported sent")
	}
	if len(links[0].out.q) != 1 || es[0].peers[1].pending() {
		t.Error("a send over a full link wrote or queued something")
	}
}

// TestRecvNow: the blocking receive reports the message's source, tag and
// length, a truncation, and ProcNull, and reuses its request safely when
// receives run one after another and side by side.
func TestRecvNow(t *testing.T) {
	es, _ := memJob(t, 1<<20, 56, 1024)
	c := ctx(t)
	for i, size := range []int{0, 1, 16, 100, 1024, 5000} {
		msg := bytes.Repeat([]byte{byte(i + 1)}, size)
		go send(t, es[0], msg, 1, 10+i, Standard)
		buf := make([]byte, 5000)
		src, tag, n, err := es[1].RecvNow(c, buf, AnySource, AnyTag, 0, nil)
		if err != nil || src != 0 || tag != 10+i || n != size || !bytes.Equal(buf[:n], msg) {
			t.Errorf("%d bytes: source %d tag %d count %d err %v", size, src, tag, n, err)
		}
	}
	go send(t, es[0], make([]byte, 10), 1, 3, Standard)
	if _, _, n, err := es[1].RecvNow(c, make([]byte, 4), 0, 3, 0, nil); err != ErrTruncate || n != 4 {
		t.Errorf("truncated: count %d err %v", n, err)
	}
	if src, tag, n, err := es[1].RecvNow(c, nil, ProcNull, 3, 0, nil); err != nil || src != ProcNull || tag != AnyTag || n != 0 {
		t.Errorf("ProcNull: source %d tag %d count %d err %v", src, tag, n, err)
	}
	// Receives side by side: each gets its own message.
	const k = 8
	var wg sync.WaitGroup
	got := make([]int, k)
	for i := range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 1)
			_, _, _, err := es[1].RecvNow(c, buf, 0, 100+i, 0, nil)
			if err != nil {
				t.Error(err)
			}
			got[i] = int(buf[0])
		}()
	}
	for i := range k {
		send(t, es[0], []byte{byte(i + 1)}, 1, 100+i, Standard)
	}
	wg.Wait()
	for i, v := range got {
		if v != i+1 {
			t.Errorf("receive %d got %d", i, v)
		}
	}
}
