package ofi

import (
	"bytes"
	"strings"
	"testing"
)

func TestHeaderRoundTrip(t *testing.T) {
	for _, h := range []header{
		{kind: kindData, credits: 0, from: 0, seq: 0},
		{kind: kindCredit, credits: maxCredits16, from: 1<<32 - 1, seq: 1<<32 - 1},
		{kind: kindHello, credits: 7, from: 3, seq: 12345},
		{kind: kindClose, credits: 1, from: 2, seq: 99},
	} {
		b := make([]byte, hdrSize+3)
		h.put(b)
		got, err := parseHeader(b)
		if err != nil || got != h {
			t.Errorf("put %+v, parsed %+v, %v", h, got, err)
		}
	}
	if _, err := parseHeader(make([]byte, hdrSize-1)); err == nil {
		t.Error("a message shorter than a header parsed")
	}
}

func TestParseAddress(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want address
		err  string
	}{
		{in: "123,tcp;ofi_rxm,0a0b", want: address{pid: 123, provider: "tcp;ofi_rxm", name: []byte{10, 11}}},
		{in: "1,shm,66695f73686d", want: address{pid: 1, provider: "shm", name: []byte("fi_shm")}},
		{in: "", err: "want pid,provider,name"},
		{in: "1,tcp", err: "want pid,provider,name"},
		{in: "1,tcp,00,00", err: "want pid,provider,name"},
		{in: "0,tcp,00", err: "bad pid"},
		{in: "-4,tcp,00", err: "bad pid"},
		{in: "x,tcp,00", err: "bad pid"},
		{in: "1,,00", err: "no provider"},
		{in: "1,tcp,", err: "endpoint name of 0"},
		{in: "1,tcp,0", err: "odd length"},
		{in: "1,tcp,zz", err: "invalid byte"},
		{in: "1,tcp," + strings.Repeat("00", maxName+1), err: "endpoint name of"},
	} {
		got, err := parseAddress(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseAddress(%q) = %v, %v; want an error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got.pid != tc.want.pid || got.provider != tc.want.provider || !bytes.Equal(got.name, tc.want.name) {
			t.Errorf("parseAddress(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
		if s := got.String(); s != tc.in {
			t.Errorf("String() = %q, want %q", s, tc.in)
		}
	}
}

// An address either fails to parse or survives a round trip.
func FuzzParseAddress(f *testing.F) {
	for _, s := range []string{"123,tcp;ofi_rxm,0a0b", "1,shm,00", ",,", "1,a,b,c", "9999999999999999999,x,00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := parseAddress(s)
		if err != nil {
			return
		}
		if a.pid <= 0 || a.provider == "" || len(a.name) == 0 || len(a.name) > maxName {
			t.Fatalf("parseAddress(%q) accepted %+v", s, a)
		}
		b, err := parseAddress(a.String())
		if err != nil || b.pid != a.pid || b.provider != a.provider || !bytes.Equal(b.name, a.name) {
			t.Fatalf("round trip of %q: %+v, %v", s, b, err)
		}
	})
}

// Any bytes parse as a header or fail cleanly; a header survives put.
func FuzzParseHeader(f *testing.F) {
	f.Add(make([]byte, hdrSize))
	f.Add([]byte{1, 0, 2})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := parseHeader(b)
		if err != nil {
			if len(b) >= hdrSize {
				t.Fatalf("%d bytes did not parse: %v", len(b), err)
			}
			return
		}
		c := make([]byte, hdrSize)
		h.put(c)
		if g, _ := parseHeader(c); g != h {
			t.Fatalf("put %+v, parsed %+v", h, g)
		}
	})
}

// A hello proves the secret for one pair of ranks and endpoints only.
func TestHelloMAC(t *testing.T) {
	s := []byte("0123456789abcdef0123")
	base := helloMAC(s, 0, 1, "a", "b")
	if len(base) != helloSize {
		t.Fatalf("a hello of %d bytes", len(base))
	}
	for name, other := range map[string][]byte{
		"secret":    helloMAC([]byte("0123456789abcdef0124"), 0, 1, "a", "b"),
		"from":      helloMAC(s, 2, 1, "a", "b"),
		"to":        helloMAC(s, 0, 2, "a", "b"),
		"direction": helloMAC(s, 1, 0, "b", "a"),
		"address":   helloMAC(s, 0, 1, "a", "c"),
		"split":     helloMAC(s, 0, 1, "ab", ""),
	} {
		if bytes.Equal(base, other) {
			t.Errorf("changing the %s leaves the hello the same", name)
		}
	}
}

// Any bytes parse as a key message or fail cleanly; a key message
// survives put, and names a non-empty range that does not wrap.
func FuzzParseKey(f *testing.F) {
	ok := make([]byte, keySize)
	keyMsg{addr: 4096, len: 10, raddr: 4096, key: 7}.put(ok)
	f.Add(ok)
	f.Add(make([]byte, keySize))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		k, err := parseKey(b)
		if err != nil {
			return
		}
		if len(b) != keySize || k.len == 0 || k.addr+k.len < k.addr {
			t.Fatalf("%d bytes parsed as %+v", len(b), k)
		}
		c := make([]byte, keySize)
		k.put(c)
		if g, _ := parseKey(c); g != k {
			t.Fatalf("put %+v, parsed %+v", k, g)
		}
	})
}

// A key message covers reads inside its buffer only.
func TestKeyHolds(t *testing.T) {
	k := keyMsg{addr: 1000, len: 100}
	for _, c := range []struct {
		addr uint64
		n    int
		want bool
	}{
		{1000, 100, true},
		{1000, 1, true},
		{1099, 1, true},
		{1050, 50, true},
		{999, 1, false},
		{1000, 101, false},
		{1100, 1, false},
		{1050, 51, false},
		{^uint64(0), 2, false}, // wraps
	} {
		if got := k.holds(c.addr, c.n); got != c.want {
			t.Errorf("[%d, +%d) in [1000, +100): %v, want %v", c.addr, c.n, got, c.want)
		}
	}
}

// Any bytes parse as a pull message or fail cleanly; a pull message
// survives put, and asks for a non-empty range that does not wrap.
func FuzzParsePull(f *testing.F) {
	ok := make([]byte, pullSize)
	pullMsg{tag: 1<<32 | 5, addr: 4096, n: 10}.put(ok)
	f.Add(ok)
	f.Add(make([]byte, pullSize))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parsePull(b)
		if err != nil {
			return
		}
		if len(b) != pullSize || m.n == 0 || m.n > 1<<40 || m.addr+m.n < m.addr {
			t.Fatalf("%d bytes parsed as %+v", len(b), m)
		}
		c := make([]byte, pullSize)
		m.put(c)
		if g, _ := parsePull(c); g != m {
			t.Fatalf("put %+v, parsed %+v", m, g)
		}
	})
}
