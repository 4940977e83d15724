// Package usysv is the usysv rpi module: shared memory between the
// processes of a node, whose waiters spin (LAM's spin-lock transport; best
// when there are no more processes than processors), and tcp to other
// nodes. See package shm.
package usysv

import (
	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/libmpi/rpi/shm"
)

func init() { rpi.Register(shm.New("usysv", 40, true)) }
