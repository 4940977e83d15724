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
/* Implemented in C (misc.c). */
MPI_Aint capi_Aint_add(MPI_Aint base, MPI_Aint disp);
MPI_Aint capi_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);
int capi_Status_c2f(MPI_Status *c_status, MPI_Fint *f_status);
int capi_Status_f2c(MPI_Fint *f_status, MPI_Status *c_status);
int capi_Free_mem(void *base);
/* usrop.c: calls a user's op (MPI_Op_create) with MPI's arguments. */
void lamgo_call_user_fn(MPI_User_function *fn, void *in, void *inout, int len, MPI_Datatype datatype);

/* Implemented in C (fast.c): the C fast path, then the Go path. */
int capi_Send(void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int capi_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status);
int capi_Sendrecv(void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
		  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status);

/* Implemented in C (fastcoll.c): the C fast path of small collectives on
 * MPI_COMM_WORLD, then the Go path. */
int capi_Barrier(MPI_Comm comm);
int capi_Bcast(void *buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int capi_Gather(void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int capi_Scatter(void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int capi_Allgather(void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int capi_Alltoall(void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int capi_Reduce(void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm);
int capi_Allreduce(void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);

#endif
