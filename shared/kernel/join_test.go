package kernel_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/boot"
	"github.com/lamgo/lam/shared/kernel"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/linkauth"
	"github.com/lamgo/lam/shared/linknet"
	"github.com/lamgo/lam/shared/session"
	"github.com/lamgo/lam/shared/wire"
)

// joining starts n lamds that join through a rendezvous the test serves,
// as lamboot does. It returns the rendezvous, the lamds' session
// directories, and the channel each Join's result arrives on.
func joining(t *testing.T, ctx context.Context, n int) (*boot.Server, linkauth.Secret, []session.Dir, []chan error) {
	t.Helper()
	return joiningAt(t, ctx, n, "127.0.0.1:0")
}

// joiningAt is joining with the rendezvous on listen (host:port or
// vsock:CID).
func joiningAt(t *testing.T, ctx context.Context, n int, listen string) (*boot.Server, linkauth.Secret, []session.Dir, []chan error) {
	t.Helper()
	secret, err := linkauth.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := boot.Listen(listen, secret)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	prefix := t.TempDir()
	var dirs []session.Dir
	var errs []chan error
	for i := range n {
		dir, err := session.Resolve(session.Options{Prefix: prefix, Suffix: fmt.Sprintf("j%d", i), Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
		errc := make(chan error, 1)
		errs = append(errs, errc)
		go func() {
			errc <- kernel.Join(ctx, kernel.JoinConfig{
				Booter: linknet.AddrString(srv.Addr()), Secret: secret, Session: dir,
				Node: int32(i), CPUs: int32(i + 1), Timeout: 10 * time.Second,
			})
		}()
	}
	return srv, secret, dirs, errs
}

func joined(t *testing.T, errc chan error) error {
	t.Helper()
	select {
	case err := <-errc:
		return err
	case <-time.After(20 * time.Second):
		t.Fatal("Join did not return")
		return nil
	}
}

// Lamds join through the boot rendezvous: each calls back with its link
// address and CPU count, gets the node table, links to the others and
// acknowledges; then they serve until halted.
func TestJoin(t *testing.T) { testJoin(t, "127.0.0.1:0", "127.0.0.1") }

// The same over AF_VSOCK: the rendezvous, the link listeners and the links
// between the lamds (linknet's Unix-socket fake: this machine has no vsock
// loopback).
func TestJoinVsock(t *testing.T) {
	t.Setenv(linknet.EnvFake, t.TempDir())
	t.Setenv(linknet.EnvFakeCID, "5")
	testJoin(t, "vsock:5", "vsock:5")
}

func testJoin(t *testing.T, listen, host string) {
	srv, secret, dirs, errs := joiningAt(t, ctx(t), 2, listen)
	var cbs []*boot.Callback
	u := &wire.Universe{ID: secret.ID()}
	for range 2 {
		cb, err := srv.Accept(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		cbs = append(cbs, cb)
		u.Nodes = append(u.Nodes, wire.Node{ID: cb.Hello.Node, Host: cb.Hello.Host, Addr: host, Link: cb.Hello.Link, CPUs: cb.Hello.CPUs})
	}
	for _, n := range u.Nodes {
		if n.CPUs != n.ID+1 || !strings.HasPrefix(n.Link, host+":") {
			t.Errorf("hello %+v", n)
		}
	}
	sent := make(chan error, len(cbs))
	for _, cb := range cbs {
		go func() { sent <- cb.Send(ctx(t), u) }()
	}
	for range cbs {
		if err := <-sent; err != nil {
			t.Fatalf("a lamd refused the node table: %v", err)
		}
	}
	// A peer without the universe's secret cannot link, over TCP as over
	// vsock, and the lamds keep serving.
	wrongSecret(t, u.Nodes[1].Link, u.ID)
	c, err := lamclient.Dial(ctx(t), dirs[0], "test", wire.RoleTool)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got, err := c.Echo(ctx(t), 1, []byte("hi")); err != nil || string(got) != "hi" {
		t.Errorf("echo through the joined universe: %q %v", got, err)
	}
	if err := c.Halt(ctx(t), 5*time.Second, nil); err != nil {
		t.Fatal(err)
	}
	for i, errc := range errs {
		if err := joined(t, errc); err != nil {
			t.Errorf("n%d: Join after halt: %v", i, err)
		}
		if _, err := os.Stat(dirs[i].Path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("n%d: session directory left: %v", i, err)
		}
	}
}

// wrongSecret dials a lamd's link address as a peer of another universe
// would (TLS with another secret) and asks it to halt: the lamd must not
// answer.
func wrongSecret(t *testing.T, link, universe string) {
	t.Helper()
	nc, err := linknet.Dial(ctx(t), link)
	if err != nil {
		t.Fatalf("dial %s: %v", link, err)
	}
	defer nc.Close()
	other, err := linkauth.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := other.TLS(false)
	if err != nil {
		t.Fatal(err)
	}
	tc := tls.Client(nc, cfg)
	tc.SetDeadline(time.Now().Add(5 * time.Second))
	if err := tc.Handshake(); err != nil {
		return // refused at the handshake
	}
	c := wire.NewConn(tc)
	c.Write(0, 0, &wire.LinkHello{Version: wire.Version, Universe: universe, Node: 0}, time.Second)
	c.Write(1, 0, &wire.HaltNode{}, time.Second)
	tc.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Read(); err == nil {
		t.Errorf("a peer with the wrong secret got an answer over %s", link)
	}
}

// A boot abandoned by the booter ends the join with its reason, before the
// lamd creates anything.
func TestJoinAbandoned(t *testing.T) {
	srv, _, dirs, errs := joining(t, ctx(t), 1)
	cb, err := srv.Accept(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	cb.Abort("node n3 did not call back")
	if err := joined(t, errs[0]); err == nil || !strings.Contains(err.Error(), "n3 did not call back") {
		t.Errorf("Join = %v, want the booter's reason", err)
	}
	if _, err := os.Stat(dirs[0].Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("session directory made: %v", err)
	}
}

// The join gives up when its context ends (lamd's signals), during the
// callback as after it.
func TestJoinCancelled(t *testing.T) {
	t.Run("waiting for the table", func(t *testing.T) {
		ctx, cancel := context.WithCancel(ctx(t))
		srv, _, _, errs := joining(t, ctx, 1)
		if _, err := srv.Accept(ctx); err != nil {
			t.Fatal(err)
		}
		cancel()
		if err := joined(t, errs[0]); err == nil {
			t.Error("Join succeeded after its context ended")
		}
	})
	t.Run("serving", func(t *testing.T) {
		ctx, cancel := context.WithCancel(ctx(t))
		srv, secret, dirs, errs := joining(t, ctx, 1)
		cb, err := srv.Accept(ctx)
		if err != nil {
			t.Fatal(err)
		}
		u := &wire.Universe{ID: secret.ID(), Nodes: []wire.Node{{ID: 0, Host: cb.Hello.Host, Addr: "127.0.0.1", Link: cb.Hello.Link, CPUs: 1}}}
		if err := cb.Send(ctx, u); err != nil {
			t.Fatal(err)
		}
		cancel()
		if err := joined(t, errs[0]); err == nil || !errors.Is(err, context.Canceled) {
			t.Errorf("Join = %v, want it stopped by its context", err)
		}
		if _, err := os.Stat(dirs[0].Path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("session directory left: %v", err)
		}
	})
}
