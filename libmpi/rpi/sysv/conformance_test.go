package sysv

import (
	"testing"

	"github.com/lamgo/lam/libmpi/rpi/rpitest"
	"github.com/lamgo/lam/libmpi/rpi/shm"
)

// Every rank is on one node: all links are shared memory.
func TestConformance(t *testing.T) {
	rpitest.Run(t, rpitest.Factory{
		Module:    shm.New("sysv", 30, false),
		Bounded:   true,
		DeathSeen: true,
	})
}
