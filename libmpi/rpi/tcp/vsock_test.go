package tcp

import (
	"os"
	"strings"
	"testing"

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
