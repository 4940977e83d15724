/*
 * mpi.h: the C interface of LAM/Go's MPI library (libmpi.so).
 *
 * Constants have LAM/MPI 7.1.4's values where LAM defined them (error
 * classes, wildcards, attribute keys, combiners), so programs written for
 * LAM see the numbers they knew. Handles are small integers indexing the
 * library's tables (0 is the null handle of every kind), which makes the
 * Fortran conversions (MPI_Comm_f2c and friends) the identity.
 *
 * Every function is declared twice, as MPI_<name> and PMPI_<name>, by
 * LAMGO_DECL: the PMPI_ names are the library's strong symbols and the
 * MPI_ names weak aliases of them (the MPI profiling interface). One
 * declaration per line: libmpi/capi/gen reads them to write pmpi.c.
 */
#ifndef LAMGO_MPI_H
#define LAMGO_MPI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LAM_MPI 1
#define LAMGO_MPI 1

#define MPI_VERSION 1
#define MPI_SUBVERSION 2

/* Handles and scalar types. */
typedef int MPI_Comm;
typedef int MPI_Group;
typedef int MPI_Datatype;
typedef int MPI_Request;
typedef int MPI_Op;
typedef int MPI_Errhandler;
typedef int MPI_Info;
typedef int MPI_Win;
typedef int MPI_Message;
typedef long MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int MPI_Fint;

/* The status of a receive. st_cancelled and st_length are private. */
typedef struct _status {
	int MPI_SOURCE;
	int MPI_TAG;
	int MPI_ERROR;
	int st_cancelled;
	long long st_length; /* bytes received */
} MPI_Status;

/* User functions called back by the library. */
typedef int(MPI_Copy_function)(MPI_Comm, int, void *, void *, void *, int *);
typedef int(MPI_Delete_function)(MPI_Comm, int, void *, void *);
typedef void(MPI_Handler_function)(MPI_Comm *, int *, ...);
typedef void(MPI_Comm_errhandler_fn)(MPI_Comm *, int *, ...);
typedef void(MPI_Comm_errhandler_function)(MPI_Comm *, int *, ...);
typedef void(MPI_User_function)(void *, void *, int *, MPI_Datatype *);
typedef int(MPI_Comm_copy_attr_function)(MPI_Comm, int, void *, void *, void *, int *);
typedef int(MPI_Comm_delete_attr_function)(MPI_Comm, int, void *, void *);
typedef int(MPI_Type_copy_attr_function)(MPI_Datatype, int, void *, void *, void *, int *);
typedef int(MPI_Type_delete_attr_function)(MPI_Datatype, int, void *, void *);
typedef int(MPI_Grequest_query_function)(void *, MPI_Status *);
typedef int(MPI_Grequest_free_function)(void *);
typedef int(MPI_Grequest_cancel_function)(void *, int);

/* Miscellaneous constants (LAM 7.1.4's values). */
#define MPI_SUCCESS 0
#define MPI_ANY_SOURCE (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-4)
#define MPI_ANY_TAG (-1)
#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 256
#define MPI_MAX_OBJECT_NAME 64
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_INFO_KEY 36
#define MPI_MAX_INFO_VAL 256
#define MPI_MAX_PORT_NAME 36
#define MPI_UNDEFINED (-32766)
#define MPI_CART 1
#define MPI_GRAPH 2
#define MPI_DIST_GRAPH 3
#define MPI_KEYVAL_INVALID (-1)
#define MPI_BSEND_OVERHEAD 64 /* the Go API's mpi.BsendOverhead */
#define MPI_BOTTOM ((void *)0)
#define MPI_IN_PLACE ((void *)1)
#define MPI_UNWEIGHTED ((int *)2)
#define MPI_WEIGHTS_EMPTY ((int *)3)
#define MPI_ARGV_NULL ((char **)0)
#define MPI_ARGVS_NULL ((char ***)0)
#define MPI_ERRCODES_IGNORE ((int *)0)
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_ORDER_C 0
#define MPI_ORDER_FORTRAN 1
#define MPI_DISTRIBUTE_BLOCK 0
#define MPI_DISTRIBUTE_CYCLIC 1
#define MPI_DISTRIBUTE_NONE 2
#define MPI_DISTRIBUTE_DFLT_DARG (-1)

