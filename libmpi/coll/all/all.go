// Package all links every coll module this project implements. A binary
// that must know every coll module (laminfo, and the programs that select
// one) imports it for its side effects:
//
//	import _ "github.com/lamgo/lam/libmpi/coll/all"
//
// A module is added here, by a blank import, only once it works; none is
// listed that cannot run.
package all

import (
	_ "github.com/lamgo/lam/libmpi/coll/basic" // lam_basic: every collective on point-to-point; the fallback
	_ "github.com/lamgo/lam/libmpi/coll/shmem" // shmem: collectives through shared memory among one node's processes
	_ "github.com/lamgo/lam/libmpi/coll/smp"   // smp: hierarchical Bcast, Barrier, Reduce, Allreduce, Allgather across nodes
)
