package tcp

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/libmpi/rpi/rpitest"
	"github.com/lamgo/lam/shared/linknet"
	"github.com/lamgo/lam/shared/ssi"
)

// TestConformanceVsock runs the suite with every rank on a vsock host.
// This machine has no vsock loopback, so the vsock endpoints are
// linknet's Unix-socket fake: what runs is the module's vsock path
// (listen, dial, the handshake, raw descriptors), over another socket
// family.
func TestConformanceVsock(t *testing.T) {
	if os.Getenv(linknet.EnvFake) == "" { // the suite's child process inherits the parent's
		t.Setenv(linknet.EnvFake, t.TempDir())
		t.Setenv(linknet.EnvFakeCID, "5")
	}
	rpitest.Run(t, rpitest.Factory{
		Module: New("tcp", 20, false),
		Job: func(t testing.TB, jobs []*rpi.Job) {
			for _, j := range jobs {
				j.Host = "vsock:5"
			}
		},
		Bounded: true, CloseSeen: true, DeathSeen: true,
	})
}

func TestVsockAddress(t *testing.T) {
	t.Setenv(linknet.EnvFake, t.TempDir())
	t.Setenv(linknet.EnvFakeCID, "5")
	tr, err := New("tcp", 20, false).Open(t.Context(), &rpi.Job{Host: "vsock:5", Size: 1, Settings: ssi.NewSettings(nil, nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if a := tr.Addr(); !strings.HasPrefix(a, "vsock:5:") {
		t.Errorf("Addr = %q, want vsock:5:<port>", a)
	}
	if _, err := New("tcp", 20, false).Open(t.Context(), &rpi.Job{Host: "vsock:6", Size: 1, Settings: ssi.NewSettings(nil, nil)}); err == nil {
		t.Error("listened on another machine's context id")
	}
}

// TestVsockWrongSecret: over vsock (linknet's fake), as over TCP, ranks
// that do not hold the same job secret do not connect: the HMAC
// handshake is the one the tcp path runs.
func TestVsockWrongSecret(t *testing.T) {
	t.Setenv(linknet.EnvFake, t.TempDir())
	t.Setenv(linknet.EnvFakeCID, "5")
	var ts [2]rpi.Transport
	peers := make([]rpi.Peer, 2)
	for i := range ts {
		tr, err := New("tcp", 20, false).Open(t.Context(), &rpi.Job{Rank: i, Size: 2, Host: "vsock:5",
			Settings: ssi.NewSettings(nil, nil), Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tr.Close() })
		ts[i], peers[i] = tr, rpi.Peer{Rank: i, Addr: tr.Addr()}
	}
	var errs [2]error
	var wg sync.WaitGroup
	for i, secret := range [][]byte{[]byte("0123456789abcdef"), []byte("fedcba9876543210")} {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_, errs[i] = ts[i].Connect(ctx, peers, secret)
		})
	}
	wg.Wait()
	if errs[0] == nil && errs[1] == nil {
		t.Fatal("ranks with different secrets connected over vsock")
	}
	t.Logf("refused: %v; %v", errs[0], errs[1])
}
