package linkauth

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

func TestSecretText(t *testing.T) {
	s, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadSecret(strings.NewReader(s.String() + "\nignored"))
	if err != nil || back != s {
		t.Fatalf("ReadSecret(String()) = %v, %v", back, err)
	}
	for _, bad := range []string{"", "zz", s.String()[:10], s.String() + "00"} {
		if _, err := ParseSecret(bad); !errors.Is(err, ErrBadSecret) {
			t.Errorf("ParseSecret(%q) = %v", bad, err)
		}
	}
	s2, _ := NewSecret()
	if s.ID() == s2.ID() || len(s.ID()) != 16 || strings.Contains(s.ID(), s.String()[:16]) {
		t.Errorf("IDs %q %q", s.ID(), s2.ID())
	}
}

// handshake runs a server with secret a and a client with secret b over a
// pipe and returns both errors.
func handshake(t *testing.T, a, b Secret) (serverErr, clientErr error) {
	t.Helper()
	sc, cc := tcpPair(t)
	scfg, _ := a.TLS(true)
	ccfg, _ := b.TLS(false)
	srv := tls.Server(sc, scfg)
	cli := tls.Client(cc, ccfg)
	deadline := time.Now().Add(5 * time.Second)
	srv.SetDeadline(deadline)
	cli.SetDeadline(deadline)
	done := make(chan error, 1)
	go func() {
		err := srv.Handshake()
		if err == nil {
			_, err = io.WriteString(srv, "ok")
		}
		srv.Close()
		done <- err
	}()
	clientErr = cli.Handshake()
	if clientErr == nil {
		buf := make([]byte, 2)
		_, clientErr = io.ReadFull(cli, buf)
	}
	cli.Close()
	return <-done, clientErr
}

func TestMutualAuth(t *testing.T) {
	a, _ := NewSecret()
	b, _ := NewSecret()
	if se, ce := handshake(t, a, a); se != nil || ce != nil {
		t.Fatalf("same secret: server %v, client %v", se, ce)
	}
	if se, ce := handshake(t, a, b); se == nil && ce == nil {
		t.Fatal("different secrets were accepted")
	}
	if se, ce := handshake(t, b, a); se == nil && ce == nil {
		t.Fatal("different secrets were accepted (reversed)")
	}
}

// A client with no certificate at all is refused.
func TestNoClientCert(t *testing.T) {
	a, _ := NewSecret()
	sc, cc := tcpPair(t)
	scfg, _ := a.TLS(true)
	srv := tls.Server(sc, scfg)
	cli := tls.Client(cc, &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS13})
	srv.SetDeadline(time.Now().Add(5 * time.Second))
	cli.SetDeadline(time.Now().Add(5 * time.Second))
	done := make(chan error, 1)
	go func() { err := srv.Handshake(); srv.Close(); done <- err }()
	cli.Handshake()
	cli.Read(make([]byte, 1))
	cli.Close()
	if err := <-done; err == nil {
		t.Fatal("server accepted a client without a certificate")
	}
}

// tcpPair returns two ends of a loopback TCP connection (buffered, unlike
// net.Pipe, so a failed handshake does not stall on an unread alert).
func tcpPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}
