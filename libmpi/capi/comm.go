package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include "mpi.h"
*/
import "C"

import (
	"github.com/lamgo/lam/libmpi/mpi"
)

// The communicator table: MPI_COMM_WORLD and MPI_COMM_SELF are the Go
// API's World and Self.
var comms = func() *table[mpi.Comm] {
	t := new(table[mpi.Comm])
	t.set(int(C.MPI_COMM_WORLD), mpi.World)
	t.set(int(C.MPI_COMM_SELF), mpi.Self)
	return t
}()

// commArg is the communicator of handle h; an invalid handle raises
// MPI_ERR_COMM through MPI_COMM_WORLD's handler (rc is its code).
func commArg(h C.MPI_Comm, fn string) (c *mpi.Comm, rc C.int) {
	if c = comms.get(int(h)); c == nil {
		return nil, fail(nil, mpi.ErrComm, fn+": invalid communicator")
	}
	return c, C.MPI_SUCCESS
}

//export capi_Comm_rank
func capi_Comm_rank(comm C.MPI_Comm, rank *C.int) C.int {
	c, rc := commArg(comm, "MPI_Comm_rank")
	if c == nil {
		return rc
	}
	if rank == nil {
		return fail(c, mpi.ErrArg, "MPI_Comm_rank: NULL rank")
	}
	*rank = C.int(c.Rank())
	return C.MPI_SUCCESS
}

//export capi_Comm_size
func capi_Comm_size(comm C.MPI_Comm, size *C.int) C.int {
	c, rc := commArg(comm, "MPI_Comm_size")
	if c == nil {
		return rc
	}
	if size == nil {
		return fail(c, mpi.ErrArg, "MPI_Comm_size: NULL size")
	}
	*size = C.int(c.Size())
	return C.MPI_SUCCESS
}