/* Predefined attribute keys (LAM's numbers). */
#define MPI_TAG_UB 0
#define MPI_HOST 1
#define MPI_IO 2
#define MPI_WTIME_IS_GLOBAL 3
#define MPI_UNIVERSE_SIZE 4
#define MPI_APPNUM 5
#define MPI_LASTUSEDCODE 21
#define LAM_UNIVERSE_NCPUS 13
#define LAM_UNIVERSE_NNODES 14

/* Error classes (LAM 7.1.4's numbers; MPI_ERR_INFO and
   MPI_ERR_PROC_FAILED are LAM/Go's). */
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_REQUEST 7
#define MPI_ERR_ROOT 8
#define MPI_ERR_GROUP 9
#define MPI_ERR_OP 10
#define MPI_ERR_TOPOLOGY 11
#define MPI_ERR_DIMS 12
#define MPI_ERR_ARG 13
#define MPI_ERR_UNKNOWN 14
#define MPI_ERR_TRUNCATE 15
#define MPI_ERR_OTHER 16
#define MPI_ERR_INTERN 17
#define MPI_ERR_IN_STATUS 18
#define MPI_ERR_PENDING 19
#define MPI_ERR_SYSRESOURCE 20
#define MPI_ERR_LOCALDEAD 21
#define MPI_ERR_REMOTEDEAD 22
#define MPI_ERR_VALUE 23
#define MPI_ERR_FLAGS 24
#define MPI_ERR_SERVICE 25
#define MPI_ERR_NAME 26
#define MPI_ERR_SPAWN 27
#define MPI_ERR_KEYVAL 28
#define MPI_ERR_INFO_NOKEY 29
#define MPI_ERR_WIN 30
#define MPI_ERR_EPOCH 31
#define MPI_ERR_TYPENOTSUP 32
#define MPI_ERR_INFO_KEY 33
#define MPI_ERR_INFO_VALUE 34
#define MPI_ERR_NO_MEM 35
#define MPI_ERR_BASE 36
#define MPI_ERR_INFO 37
#define MPI_ERR_PROC_FAILED 38
#define MPI_ERR_LASTCODE 39

/* Comparison results (LAM's numbers). */
#define MPI_IDENT 1
#define MPI_CONGRUENT 2
#define MPI_SIMILAR 3
#define MPI_UNEQUAL 4

/* Datatype combiners (LAM's numbers). */
#define MPI_COMBINER_NAMED 0
#define MPI_COMBINER_DUP 1
#define MPI_COMBINER_CONTIGUOUS 2
#define MPI_COMBINER_VECTOR 3
#define MPI_COMBINER_HVECTOR_INTEGER 4
#define MPI_COMBINER_HVECTOR 5
#define MPI_COMBINER_INDEXED 6
#define MPI_COMBINER_HINDEXED_INTEGER 7
#define MPI_COMBINER_HINDEXED 8
#define MPI_COMBINER_INDEXED_BLOCK 9
#define MPI_COMBINER_STRUCT_INTEGER 10
#define MPI_COMBINER_STRUCT 11
#define MPI_COMBINER_SUBARRAY 12
#define MPI_COMBINER_DARRAY 13
#define MPI_COMBINER_F90_REAL 14
#define MPI_COMBINER_F90_COMPLEX 15
#define MPI_COMBINER_F90_INTEGER 16
#define MPI_COMBINER_RESIZED 17

/* Thread levels. */
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* Communicator split types. */
#define MPI_COMM_TYPE_SHARED 1

