package rpitest

import (
	"bytes"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/rpi"
)

// Exchange writes msg on from and reads it back from to, alternating as
// one goroutine driving both ends must (neither call blocks), within 10
// seconds. For a module's own tests of links it opened itself.
func Exchange(t testing.TB, from, to rpi.Link, msg []byte) {
	t.Helper()
	got := make([]byte, 0, len(msg))
	buf := make([]byte, 4096)
	deadline := time.Now().Add(10 * time.Second)
	for sent := 0; len(got) < len(msg); {
		if time.Now().After(deadline) {
			t.Fatalf("moved %d of %d bytes", len(got), len(msg))
		}
		if sent < len(msg) {
			n, err := from.Write(msg[sent:])
			if err != nil {
				t.Fatal(err)
			}
			sent += n
		}
		n, err := to.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, buf[:n]...)
	}
	if !bytes.Equal(got, msg) {
		t.Fatal("bytes changed on the way")
	}
}
