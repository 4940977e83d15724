package linknet

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/mdlayher/vsock"
	"golang.org/x/sys/unix"
)

// listener gives a vsock listener (real or fake) this package's Addr and
// connections.
type listener struct {
	net.Listener
	addr *Addr
	path string // the fake's socket file, removed on Close
}

func (l *listener) Addr() net.Addr { return l.addr }

// SetDeadline bounds Accept, as a TCP listener's does.
func (l *listener) SetDeadline(t time.Time) error {
	d, ok := l.Listener.(interface{ SetDeadline(time.Time) error })
	if !ok {
		return fmt.Errorf("linknet: a %T has no deadline", l.Listener)
	}
	return d.SetDeadline(t)
}

func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	remote := &Addr{}
	if a, ok := c.RemoteAddr().(*vsock.Addr); ok {
		remote = &Addr{CID: a.ContextID, Port: a.Port}
	}
	return &conn{Conn: c, local: l.addr, remote: remote}, nil
}

func (l *listener) Close() error {
	err := l.Listener.Close()
	if l.path != "" {
		os.Remove(l.path)
	}
	return err
}

// conn is a vsock stream with this package's addresses.
type conn struct {
	net.Conn
	local, remote *Addr
}

func (c *conn) LocalAddr() net.Addr  { return c.local }
func (c *conn) RemoteAddr() net.Addr { return c.remote }

// file duplicates the descriptor.
func (c *conn) file() (*os.File, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, fmt.Errorf("linknet: no descriptor for a %T", c.Conn)
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	var fd int
	var derr error
	if err := rc.Control(func(s uintptr) { fd, derr = unix.Dup(int(s)) }); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, fmt.Errorf("linknet: dup: %w", derr)
	}
	unix.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), "vsock"), nil
}

func realCID() (uint32, error) {
	cid, err := vsock.ContextID()
	if err != nil {
		return 0, fmt.Errorf("this machine's vsock context id: %w", err)
	}
	return cid, nil
}

func vsockListen(cid uint32) (net.Listener, error) {
	if dir := os.Getenv(EnvFake); dir != "" {
		return fakeListen(dir, cid)
	}
	l, err := vsock.ListenContextID(cid, 0, nil)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", VsockHost(cid), err)
	}
	a := l.Addr().(*vsock.Addr)
	return &listener{Listener: l, addr: &Addr{CID: a.ContextID, Port: a.Port}}, nil
}

func vsockDial(ctx context.Context, cid, port uint32) (net.Conn, error) {
	if dir := os.Getenv(EnvFake); dir != "" {
		return fakeDial(ctx, dir, cid, port)
	}
	c, err := vsock.DialContext(ctx, cid, port, nil)
	if err != nil {
		return nil, err
	}
	l := c.LocalAddr().(*vsock.Addr)
	return &conn{Conn: c, local: &Addr{CID: l.ContextID, Port: l.Port}, remote: &Addr{CID: cid, Port: port}}, nil
}

// The fake: vsock endpoint CID:port is the Unix socket <dir>/<cid>.<port>.

func fakeCID() (uint32, error) {
	s := os.Getenv(EnvFakeCID)
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil || n <= cidLocal || n == cidAny {
		return 0, fmt.Errorf("%s=%q: want this fake machine's context id (2 or more)", EnvFakeCID, s)
	}
	return uint32(n), nil
}

func fakePath(dir string, cid, port uint32) string {
	return filepath.Join(dir, fmt.Sprintf("%d.%d", cid, port))
}

func fakeListen(dir string, cid uint32) (net.Listener, error) {
	self, err := fakeCID()
	if err != nil {
		return nil, err
	}
	if cid != self {
		return nil, fmt.Errorf("listen on %s: %w (this machine is %s)", VsockHost(cid), syscall.EADDRNOTAVAIL, VsockHost(self))
	}
	for range 100 {
		var b [4]byte
		rand.Read(b[:])
		port := 1024 + binary.LittleEndian.Uint32(b[:])%(1<<30)
		path := fakePath(dir, cid, port)
		l, err := net.Listen("unix", path)
		if errors.Is(err, syscall.EADDRINUSE) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("listen on %s: %w", VsockAddr(cid, port), err)
		}
		l.(*net.UnixListener).SetUnlinkOnClose(false)
		if err := os.Chmod(path, 0o600); err != nil {
			l.Close()
			os.Remove(path)
			return nil, err
		}
		return &listener{Listener: l, addr: &Addr{CID: cid, Port: port}, path: path}, nil
	}
	return nil, fmt.Errorf("listen on %s: no free port", VsockHost(cid))
}

func fakeDial(ctx context.Context, dir string, cid, port uint32) (net.Conn, error) {
	self, err := fakeCID()
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", fakePath(dir, cid, port))
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", VsockAddr(cid, port), err)
	}
	return &conn{Conn: c, local: &Addr{CID: self}, remote: &Addr{CID: cid, Port: port}}, nil
}