/* Null handles. */
#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_GROUP_NULL ((MPI_Group)0)
#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_INFO_NULL ((MPI_Info)0)
#define MPI_WIN_NULL ((MPI_Win)0)
#define MPI_MESSAGE_NULL ((MPI_Message)0)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)1)
#define MPI_NULL_COPY_FN ((MPI_Copy_function *)0)
#define MPI_NULL_DELETE_FN ((MPI_Delete_function *)0)
#define MPI_COMM_NULL_COPY_FN ((MPI_Comm_copy_attr_function *)0)
#define MPI_COMM_NULL_DELETE_FN ((MPI_Comm_delete_attr_function *)0)
#define MPI_TYPE_NULL_COPY_FN ((MPI_Type_copy_attr_function *)0)
#define MPI_TYPE_NULL_DELETE_FN ((MPI_Type_delete_attr_function *)0)

/* Predefined communicators and groups. */
#define MPI_COMM_WORLD ((MPI_Comm)1)
#define MPI_COMM_SELF ((MPI_Comm)2)
#define MPI_GROUP_EMPTY ((MPI_Group)1)

/* Predefined error handlers. */
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)1)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)2)

/* Predefined operations. */
#define MPI_MAX ((MPI_Op)1)
#define MPI_MIN ((MPI_Op)2)
#define MPI_SUM ((MPI_Op)3)
#define MPI_PROD ((MPI_Op)4)
#define MPI_LAND ((MPI_Op)5)
#define MPI_BAND ((MPI_Op)6)
#define MPI_LOR ((MPI_Op)7)
#define MPI_BOR ((MPI_Op)8)
#define MPI_LXOR ((MPI_Op)9)
#define MPI_BXOR ((MPI_Op)10)
#define MPI_MAXLOC ((MPI_Op)11)
#define MPI_MINLOC ((MPI_Op)12)
#define MPI_REPLACE ((MPI_Op)13)
#define MPI_NO_OP ((MPI_Op)14)

/* Predefined datatypes: C. */
#define MPI_CHAR ((MPI_Datatype)1)
#define MPI_SIGNED_CHAR ((MPI_Datatype)2)
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)3)
#define MPI_BYTE ((MPI_Datatype)4)
#define MPI_SHORT ((MPI_Datatype)5)
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)6)
#define MPI_INT ((MPI_Datatype)7)
#define MPI_UNSIGNED ((MPI_Datatype)8)
#define MPI_LONG ((MPI_Datatype)9)
#define MPI_UNSIGNED_LONG ((MPI_Datatype)10)
#define MPI_LONG_LONG_INT ((MPI_Datatype)11)
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)12)
#define MPI_FLOAT ((MPI_Datatype)13)
#define MPI_DOUBLE ((MPI_Datatype)14)
#define MPI_LONG_DOUBLE ((MPI_Datatype)15)
#define MPI_WCHAR ((MPI_Datatype)16)
#define MPI_PACKED ((MPI_Datatype)17)
#define MPI_LB ((MPI_Datatype)18)
#define MPI_UB ((MPI_Datatype)19)
#define MPI_FLOAT_INT ((MPI_Datatype)20)
#define MPI_DOUBLE_INT ((MPI_Datatype)21)
#define MPI_LONG_INT ((MPI_Datatype)22)
#define MPI_SHORT_INT ((MPI_Datatype)23)
#define MPI_2INT ((MPI_Datatype)24)
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)25)
#define MPI_C_BOOL ((MPI_Datatype)26)
#define MPI_INT8_T ((MPI_Datatype)27)
#define MPI_INT16_T ((MPI_Datatype)28)
#define MPI_INT32_T ((MPI_Datatype)29)
#define MPI_INT64_T ((MPI_Datatype)30)
#define MPI_UINT8_T ((MPI_Datatype)31)
#define MPI_UINT16_T ((MPI_Datatype)32)
#define MPI_UINT32_T ((MPI_Datatype)33)
#define MPI_UINT64_T ((MPI_Datatype)34)
#define MPI_C_FLOAT_COMPLEX ((MPI_Datatype)35)
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX ((MPI_Datatype)36)
#define MPI_AINT ((MPI_Datatype)37)
#define MPI_OFFSET ((MPI_Datatype)38)
#define MPI_COUNT ((MPI_Datatype)39)

