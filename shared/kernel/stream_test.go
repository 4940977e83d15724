package kernel_test

import (
	"bytes"
	"encoding/binary"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lamgo/lam/shared/kernel/kerneltest"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/wire"
)

const streamType = 16

func attach(t *testing.T, u *kerneltest.Universe, node int, event int32) *lamclient.Stream {
	t.Helper()
	s, err := u.Client(t, node).DialStream(ctx(t), event, streamType)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(time.Second) })
	return s
}

// next waits (bounded) for the stream's next message.
func next(t *testing.T, s *lamclient.Stream) []byte {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		data, ok, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			return data
		}
		unix.Poll([]unix.PollFd{{Fd: int32(s.Fd()), Events: unix.POLLIN}}, 100)
	}
	t.Fatal("no message within 10s")
	return nil
}

// post posts (bounded) a whole message.
func post(t *testing.T, s *lamclient.Stream, node int, event int32, data []byte) {
	t.Helper()
	if !tryPost(t, s, node, event, data, 10*time.Second) {
		t.Fatalf("the stream took no message to n%d within 10s", node)
	}
	for deadline := time.Now().Add(10 * time.Second); s.Pending(); {
		if _, err := s.Flush(); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("the stream did not take the rest of a message within 10s")
		}
		unix.Poll([]unix.PollFd{{Fd: int32(s.Fd()), Events: unix.POLLOUT}}, 10)
	}
}

// tryPost begins posting a message within d (the socket takes part of
// it at least; the rest of one begun before goes first); it reports false
// if the stream took none.
func tryPost(t *testing.T, s *lamclient.Stream, node int, event int32, data []byte, d time.Duration) bool {
	t.Helper()
	for deadline := time.Now().Add(d); ; {
		if _, err := s.Flush(); err != nil {
			t.Fatal(err)
		}
		if s.Pending() {
			if time.Now().After(deadline) {
				return false
			}
			unix.Poll([]unix.PollFd{{Fd: int32(s.Fd()), Events: unix.POLLOUT}}, 10)
			continue
		}
		ok, err := s.Post(int32(node), event, streamType, nil, data)
		if err != nil {
			t.Fatal(err)
		}
		if ok || s.Pending() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		unix.Poll([]unix.PollFd{{Fd: int32(s.Fd()), Events: unix.POLLOUT}}, 10)
	}
}

