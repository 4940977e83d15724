package linknet

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestParseVsock(t *testing.T) {
	tests := []struct {
		in        string
		cid, port uint32
		err       string
	}{
		{"vsock:3", 3, 0, ""},
		{"vsock:2:22", 2, 22, ""},
		{"vsock:4294967294:4294967294", 4294967294, 4294967294, ""},
		{"vsock:0", 0, 0, "names no peer"},
		{"vsock:1:5", 0, 0, "names no peer"},
		{"vsock:4294967295", 0, 0, "names no peer"},
		{"vsock:4294967296", 0, 0, "decimal number"},
		{"vsock:", 0, 0, "decimal number"},
		{"vsock:+3", 0, 0, "decimal number"},
		{"vsock:x", 0, 0, "decimal number"},
		{"vsock:3:", 0, 0, "port must be"},
		{"vsock:3:0", 0, 0, "port must be"},
		{"vsock:3:-1", 0, 0, "port must be"},
		{"vsock:3:4294967295", 0, 0, "port must be"},
		{"vsock:3:1:2", 0, 0, "port must be"},
		{"tcp:3", 0, 0, "want vsock:CID"},
		{"10.0.0.1", 0, 0, "want vsock:CID"},
	}
	for _, tt := range tests {
		cid, port, err := ParseVsock(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, ErrVsock) {
				t.Errorf("ParseVsock(%q) = %v, want error with %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || cid != tt.cid || port != tt.port {
			t.Errorf("ParseVsock(%q) = %d, %d, %v; want %d, %d", tt.in, cid, port, err, tt.cid, tt.port)
		}
	}
}

func FuzzParseVsock(f *testing.F) {
	for _, s := range []string{"vsock:3", "vsock:3:22", "vsock:", "vsock:1:1", "x", "vsock:03:007"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cid, port, err := ParseVsock(s)
		if err != nil {
			return
		}
		w := VsockHost(cid)
		if port != 0 {
			w = VsockAddr(cid, port)
		}
		c2, p2, err := ParseVsock(w)
		if err != nil || c2 != cid || p2 != port {
			t.Fatalf("%q parsed as %d:%d, written %q, which reads back as %d:%d %v", s, cid, port, w, c2, p2, err)
		}
	})
}

func TestJoinHostPort(t *testing.T) {
	for _, tt := range []struct {
		host string
		port int
		want string
	}{
		{"10.0.0.1", 5, "10.0.0.1:5"},
		{"::1", 5, "[::1]:5"},
		{"vsock:7", 9, "vsock:7:9"},
	} {
		if got := JoinHostPort(tt.host, tt.port); got != tt.want {
			t.Errorf("JoinHostPort(%q, %d) = %q, want %q", tt.host, tt.port, got, tt.want)
		}
	}
}

// fake turns on the fake vsock with this machine as cid.
func fake(t *testing.T, cid string) string {
	dir := t.TempDir()
	t.Setenv(EnvFake, dir)
	t.Setenv(EnvFakeCID, cid)
	return dir
}

func TestFakeVsockRoundTrip(t *testing.T) {
	fake(t, "5")
	if cid, err := LocalCID(); err != nil || cid != 5 {
		t.Fatalf("LocalCID = %d, %v", cid, err)
	}
	if _, err := Listen("vsock:6"); err == nil {
		t.Fatal("listening on another machine's context id worked")
	}
	l, err := Listen("vsock:5")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	addr := AddrString(l.Addr())
	if !strings.HasPrefix(addr, "vsock:5:") || Host(l.Addr()) != "vsock:5" {
		t.Fatalf("listener address %q host %q", addr, Host(l.Addr()))
	}
	done := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			done <- err
			return
		}
		defer c.Close()
		f, err := File(c) // the raw descriptor path the tcp rpi uses
		if err != nil {
			done <- err
			return
		}
		defer f.Close()
		_, err = io.Copy(f, io.LimitReader(f, 5))
		done <- err
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Dial(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.RemoteAddr().String() != addr || Host(c.LocalAddr()) != "vsock:5" {
		t.Errorf("conn addresses %v -> %v", c.LocalAddr(), c.RemoteAddr())
	}
	if _, err := c.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "hello" {
		t.Fatalf("echo %q %v", buf, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	l.Close()
	if _, err := Dial(ctx, addr); err == nil {
		t.Error("dialled a closed listener")
	}
}

func TestDialErrors(t *testing.T) {
	fake(t, "5")
	ctx := context.Background()
	for _, a := range []string{"vsock:5", "vsock:1:4", "vsock:9:4"} {
		if c, err := Dial(ctx, a); err == nil {
			c.Close()
			t.Errorf("Dial(%q) worked", a)
		}
	}
	t.Setenv(EnvFakeCID, "1")
	if _, err := LocalCID(); err == nil {
		t.Error("fake context id 1 accepted")
	}
}

func TestTCP(t *testing.T) {
	l, err := Listen("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		if c, err := l.Accept(); err == nil {
			c.Close()
		}
	}()
	c, err := Dial(context.Background(), AddrString(l.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if Host(c.RemoteAddr()) != "127.0.0.1" {
		t.Errorf("Host = %q", Host(c.RemoteAddr()))
	}
	f, err := File(c)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}
