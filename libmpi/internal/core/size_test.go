package core

import (
	"bytes"
	"testing"
)

// A receive with a Size function gets a buffer of each message's size,
// in every path a message can match it by: posted before an eager or a
// rendezvous message from a peer, posted after one (unexpected), and a
// message to self; receives match in the order they were posted.
func TestSizedReceive(t *testing.T) {
	const short = 1024
	es := job(t, 2, short)
	sized := func(e *Engine, src, tag int) *Request {
		r := e.NewRecv(nil, src, tag, 0)
		r.Size = func(n int) []byte { return make([]byte, n) }
		e.Start(r)
		return r
	}
	msg := func(n int, b byte) []byte { return bytes.Repeat([]byte{b}, n) }
	for _, n := range []int{0, 10, short, short + 1, 200000} {
		// Posted first: two sized receives, then a fixed one.
		r1, r2 := sized(es[0], 1, 5), sized(es[0], 1, 5)
		fixed := make([]byte, n+2)
		r3 := irecv(es[0], fixed, 1, 5)
		go func() {
			for i, b := range []byte{1, 2, 3} {
				send(t, es[1], msg(n+i, b), 0, 5, Standard)
			}
		}()
		for i, r := range []*Request{r1, r2} {
			s := wait(t, es[0], r)
			if s.Err != nil || s.Count != n+i || !bytes.Equal(r.Buffer(), msg(n+i, byte(i+1))) {
				t.Fatalf("%d bytes, receive %d: %+v, %d bytes", n, i, s, len(r.Buffer()))
			}
		}
		if s := wait(t, es[0], r3); s.Err != nil || !bytes.Equal(fixed, msg(n+2, 3)) {
			t.Fatalf("%d bytes, fixed receive: %+v", n, s)
		}
		// Unexpected: the message is there before the receive.
		go send(t, es[1], msg(n, 9), 0, 6, Standard)
		for !es[0].probeOK(1, 6) {
			es[0].Progress()
		}
		r := sized(es[0], 1, 6)
		if s := wait(t, es[0], r); s.Err != nil || !bytes.Equal(r.Buffer(), msg(n, 9)) {
			t.Fatalf("%d bytes, unexpected: %+v", n, s)
		}
		// To self, both orders.
		r = sized(es[0], 0, 7)
		send(t, es[0], msg(n, 4), 0, 7, Standard)
		send(t, es[0], msg(n, 8), 0, 8, Standard)
		if r := sized(es[0], 0, 8); !bytes.Equal(r.Buffer(), msg(n, 8)) {
			t.Fatalf("%d bytes, to self, unexpected: %d bytes", n, len(r.Buffer()))
		}
		if s := wait(t, es[0], r); s.Err != nil || !bytes.Equal(r.Buffer(), msg(n, 4)) {
			t.Fatalf("%d bytes, to self: %+v", n, s)
		}
	}
}

// probeOK reports whether a message from source with tag has arrived.
func (e *Engine) probeOK(source, tag int) bool {
	_, ok := e.Iprobe(0, source, tag)
	return ok
}