/* Predefined datatypes: Fortran. */
#define MPI_CHARACTER ((MPI_Datatype)40)
#define MPI_LOGICAL ((MPI_Datatype)41)
#define MPI_INTEGER ((MPI_Datatype)42)
#define MPI_REAL ((MPI_Datatype)43)
#define MPI_DOUBLE_PRECISION ((MPI_Datatype)44)
#define MPI_COMPLEX ((MPI_Datatype)45)
#define MPI_DOUBLE_COMPLEX ((MPI_Datatype)46)
#define MPI_2INTEGER ((MPI_Datatype)47)
#define MPI_2REAL ((MPI_Datatype)48)
#define MPI_2DOUBLE_PRECISION ((MPI_Datatype)49)
#define MPI_INTEGER1 ((MPI_Datatype)50)
#define MPI_INTEGER2 ((MPI_Datatype)51)
#define MPI_INTEGER4 ((MPI_Datatype)52)
#define MPI_INTEGER8 ((MPI_Datatype)53)
#define MPI_REAL4 ((MPI_Datatype)54)
#define MPI_REAL8 ((MPI_Datatype)55)
#define LAMGO_PREDEFINED_TYPES 56 /* user datatypes are numbered from here */

/* Handle conversions: handles are the same integers in C and Fortran. */
#define MPI_Comm_c2f(h) ((MPI_Fint)(h))
#define MPI_Comm_f2c(h) ((MPI_Comm)(h))
#define MPI_Group_c2f(h) ((MPI_Fint)(h))
#define MPI_Group_f2c(h) ((MPI_Group)(h))
#define MPI_Type_c2f(h) ((MPI_Fint)(h))
#define MPI_Type_f2c(h) ((MPI_Datatype)(h))
#define MPI_Request_c2f(h) ((MPI_Fint)(h))
#define MPI_Request_f2c(h) ((MPI_Request)(h))
#define MPI_Op_c2f(h) ((MPI_Fint)(h))
#define MPI_Op_f2c(h) ((MPI_Op)(h))
#define MPI_Errhandler_c2f(h) ((MPI_Fint)(h))
#define MPI_Errhandler_f2c(h) ((MPI_Errhandler)(h))
#define MPI_Info_c2f(h) ((MPI_Fint)(h))
#define MPI_Info_f2c(h) ((MPI_Info)(h))

#define LAMGO_DECL(ret, name, params) \
	ret MPI_##name params;            \
	ret PMPI_##name params

/* == Environment (env.go) == */
LAMGO_DECL(int, Init, (int *argc, char ***argv));
LAMGO_DECL(int, Finalize, (void));
LAMGO_DECL(int, Initialized, (int *flag));
LAMGO_DECL(int, Finalized, (int *flag));
LAMGO_DECL(int, Abort, (MPI_Comm comm, int errorcode));
LAMGO_DECL(double, Wtime, (void));
LAMGO_DECL(double, Wtick, (void));
LAMGO_DECL(int, Get_processor_name, (char *name, int *resultlen));
LAMGO_DECL(int, Get_version, (int *version, int *subversion));
LAMGO_DECL(int, Init_thread, (int *argc, char ***argv, int required, int *provided));
LAMGO_DECL(int, Query_thread, (int *provided));
LAMGO_DECL(int, Is_thread_main, (int *flag));
LAMGO_DECL(int, Get_library_version, (char *version, int *resultlen));
LAMGO_DECL(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr));
LAMGO_DECL(int, Free_mem, (void *base));
/* Variadic, so not a LAMGO_DECL (pcontrol.c defines it). */
int MPI_Pcontrol(const int level, ...);
int PMPI_Pcontrol(const int level, ...);

