// Package linknet holds the networks the lamds' links, the boot
// rendezvous and MPI's socket traffic run on: TCP, and AF_VSOCK for
// universes of virtual-machine guests on one host.
//
// An address is either TCP's "host:port" or "vsock:CID:port"; a host (what
// a node's address in the universe table says) is an IP address or
// "vsock:CID". Listen, Dial and JoinHostPort take both forms, so the code
// above never asks which network it is on.
//
// Testing without vsock: a machine without vsock loopback cannot connect
// to itself over AF_VSOCK (and CID 2, the hypervisor's host, must never be
// touched by tests), so when LAMGO_VSOCK_FAKE names a directory, vsock
// endpoints are Unix sockets in it (<cid>.<port>) and this host's context
// id is LAMGO_VSOCK_FAKE_CID. Every code path above the socket (address
// parsing, listen, dial, the TLS handshake, the byte streams) is the
// one that runs over real vsock; only the socket family differs. It is a
// testing aid: owner-only directory, documented in docs/vsock.md.
package linknet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// Prefix starts every vsock host and address.
const Prefix = "vsock:"

// Context ids that name no guest: 0 the hypervisor, 1 local loopback, and
// the wildcard. CID 2 (the host) is a valid peer for a guest.
const (
	cidHypervisor = 0
	cidLocal      = 1
	cidAny        = 1<<32 - 1
)

// Fake-vsock environment (testing only; see the package comment).
const (
	EnvFake    = "LAMGO_VSOCK_FAKE"
	EnvFakeCID = "LAMGO_VSOCK_FAKE_CID"
)

// ErrVsock is wrapped by the errors of ParseVsock.
var ErrVsock = errors.New("invalid vsock address")

// IsVsock reports whether s is a vsock host or address.
func IsVsock(s string) bool { return strings.HasPrefix(s, Prefix) }

// ParseVsock reads "vsock:CID" or "vsock:CID:port". Port is 0 when absent.
func ParseVsock(s string) (cid, port uint32, err error) {
	rest, ok := strings.CutPrefix(s, Prefix)
	if !ok {
		return 0, 0, fmt.Errorf("%w %q: want vsock:CID[:port]", ErrVsock, s)
	}
	c, p, hasPort := strings.Cut(rest, ":")
	n, err := strconv.ParseUint(c, 10, 32)
	if err != nil || c == "" || c[0] == '+' {
		return 0, 0, fmt.Errorf("%w %q: the context id must be a decimal number", ErrVsock, s)
	}
	if n == cidHypervisor || n == cidLocal || n == cidAny {
		return 0, 0, fmt.Errorf("%w %q: context id %d names no peer (0, 1 and %d are reserved)", ErrVsock, s, n, uint32(cidAny))
	}
	if hasPort {
		q, err := strconv.ParseUint(p, 10, 32)
		if err != nil || p == "" || p[0] == '+' || q == 0 || q == cidAny {
			return 0, 0, fmt.Errorf("%w %q: the port must be a number from 1 to %d", ErrVsock, s, uint32(cidAny-1))
		}
		port = uint32(q)
	}
	return uint32(n), port, nil
}

// VsockHost is "vsock:CID".
func VsockHost(cid uint32) string { return Prefix + strconv.FormatUint(uint64(cid), 10) }

// VsockAddr is "vsock:CID:port".
func VsockAddr(cid, port uint32) string {
	return VsockHost(cid) + ":" + strconv.FormatUint(uint64(port), 10)
}

// JoinHostPort makes an address of a host (IP, name or vsock:CID) and a
// port.
func JoinHostPort(host string, port int) string {
	if IsVsock(host) {
		return host + ":" + strconv.Itoa(port)
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// Listen listens on host, on a port the system picks: TCP for an IP
// address or name, AF_VSOCK for vsock:CID (which must be this machine's
// context id).
func Listen(host string) (net.Listener, error) {
	if !IsVsock(host) {
		return net.Listen("tcp", net.JoinHostPort(host, "0"))
	}
	cid, _, err := ParseVsock(host)
	if err != nil {
		return nil, err
	}
	return vsockListen(cid)
}

// Dial connects to addr (host:port or vsock:CID:port), bounded by ctx.
func Dial(ctx context.Context, addr string) (net.Conn, error) {
	if !IsVsock(addr) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", addr)
	}
	cid, port, err := ParseVsock(addr)
	if err != nil {
		return nil, err
	}
	if port == 0 {
		return nil, fmt.Errorf("%w %q: no port", ErrVsock, addr)
	}
	return vsockDial(ctx, cid, port)
}

// AddrString writes a listener's or connection's address in this
// package's form: host:port for TCP, vsock:CID:port for vsock.
func AddrString(a net.Addr) string {
	if v, ok := a.(*Addr); ok {
		return VsockAddr(v.CID, v.Port)
	}
	return a.String()
}

// Host is the host part of an address from AddrString: the IP of a TCP
// address, vsock:CID of a vsock one.
func Host(a net.Addr) string {
	switch v := a.(type) {
	case *Addr:
		return VsockHost(v.CID)
	case *net.TCPAddr:
		return v.IP.String()
	}
	h, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return h
}

// LocalCID is this machine's vsock context id.
func LocalCID() (uint32, error) {
	if dir := os.Getenv(EnvFake); dir != "" {
		return fakeCID()
	}
	return realCID()
}

// Addr is a vsock endpoint.
type Addr struct {
	CID, Port uint32
}

// Network is "vsock".
func (*Addr) Network() string { return "vsock" }

func (a *Addr) String() string { return VsockAddr(a.CID, a.Port) }

// File returns a duplicate of c's descriptor (a TCP or vsock stream), for
// transports that do their own system calls on it. The caller closes both.
func File(c net.Conn) (*os.File, error) {
	switch v := c.(type) {
	case *net.TCPConn:
		return v.File()
	case *net.UnixConn:
		return v.File()
	case *conn:
		return v.file()
	}
	return nil, fmt.Errorf("linknet: no descriptor for a %T", c)
}
