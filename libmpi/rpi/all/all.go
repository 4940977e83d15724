// Package all links every rpi module this project implements. A binary
// that must know every rpi module (laminfo, and the programs that select
// one) imports it for its side effects:
//
//	import _ "github.com/lamgo/lam/libmpi/rpi/all"
//
// A module is added here, by a blank import, only once it works; none is
// listed that cannot run.
package all

import (
	_ "github.com/lamgo/lam/libmpi/rpi/crtcp" // tcp with byte counters, for checkpoints
	_ "github.com/lamgo/lam/libmpi/rpi/lamd"  // through the lamds: asynchronous progress
	_ "github.com/lamgo/lam/libmpi/rpi/sysv"  // shared memory on a node, sleeping waiters; tcp between nodes
	_ "github.com/lamgo/lam/libmpi/rpi/tcp"   // TCP between every pair of processes
	_ "github.com/lamgo/lam/libmpi/rpi/usysv" // shared memory on a node, spinning waiters; tcp between nodes
)