/* == Point-to-point and requests (p2p.go, request.go, grequest.go) == */
LAMGO_DECL(int, Send, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
LAMGO_DECL(int, Recv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status));
LAMGO_DECL(int, Get_count, (const MPI_Status *status, MPI_Datatype datatype, int *count));
LAMGO_DECL(int, Bsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
LAMGO_DECL(int, Ssend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
LAMGO_DECL(int, Rsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
LAMGO_DECL(int, Isend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Ibsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Issend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Irsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Irecv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Send_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Bsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Ssend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Rsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Recv_init, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Start, (MPI_Request *request));
LAMGO_DECL(int, Startall, (int count, MPI_Request array_of_requests[]));
LAMGO_DECL(int, Wait, (MPI_Request *request, MPI_Status *status));
LAMGO_DECL(int, Test, (MPI_Request *request, int *flag, MPI_Status *status));
LAMGO_DECL(int, Waitall, (int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]));
LAMGO_DECL(int, Testall, (int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]));
LAMGO_DECL(int, Waitany, (int count, MPI_Request array_of_requests[], int *index, MPI_Status *status));
LAMGO_DECL(int, Testany, (int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status));
LAMGO_DECL(int, Waitsome, (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]));
LAMGO_DECL(int, Testsome, (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]));
LAMGO_DECL(int, Request_free, (MPI_Request *request));
LAMGO_DECL(int, Request_get_status, (MPI_Request request, int *flag, MPI_Status *status));
LAMGO_DECL(int, Cancel, (MPI_Request *request));
LAMGO_DECL(int, Test_cancelled, (const MPI_Status *status, int *flag));
LAMGO_DECL(int, Sendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status));
LAMGO_DECL(int, Sendrecv_replace, (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status));
LAMGO_DECL(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status));
LAMGO_DECL(int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status));
LAMGO_DECL(int, Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status));
LAMGO_DECL(int, Improbe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status));
LAMGO_DECL(int, Mrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status));
LAMGO_DECL(int, Imrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request));
LAMGO_DECL(int, Buffer_attach, (void *buffer, int size));
LAMGO_DECL(int, Buffer_detach, (void *buffer_addr, int *size));
LAMGO_DECL(int, Grequest_start, (MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn, MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request));
LAMGO_DECL(int, Grequest_complete, (MPI_Request request));
LAMGO_DECL(int, Status_set_elements, (MPI_Status *status, MPI_Datatype datatype, int count));
LAMGO_DECL(int, Status_set_elements_x, (MPI_Status *status, MPI_Datatype datatype, MPI_Count count));
LAMGO_DECL(int, Status_set_cancelled, (MPI_Status *status, int flag));
LAMGO_DECL(int, Status_c2f, (const MPI_Status *c_status, MPI_Fint *f_status));
LAMGO_DECL(int, Status_f2c, (const MPI_Fint *f_status, MPI_Status *c_status));

