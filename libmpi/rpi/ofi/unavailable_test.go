//go:build !ofi || !cgo

package ofi

import (
	"errors"
	"testing"

	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/shared/ssi"
)

// Without libfabric the module declines, and Open fails, saying why.
func TestNotBuilt(t *testing.T) {
	s := ssi.NewSettings([]ssi.Arg{{Key: "rpi", Value: "ofi"}}, nil)
	if p, err := (Module{}).Query(t.Context(), s); !errors.Is(err, errNotBuilt) || p >= 0 {
		t.Errorf("Query: %d, %v", p, err)
	}
	if tr, err := (Module{}).Open(t.Context(), &rpi.Job{Size: 2, Settings: s}); !errors.Is(err, errNotBuilt) || tr != nil {
		t.Errorf("Open: %v, %v", tr, err)
	}
}
