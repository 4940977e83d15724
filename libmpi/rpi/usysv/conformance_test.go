package usysv

import (
	"testing"

	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/libmpi/rpi/rpitest"
	"github.com/lamgo/lam/libmpi/rpi/shm"
)

// The last rank of a job of three or more is on another node: its links
// are the tcp half of the module.
func TestConformance(t *testing.T) {
	rpitest.Run(t, rpitest.Factory{
		Module: shm.New("usysv", 40, true),
		Job: func(t testing.TB, jobs []*rpi.Job) {
			if len(jobs) >= 3 {
				jobs[len(jobs)-1].Node = 1
			}
		},
		Bounded:   true,
		DeathSeen: true,
	})
}