/* == Collectives and operations (coll.go, op.go) == */
LAMGO_DECL(int, Barrier, (MPI_Comm comm));
LAMGO_DECL(int, Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm));
LAMGO_DECL(int, Gather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
LAMGO_DECL(int, Gatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm));
LAMGO_DECL(int, Scatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
LAMGO_DECL(int, Scatterv, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
LAMGO_DECL(int, Allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
LAMGO_DECL(int, Allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm));
LAMGO_DECL(int, Alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
LAMGO_DECL(int, Alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm));
LAMGO_DECL(int, Alltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));
LAMGO_DECL(int, Reduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm));
LAMGO_DECL(int, Allreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
LAMGO_DECL(int, Reduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
LAMGO_DECL(int, Reduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
LAMGO_DECL(int, Scan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
LAMGO_DECL(int, Exscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
LAMGO_DECL(int, Reduce_local, (const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op));
LAMGO_DECL(int, Op_create, (MPI_User_function *user_fn, int commute, MPI_Op *op));
LAMGO_DECL(int, Op_free, (MPI_Op *op));
LAMGO_DECL(int, Op_commutative, (MPI_Op op, int *commute));
LAMGO_DECL(int, Ibarrier, (MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Ibcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Igather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Igatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Iscatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Iscatterv, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Iallgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Iallgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Ialltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Ialltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Ialltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Ireduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Iallreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Ireduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Ireduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Iscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Iexscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request));

/* == Groups, communicators and topologies (comm.go, group.go, topo.go, topo_neighbor.go) == */
LAMGO_DECL(int, Comm_rank, (MPI_Comm comm, int *rank));
LAMGO_DECL(int, Comm_size, (MPI_Comm comm, int *size));
LAMGO_DECL(int, Comm_group, (MPI_Comm comm, MPI_Group *group));
LAMGO_DECL(int, Comm_remote_size, (MPI_Comm comm, int *size));
LAMGO_DECL(int, Comm_remote_group, (MPI_Comm comm, MPI_Group *group));
LAMGO_DECL(int, Comm_test_inter, (MPI_Comm comm, int *flag));
LAMGO_DECL(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result));
LAMGO_DECL(int, Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm));
LAMGO_DECL(int, Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm));
LAMGO_DECL(int, Comm_set_info, (MPI_Comm comm, MPI_Info info));
LAMGO_DECL(int, Comm_get_info, (MPI_Comm comm, MPI_Info *info_used));
LAMGO_DECL(int, Comm_idup, (MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request));
LAMGO_DECL(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm));
LAMGO_DECL(int, Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm));
LAMGO_DECL(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm));
LAMGO_DECL(int, Comm_split_type, (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm));
LAMGO_DECL(int, Comm_free, (MPI_Comm *comm));
LAMGO_DECL(int, Intercomm_create, (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm));
LAMGO_DECL(int, Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newintracomm));
LAMGO_DECL(int, Group_size, (MPI_Group group, int *size));
LAMGO_DECL(int, Group_rank, (MPI_Group group, int *rank));
LAMGO_DECL(int, Group_translate_ranks, (MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]));
LAMGO_DECL(int, Group_compare, (MPI_Group group1, MPI_Group group2, int *result));
LAMGO_DECL(int, Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
LAMGO_DECL(int, Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
LAMGO_DECL(int, Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
LAMGO_DECL(int, Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup));
LAMGO_DECL(int, Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup));
LAMGO_DECL(int, Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup));
LAMGO_DECL(int, Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup));
LAMGO_DECL(int, Group_free, (MPI_Group *group));
LAMGO_DECL(int, Topo_test, (MPI_Comm comm, int *status));
LAMGO_DECL(int, Dims_create, (int nnodes, int ndims, int dims[]));
LAMGO_DECL(int, Cart_create, (MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *comm_cart));
LAMGO_DECL(int, Cart_map, (MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank));
LAMGO_DECL(int, Cartdim_get, (MPI_Comm comm, int *ndims));
LAMGO_DECL(int, Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]));
LAMGO_DECL(int, Cart_rank, (MPI_Comm comm, const int coords[], int *rank));
LAMGO_DECL(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]));
LAMGO_DECL(int, Cart_shift, (MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest));
LAMGO_DECL(int, Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm));
LAMGO_DECL(int, Graph_create, (MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm *comm_graph));
LAMGO_DECL(int, Graph_map, (MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank));
LAMGO_DECL(int, Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges));
LAMGO_DECL(int, Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]));
LAMGO_DECL(int, Graph_neighbors_count, (MPI_Comm comm, int rank, int *nneighbors));
LAMGO_DECL(int, Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]));
LAMGO_DECL(int, Dist_graph_create, (MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[], const int weights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph));
LAMGO_DECL(int, Dist_graph_create_adjacent, (MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[], int outdegree, const int destinations[], const int destweights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph));
LAMGO_DECL(int, Dist_graph_neighbors_count, (MPI_Comm comm, int *indegree, int *outdegree, int *weighted));
LAMGO_DECL(int, Dist_graph_neighbors, (MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree, int destinations[], int destweights[]));
LAMGO_DECL(int, Neighbor_allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
LAMGO_DECL(int, Neighbor_allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm));
LAMGO_DECL(int, Neighbor_alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
LAMGO_DECL(int, Neighbor_alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm));
LAMGO_DECL(int, Neighbor_alltoallw, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));
LAMGO_DECL(int, Ineighbor_allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Ineighbor_allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Ineighbor_alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Ineighbor_alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
LAMGO_DECL(int, Ineighbor_alltoallw, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request));

/* Type classes of MPI_Type_match_size (MPI-2's, numbered as MPICH and Open MPI do). */
#define MPI_TYPECLASS_REAL 1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3

