// Command capi is libmpi.so, the C interface of LAM/Go's MPI library:
// built with go build -buildmode=c-shared, it exports the MPI C API
// declared in include/mpi.h (and, for Fortran 77, the gfortran names),
// mapping each call one-to-one onto libmpi/mpi.
//
// Shape:
//   - include/mpi.h declares every function once with LAMGO_DECL;
//     go generate (gen/) writes pmpi.c from it: a strong PMPI_<name> that
//     calls capi_<name>, and a weak MPI_<name> alias of it, so profiling
//     libraries can interpose (MPI-1 §8). The check test fails when pmpi.c
//     is stale or a declared function has no implementation.
//   - capi_<name> is a Go function exported with //export (one cgo
//     crossing per MPI call) or, where Go is not needed, a C function
//     (wtime.c).
//   - Handles are small integers into tables (tables.go) read without a
//     lock; 0 is every kind's null handle and the predefined objects have
//     the numbers mpi.h gives them.
//   - Errors come back as LAM's error class numbers (errors.go); errors
//     raised here go through the communicator's error handler, as the Go
//     API's own do.
package main

//go:generate go run ./gen

func main() {}
