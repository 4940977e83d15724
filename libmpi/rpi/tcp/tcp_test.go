package tcp

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/shared/ssi"
)

// open makes n transports of one job on loopback.
func open(t *testing.T, n int) ([]rpi.Transport, []rpi.Peer) {
	t.Helper()
	var ts []rpi.Transport
	var peers []rpi.Peer
	for i := 0; i < n; i++ {
		tr, err := New("tcp", 20, i%2 == 1).Open(context.Background(), &rpi.Job{Rank: i, Size: n, Host: "127.0.0.1",
			Settings: ssi.NewSettings(nil, nil), Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tr.Close() })
		ts = append(ts, tr)
		peers = append(peers, rpi.Peer{Rank: i, Addr: tr.Addr()})
	}
	return ts, peers
}

func connectAll(t *testing.T, ts []rpi.Transport, peers []rpi.Peer, secret []byte) ([][]rpi.Link, []error) {
	links := make([][]rpi.Link, len(ts))
	errs := make([]error, len(ts))
	var wg sync.WaitGroup
	for i, tr := range ts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			links[i], errs[i] = tr.Connect(context.Background(), peers, secret)
		}()
	}
	wg.Wait()
	return links, errs
}

// Strangers and garbage on a listener do not disturb the job: links form
// only with the peers that hold the secret, and carry bytes both ways.
func TestStrangersRejected(t *testing.T) {
	ts, peers := open(t, 3)
	secret := []byte("0123456789abcdef0123456789abcdef")
	// Garbage, a client that claims rank 0 without the secret, and one that
	// connects and stays silent, on every accepting rank, while it connects.
	var strangers sync.WaitGroup
	for _, p := range peers[1:] {
		strangers.Add(3)
		go func() {
			defer strangers.Done()
			if c, err := net.Dial("tcp", p.Addr); err == nil {
				c.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
				t.Cleanup(func() { c.Close() })
			}
		}()
		go func() {
			defer strangers.Done()
			if c, err := net.Dial("tcp", p.Addr); err == nil {
				c.SetDeadline(time.Now().Add(5 * time.Second))
				buf := make([]byte, nonceSize)
				c.Read(buf)
				c.Write(append([]byte{0, 0, 0, 0}, make([]byte, 32)...))
				t.Cleanup(func() { c.Close() })
			}
		}()
		go func() {
			defer strangers.Done()
			if c, err := net.Dial("tcp", p.Addr); err == nil {
				t.Cleanup(func() { c.Close() })
			}
		}()
	}
	defer strangers.Wait()
	links, errs := connectAll(t, ts, peers, secret)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", i, err)
		}
	}
	// 0 → 2 and back, through non-blocking links.
	msg := []byte("hello")
	if n, err := links[0][2].Write(msg); err != nil || n != len(msg) {
		t.Fatalf("write: %d %v", n, err)
	}
	got := make([]byte, 5)
	deadline := time.Now().Add(5 * time.Second)
	for n := 0; n < 5 && time.Now().Before(deadline); {
		k, err := links[2][0].Read(got[n:])
		if err != nil {
			t.Fatal(err)
		}
		n += k
	}
	if string(got) != "hello" {
		t.Errorf("got %q", got)
	}
	if _, ok := links[1][0].(Counter); !ok {
		t.Error("the counting module's links do not count")
	}
	for _, ls := range links {
		for _, l := range ls {
			if l != nil {
				l.Close()
			}
		}
	}
}

// Peers with different secrets do not connect.
func TestWrongSecret(t *testing.T) {
	ts, peers := open(t, 2)
	var errs [2]error
	var wg sync.WaitGroup
	for i, secret := range [][]byte{[]byte("0123456789abcdef"), []byte("fedcba9876543210")} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_, errs[i] = ts[i].Connect(ctx, peers, secret)
		}()
	}
	wg.Wait()
	if errs[0] == nil && errs[1] == nil {
		t.Fatal("ranks with different secrets connected")
	}
	if _, err := ts[0].Connect(context.Background(), peers, []byte("short")); err == nil {
		t.Error("a short secret was accepted")
	}
}