/* == Datatypes (datatype.go) == */
#define MPI_COMBINER_HINDEXED_BLOCK 18 /* MPI-3's; LAM had none */
LAMGO_DECL(int, Type_size, (MPI_Datatype datatype, int *size));
LAMGO_DECL(int, Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype *newtype));
LAMGO_DECL(int, Type_vector, (int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype));
LAMGO_DECL(int, Type_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype));
LAMGO_DECL(int, Type_create_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype));
LAMGO_DECL(int, Type_indexed, (int count, const int array_of_blocklengths[], const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype));
LAMGO_DECL(int, Type_hindexed, (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype));
LAMGO_DECL(int, Type_create_hindexed, (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype));
LAMGO_DECL(int, Type_create_indexed_block, (int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype));
LAMGO_DECL(int, Type_create_hindexed_block, (int count, int blocklength, const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype));
LAMGO_DECL(int, Type_struct, (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype *newtype));
LAMGO_DECL(int, Type_create_struct, (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype *newtype));
LAMGO_DECL(int, Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype));
LAMGO_DECL(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype));
LAMGO_DECL(int, Type_create_subarray, (int ndims, const int array_of_sizes[], const int array_of_subsizes[], const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype));
LAMGO_DECL(int, Type_create_darray, (int size, int rank, int ndims, const int array_of_gsizes[], const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype));
LAMGO_DECL(int, Type_commit, (MPI_Datatype *datatype));
LAMGO_DECL(int, Type_free, (MPI_Datatype *datatype));
LAMGO_DECL(int, Type_extent, (MPI_Datatype datatype, MPI_Aint *extent));
LAMGO_DECL(int, Type_lb, (MPI_Datatype datatype, MPI_Aint *displacement));
LAMGO_DECL(int, Type_ub, (MPI_Datatype datatype, MPI_Aint *displacement));
LAMGO_DECL(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent));
LAMGO_DECL(int, Type_get_true_extent, (MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent));
LAMGO_DECL(int, Type_get_envelope, (MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes, int *combiner));
LAMGO_DECL(int, Type_get_contents, (MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]));
LAMGO_DECL(int, Address, (const void *location, MPI_Aint *address));
LAMGO_DECL(int, Get_address, (const void *location, MPI_Aint *address));
LAMGO_DECL(MPI_Aint, Aint_add, (MPI_Aint base, MPI_Aint disp));
LAMGO_DECL(MPI_Aint, Aint_diff, (MPI_Aint addr1, MPI_Aint addr2));
LAMGO_DECL(int, Type_match_size, (int typeclass, int size, MPI_Datatype *datatype));
LAMGO_DECL(int, Get_elements, (const MPI_Status *status, MPI_Datatype datatype, int *count));
LAMGO_DECL(int, Type_size_x, (MPI_Datatype datatype, MPI_Count *size));
LAMGO_DECL(int, Type_get_extent_x, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent));
LAMGO_DECL(int, Type_get_true_extent_x, (MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent));
LAMGO_DECL(int, Get_elements_x, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count));
LAMGO_DECL(int, Pack, (const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position, MPI_Comm comm));
LAMGO_DECL(int, Unpack, (const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype datatype, MPI_Comm comm));
LAMGO_DECL(int, Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int *size));
LAMGO_DECL(int, Pack_external, (const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, MPI_Aint outsize, MPI_Aint *position));
LAMGO_DECL(int, Unpack_external, (const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype));
LAMGO_DECL(int, Pack_external_size, (const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size));

/* The copy functions that copy an attribute's value as it is (real
   functions, as in LAM; MPI_NULL_COPY_FN and friends are NULL). */
int MPI_DUP_FN(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in, void *attribute_val_out, int *flag);
int MPI_COMM_DUP_FN(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in, void *attribute_val_out, int *flag);
int MPI_TYPE_DUP_FN(MPI_Datatype oldtype, int keyval, void *extra_state, void *attribute_val_in, void *attribute_val_out, int *flag);
int PMPI_DUP_FN(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in, void *attribute_val_out, int *flag);
int PMPI_COMM_DUP_FN(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in, void *attribute_val_out, int *flag);
int PMPI_TYPE_DUP_FN(MPI_Datatype oldtype, int keyval, void *extra_state, void *attribute_val_in, void *attribute_val_out, int *flag);

