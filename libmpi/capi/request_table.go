package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include "mpi.h"
*/
import "C"

import "github.com/lamgo/lam/libmpi/mpi"

// The request table, as far as the nonblocking collectives need it: a
// placeholder until the point-to-point family's request.go (MPI_Wait,
// MPI_Test, …) replaces it.
var requests = new(table[mpi.Request])

// newRequest gives a started request a handle.
func newRequest(r *mpi.Request) C.MPI_Request { return C.MPI_Request(requests.add(r)) }
