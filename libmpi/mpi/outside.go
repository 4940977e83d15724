package mpi

import (
	"github.com/lamgo/lam/libmpi/coll"
	"github.com/lamgo/lam/libmpi/internal/core"
)

// WorldOutside is where the engine's state for point-to-point messages on
// World lies, for libmpi.so's C fast path (core.Outside, docs/capi.md),
// with World's context and this process's rank. ok is false when there is
// no such path to offer: MPI is not initialised (or is finalised), or
// World's ranks are not the world ranks.
func WorldOutside() (o core.Outside, context uint32, rank int, ok bool) {
	e, err := engine()
	if err != nil || !World.ready || st.finalized {
		return core.Outside{}, 0, 0, false
	}
	for i, w := range World.group {
		if i != w {
			return core.Outside{}, 0, 0, false
		}
	}
	return e.Outside(World.context), World.context, World.rank, true
}

// WorldColl is World's collective framework view, for libmpi.so's C fast
// path of small collectives (coll.Comm.Record, docs/capi.md); ok is false
// when MPI is not initialised or is finalised.
func WorldColl() (c *coll.Comm, ok bool) {
	if _, err := engine(); err != nil || !World.ready || st.finalized {
		return nil, false
	}
	return World.collComm(), true
}

// WorldCollFail is what a collective on World returns for err, its error
// handler called: for the C fast path's errors.
func WorldCollFail(err error) error { return World.collFail(err) }
