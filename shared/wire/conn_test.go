package wire

import (
	"errors"
	"net"
	"os"
	"testing"
	"time"
)

// ReadWithin waits as long as it takes for a frame to begin, then bounds
// the rest of it.
func TestReadWithin(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	c := NewConn(a)
	frame := AppendFrame(nil, 7, 0, &Echo{Node: LocalNode, Data: make([]byte, 100)})
	go func() {
		time.Sleep(200 * time.Millisecond) // silent between frames: allowed
		b.Write(frame)
		b.Write(frame[:30]) // then half a frame
	}()
	f, err := c.ReadWithin(100 * time.Millisecond)
	if err != nil || f.ID != 7 {
		t.Fatalf("whole frame after a silence: %v, %v", f.Header, err)
	}
	start := time.Now()
	if _, err := c.ReadWithin(100 * time.Millisecond); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("half a frame: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("half a frame took %v to time out", d)
	}
}
