// Package usysv is the usysv rpi module: shared memory between the
// processes of a node, whose waiters spin (LAM's spin-lock transport; best
// when there are no more processes than processors), and tcp to other
// nodes. See package shm.
package usysv

import (
	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/libmpi/rpi/shm"
)

// Module is the usysv module; the ofi module opens it over its own
// transport (shm.Module.OpenOver) to serve the peers on its node.
var Module = shm.New("usysv", 40, true)

func init() { rpi.Register(Module) }
