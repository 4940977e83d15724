package tcp

import (
	"testing"

	"github.com/lamgo/lam/libmpi/rpi/rpitest"
)

func TestConformance(t *testing.T) {
	rpitest.Run(t, rpitest.Factory{Module: New("tcp", 20, false), Bounded: true, CloseSeen: true, DeathSeen: true})
}