// Posts reach the stream of their event, on this node and across a link,
// in order.
func TestStreams(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 2})
	u.WaitLinked(t)
	a, b, c := attach(t, u, 0, -1001), attach(t, u, 0, -1002), attach(t, u, 1, -1003)
	for _, to := range []struct {
		node  int
		event int32
		s     *lamclient.Stream
	}{{0, -1002, b}, {1, -1003, c}} {
		for i := range 100 {
			msg := binary.BigEndian.AppendUint32(nil, uint32(i))
			msg = append(msg, bytes.Repeat([]byte{byte(i)}, i*97)...)
			post(t, a, to.node, to.event, msg)
		}
		for i := range 100 {
			got := next(t, to.s)
			if n := binary.BigEndian.Uint32(got); n != uint32(i) || len(got) != 4+i*97 {
				t.Fatalf("to n%d: message %d is message %d of %d bytes", to.node, i, n, len(got))
			}
		}
	}
	// A message queued before its process attached comes first on the
	// stream.
	if err := u.Client(t, 0).Send(ctx(t), 0, -1004, streamType, []byte("early")); err != nil {
		t.Fatal(err)
	}
	d := attach(t, u, 0, -1004)
	post(t, a, 0, -1004, []byte("late"))
	if got := string(next(t, d)); got != "early" {
		t.Errorf("first message %q", got)
	}
	if got := string(next(t, d)); got != "late" {
		t.Errorf("second message %q", got)
	}
	// A receive of type 0 still gets a message sent to an attached
	// event (the stream does not take type 0), and so does a receive of
	// another type.
	if err := u.Client(t, 0).Send(ctx(t), 0, -1004, 0, []byte("plain")); err != nil {
		t.Fatal(err)
	}
	if m, err := u.Client(t, 0).Recv(ctx(t), -1004, 0); err != nil || string(m.Data) != "plain" {
		t.Errorf("receive beside a stream: %v, %v", m, err)
	}
	// One stream per event.
	if _, err := u.Client(t, 0).DialStream(ctx(t), -1004, streamType); err == nil {
		t.Error("a second stream for one event attached")
	}
	// A post to a node that does not exist fails on the stream.
	post(t, a, 7, -1, []byte("x"))
	for deadline := time.Now().Add(10 * time.Second); ; {
		_, _, err := a.Next()
		if err != nil {
			if lamclient.Code(err) != wire.CodeBadNode {
				t.Errorf("post to n7: %v", err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("post to n7: no error")
		}
		unix.Poll([]unix.PollFd{{Fd: int32(a.Fd()), Events: unix.POLLIN}}, 100)
	}
}

// A process that does not read holds back its senders, on its node and
// across a link, and nothing else: the lamds go on serving, and once it
// reads every message arrives.
func TestStreamFlowControl(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 2})
	u.WaitLinked(t)
	for _, node := range []int{0, 1} {
		a := attach(t, u, 0, -2001-int32(2*node))
		b := attach(t, u, node, -2002-int32(2*node))
		msg := make([]byte, 256<<10)
		sent := 0
		// Bounded by the link's window, the stream's backlog and the
		// sockets' buffers.
		for sent*len(msg) < 64<<20 && tryPost(t, a, node, -2002-int32(2*node), msg, 500*time.Millisecond) {
			sent++
		}
		if sent*len(msg) >= 64<<20 {
			t.Fatalf("to n%d: %d messages taken without the receiver reading", node, sent)
		}
		t.Logf("to n%d: held back after %d KiB", node, sent*len(msg)>>10)
		if _, err := u.Client(t, 0).Echo(ctx(t), int32(1-node), []byte("still here")); err != nil {
			t.Errorf("echo while a sender to n%d is held back: %v", node, err)
		}
		// The sender writes the rest of its last message as the
		// receiver reads.
		for got, deadline := 0, time.Now().Add(20*time.Second); got < sent; {
			if _, err := a.Flush(); err != nil {
				t.Fatal(err)
			}
			data, ok, err := b.Next()
			switch {
			case err != nil:
				t.Fatal(err)
			case ok && len(data) != len(msg):
				t.Fatalf("a message of %d bytes", len(data))
			case ok:
				got++
			case time.Now().After(deadline):
				t.Fatalf("to n%d: %d of %d messages within 20s", node, got, sent)
			default:
				unix.Poll([]unix.PollFd{{Fd: int32(b.Fd()), Events: unix.POLLIN}, {Fd: int32(a.Fd()), Events: unix.POLLOUT}}, 10)
			}
		}
		post(t, a, node, -2002-int32(2*node), []byte("after"))
		if got := string(next(t, b)); got != "after" {
			t.Errorf("after the drain: %q", got)
		}
	}
}

// A sender held back by a receiver that does not read, and that leaves
// meanwhile, loses nothing its socket took: once the receiver reads,
// every message comes, in order.
func TestStreamSenderLeavesWhileHeld(t *testing.T) {
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 1})
	a := attach(t, u, 0, -3001)
	b := attach(t, u, 0, -3002)
	msg := make([]byte, 16<<10) // many wait in the sockets and the relay
	sent := 0
	for sent*len(msg) < 64<<20 {
		binary.BigEndian.PutUint32(msg, uint32(sent))
		if !tryPost(t, a, 0, -3002, msg, 500*time.Millisecond) {
			break
		}
		sent++
	}
	if sent*len(msg) >= 64<<20 {
		t.Fatalf("%d messages taken without the receiver reading", sent)
	}
	if a.Pending() {
		sent-- // the socket took part of the last one only
	}
	a.Close(0)
	for i := range sent {
		got := next(t, b)
		if n := binary.BigEndian.Uint32(got); n != uint32(i) || len(got) != len(msg) {
			t.Fatalf("message %d is message %d of %d bytes", i, n, len(got))
		}
	}
	t.Logf("%d messages of %d KiB after the sender left", sent, len(msg)>>10)
}