/* == Attributes, info, names (attr.go, info.go, names.go) == */
LAMGO_DECL(int, Keyval_create, (MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state));
LAMGO_DECL(int, Keyval_free, (int *keyval));
LAMGO_DECL(int, Attr_put, (MPI_Comm comm, int keyval, void *attribute_val));
LAMGO_DECL(int, Attr_get, (MPI_Comm comm, int keyval, void *attribute_val, int *flag));
LAMGO_DECL(int, Attr_delete, (MPI_Comm comm, int keyval));
LAMGO_DECL(int, Comm_create_keyval, (MPI_Comm_copy_attr_function *comm_copy_attr_fn, MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval, void *extra_state));
LAMGO_DECL(int, Comm_free_keyval, (int *comm_keyval));
LAMGO_DECL(int, Comm_set_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val));
LAMGO_DECL(int, Comm_get_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag));
LAMGO_DECL(int, Comm_delete_attr, (MPI_Comm comm, int comm_keyval));
LAMGO_DECL(int, Type_create_keyval, (MPI_Type_copy_attr_function *type_copy_attr_fn, MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval, void *extra_state));
LAMGO_DECL(int, Type_free_keyval, (int *type_keyval));
LAMGO_DECL(int, Type_set_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val));
LAMGO_DECL(int, Type_get_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag));
LAMGO_DECL(int, Type_delete_attr, (MPI_Datatype datatype, int type_keyval));
LAMGO_DECL(int, Comm_set_name, (MPI_Comm comm, const char *comm_name));
LAMGO_DECL(int, Comm_get_name, (MPI_Comm comm, char *comm_name, int *resultlen));
LAMGO_DECL(int, Type_set_name, (MPI_Datatype datatype, const char *type_name));
LAMGO_DECL(int, Type_get_name, (MPI_Datatype datatype, char *type_name, int *resultlen));
LAMGO_DECL(int, Info_create, (MPI_Info *info));
LAMGO_DECL(int, Info_set, (MPI_Info info, const char *key, const char *value));
LAMGO_DECL(int, Info_get, (MPI_Info info, const char *key, int valuelen, char *value, int *flag));
LAMGO_DECL(int, Info_get_valuelen, (MPI_Info info, const char *key, int *valuelen, int *flag));
LAMGO_DECL(int, Info_get_nkeys, (MPI_Info info, int *nkeys));
LAMGO_DECL(int, Info_get_nthkey, (MPI_Info info, int n, char *key));
LAMGO_DECL(int, Info_delete, (MPI_Info info, const char *key));
LAMGO_DECL(int, Info_dup, (MPI_Info info, MPI_Info *newinfo));
LAMGO_DECL(int, Info_free, (MPI_Info *info));

/* == Errors and error handlers (errors.go) == */
LAMGO_DECL(int, Error_class, (int errorcode, int *errorclass));
LAMGO_DECL(int, Error_string, (int errorcode, char *string, int *resultlen));
LAMGO_DECL(int, Add_error_class, (int *errorclass));
LAMGO_DECL(int, Add_error_code, (int errorclass, int *errorcode));
LAMGO_DECL(int, Add_error_string, (int errorcode, const char *string));
LAMGO_DECL(int, Comm_create_errhandler, (MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler));
LAMGO_DECL(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler));
LAMGO_DECL(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler));
LAMGO_DECL(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode));
LAMGO_DECL(int, Errhandler_create, (MPI_Handler_function *function, MPI_Errhandler *errhandler));
LAMGO_DECL(int, Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler));
LAMGO_DECL(int, Errhandler_get, (MPI_Comm comm, MPI_Errhandler *errhandler));
LAMGO_DECL(int, Errhandler_free, (MPI_Errhandler *errhandler));

#ifdef __cplusplus
}
#endif

#endif /* LAMGO_MPI_H */
