/* capi.h: what the C files of libmpi.so see of its implementation. */
#ifndef LAMGO_CAPI_H
#define LAMGO_CAPI_H

#include "mpi.h"
#include "_cgo_export.h"

/* Implemented in C (wtime.c). */
double capi_Wtime(void);
double capi_Wtick(void);

/* Implemented in C (errh.c): calls a user's error handler. */
void lamgo_call_errhandler(MPI_Comm_errhandler_function *fn, MPI_Comm comm, int code, const char *msg);
/* usrop.c: calls a user's op (MPI_Op_create) with MPI's arguments. */
void lamgo_call_user_fn(MPI_User_function *fn, void *in, void *inout, int len, MPI_Datatype datatype);

#endif
