//go:build ofi && cgo

package ofi

import (
	"testing"

	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/libmpi/rpi/rpitest"
	"github.com/lamgo/lam/shared/ssi"
)

// conformance runs the rpi suite over one libfabric provider.
func conformance(t *testing.T, prov string) {
	if _, err := probe(prov); err != nil {
		t.Skipf("libfabric provider %s: %v", prov, err)
	}
	rpitest.Run(t, rpitest.Factory{
		Module: Module{},
		Job: func(_ testing.TB, jobs []*rpi.Job) {
			for _, j := range jobs {
				j.Settings = ssi.NewSettings([]ssi.Arg{{Key: "rpi_ofi_provider", Value: prov}}, nil)
			}
		},
		Bounded:   true,
		CloseSeen: true,
		DeathSeen: true,
	})
}

func TestConformanceTCP(t *testing.T) { conformance(t, "tcp") }
func TestConformanceShm(t *testing.T) { conformance(t, "shm") }
