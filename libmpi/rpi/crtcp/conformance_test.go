package crtcp

import (
	"testing"

	"github.com/lamgo/lam/libmpi/rpi/rpitest"
	"github.com/lamgo/lam/libmpi/rpi/tcp"
)

func TestConformance(t *testing.T) {
	rpitest.Run(t, rpitest.Factory{Module: tcp.New("crtcp", 25, true), Bounded: true, CloseSeen: true, DeathSeen: true})
}
