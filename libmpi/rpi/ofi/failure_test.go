//go:build ofi && cgo

package ofi

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/shared/ssi"
)

// openPair opens a job of two over provider prov and connects it; what
// it opened closes when the test ends.
func openPair(t testing.TB, prov string, extra ...ssi.Arg) ([]*transport, [][]rpi.Link) {
	t.Helper()
	if _, err := probe(prov); err != nil {
		t.Skipf("libfabric provider %s: %v", prov, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ts := make([]*transport, 2)
	peers := make([]rpi.Peer, 2)
	for i := range ts {
		s := ssi.NewSettings(append([]ssi.Arg{{Key: "rpi_ofi_provider", Value: prov}, {Key: "rpi_ofi_onnode", Value: "1"}}, extra...), nil)
		tr, err := Module{}.Open(ctx, &rpi.Job{Rank: i, Size: 2, Settings: s, Timeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		ts[i] = tr.(*transport)
		t.Cleanup(func() { tr.Close() })
		peers[i] = rpi.Peer{Rank: i, Addr: tr.Addr()}
	}
	links := make([][]rpi.Link, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, tr := range ts {
		wg.Go(func() { links[i], errs[i] = tr.Connect(ctx, peers, []byte("a job secret of some length")) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("connect rank %d: %v", i, err)
		}
	}
	return ts, links
}

// A provider that fails mid-job is reported like a dead peer: a send
// that completes in error fails its link, and an error the provider
// cannot attribute (a failed receive, a completion queue that cannot be
// read) fails every link, with errPeerGone, which the core reports as
// MPI_ERR_PROC_FAILED. The errors are fed through the completion handler
// as the provider would report them (tcp's provider here retries an
// unreachable peer without ever reporting it).
func TestProviderFailure(t *testing.T) {
	ts, links := openPair(t, "tcp")
	t0 := ts[0]
	l := links[0][1].(*link)
	t0.mu.Lock()
	slot := l.free[len(l.free)-1]
	l.free = l.free[:len(l.free)-1]
	t0.handle(event{slot: slot, err: codeIO})
	t0.mu.Unlock()
	if _, err := l.Write([]byte("x")); !errors.Is(err, errPeerGone) {
		t.Errorf("write after a failed send: %v, want errPeerGone", err)
	}
	if _, err := l.Read(make([]byte, 1)); !errors.Is(err, errPeerGone) {
		t.Errorf("read after a failed send: %v, want errPeerGone", err)
	}

	t1 := ts[1]
	t1.mu.Lock()
	t1.handle(event{slot: 0, recv: true, err: codeIO})
	t1.mu.Unlock()
	if _, err := links[1][0].Read(make([]byte, 1)); !errors.Is(err, errPeerGone) {
		t.Errorf("read after a failed receive: %v, want errPeerGone", err)
	}
}

// A peer that does not hold the job's secret is refused at Connect.
func TestWrongSecret(t *testing.T) {
	if _, err := probe("tcp"); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var ts []rpi.Transport
	var peers []rpi.Peer
	for i := range 2 {
		s := ssi.NewSettings([]ssi.Arg{{Key: "rpi_ofi_provider", Value: "tcp"}, {Key: "rpi_ofi_onnode", Value: "1"}}, nil)
		tr, err := Module{}.Open(ctx, &rpi.Job{Rank: i, Size: 2, Settings: s, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		ts = append(ts, tr)
		peers = append(peers, rpi.Peer{Rank: i, Addr: tr.Addr()})
	}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, tr := range ts {
		wg.Go(func() {
			_, errs[i] = tr.Connect(ctx, peers, []byte("the secret of rank "+string(rune('0'+i))+" only"))
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err == nil {
			t.Errorf("rank %d connected to a peer with another secret", i)
		}
	}
}
