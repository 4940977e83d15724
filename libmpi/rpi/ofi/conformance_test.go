//go:build ofi && cgo

package ofi

import (
	"testing"

	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/libmpi/rpi/rpitest"
	"github.com/lamgo/lam/shared/ssi"
)

// conformance runs the rpi suite over one libfabric provider, for every
// peer (rpi_ofi_onnode).
func conformance(t *testing.T, prov string) {
	if _, err := probe(prov); err != nil {
		t.Skipf("libfabric provider %s: %v", prov, err)
	}
	rpitest.Run(t, rpitest.Factory{
		Module: Module{},
		Job: func(_ testing.TB, jobs []*rpi.Job) {
			for _, j := range jobs {
				j.Settings = ssi.NewSettings([]ssi.Arg{{Key: "rpi_ofi_provider", Value: prov}, {Key: "rpi_ofi_onnode", Value: "1"}}, nil)
			}
		},
		Bounded:      true,
		CloseSeen:    true,
		DeathSeen:    true,
		RoomWhenFull: true,
	})
}

func TestConformanceTCP(t *testing.T) { conformance(t, "tcp") }
func TestConformanceShm(t *testing.T) { conformance(t, "shm") }

// TestConformanceHybrid runs the suite over usysv within a node and ofi
// (the tcp provider) between nodes: the ranks alternate between two
// nodes, so a job of two is all ofi and larger ones mix both. The death
// of a peer on another node is the run-time's to report (the tcp provider
// does not; docs/ofi.md), so the suite does not kill one.
func TestConformanceHybrid(t *testing.T) {
	if _, err := probe("tcp"); err != nil {
		t.Skipf("libfabric provider tcp: %v", err)
	}
	rpitest.Run(t, rpitest.Factory{
		Module: Module{},
		Job: func(_ testing.TB, jobs []*rpi.Job) {
			for i, j := range jobs {
				j.Node = int32(i % 2)
				j.Settings = ssi.NewSettings([]ssi.Arg{{Key: "rpi_ofi_provider", Value: "tcp"}}, nil)
			}
		},
		Bounded:      true,
		CloseSeen:    true,
		DeathSeen:    false,
		RoomWhenFull: true,
	})
}
