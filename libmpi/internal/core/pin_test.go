package core

import (
	"bytes"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/libmpi/rpi"
)

// A buffer whose address goes to the peer is pinned while the peer may
// copy it, and unpinned when the request completes: a request used again
// for a second message pins again, and no pin outlives its request (the
// runtime panics when a Pinner with pins is collected).
func TestPinsReleased(t *testing.T) {
	for _, split := range []bool{false, true} {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			t.Fatal(err)
		}
		unix.SetNonblock(fds[0], true)
		unix.SetNonblock(fds[1], true)
		reads, writes := new(int), new(int)
		var a, b rpi.Link = &directLink{sockLink{fds[0]}, false, reads}, &directLink{sockLink{fds[1]}, false, reads}
		if split {
			a = &writingLink{directLink{sockLink{fds[0]}, false, reads}, false, writes}
			b = &writingLink{directLink{sockLink{fds[1]}, false, reads}, false, writes}
		}
		pace := rpi.Pace{SpinPolls: 16, Spin: 50 * time.Microsecond, Yield: 100 * time.Microsecond}
		es := []*Engine{
			New(Config{Rank: 0, Links: []rpi.Link{nil, a}, Short: 1024, Pace: pace}),
			New(Config{Rank: 1, Links: []rpi.Link{b, nil}, Short: 1024, Pace: pace}),
		}
		msg := bytes.Repeat([]byte("pinned"), 100000)
		buf := make([]byte, len(msg))
		var s, r Request
		for i := range 2 {
			es[1].InitRecv(&r, buf, 0, 5, 0)
			es[1].Start(&r)
			es[0].InitSend(&s, msg, 1, 1, 0, 5, 0, Standard)
			es[0].Start(&s)
			if !s.exposed() {
				t.Errorf("split=%v message %d: the sender's buffer went out unpinned", split, i)
			}
			done := make(chan struct{})
			go func() { wait(t, es[0], &s); close(done) }()
			st := wait(t, es[1], &r)
			<-done
			if st.Err != nil || !bytes.Equal(buf, msg) {
				t.Fatalf("split=%v message %d: %+v", split, i, st)
			}
			if s.exposed() || r.exposed() {
				t.Errorf("split=%v message %d: still pinned after completion (send %v, receive %v)", split, i, s.exposed(), r.exposed())
			}
		}
		if split && *writes == 0 {
			t.Error("no split copy")
		}
		// A send that no receive takes: Close drops it, and its pin.
		es[0].InitSend(&s, msg, 1, 1, 0, 6, 0, Standard)
		es[0].Start(&s)
		for _, e := range es {
			e.Close(t.Context())
		}
		if s.exposed() {
			t.Errorf("split=%v: a send dropped at Close is still pinned", split)
		}
	}
	runtime.GC()
	runtime.GC()
}
