// Package sysv is the sysv rpi module: shared memory between the
// processes of a node, whose waiters sleep on a futex after a short spin
// (LAM's semaphore transport; polite when there are more processes than
// processors), and tcp to other nodes. See package shm.
package sysv

import (
	"github.com/lamgo/lam/libmpi/rpi"
	"github.com/lamgo/lam/libmpi/rpi/shm"
)

func init() { rpi.Register(shm.New("sysv", 30, false)) }
