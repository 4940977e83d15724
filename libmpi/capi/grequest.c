/* grequest.c: the trampolines through which Go calls a generalized
   request's query, free and cancel functions (MPI_Grequest_start): Go
   cannot call a C function pointer. extra_state travels as uintptr_t. */
#include <stdint.h>
#include "mpi.h"

int lamgo_grequest_query(void *f, uintptr_t extra, MPI_Status *status)
{
	return ((MPI_Grequest_query_function *)f)((void *)extra, status);
}

int lamgo_grequest_free(void *f, uintptr_t extra)
{
	return ((MPI_Grequest_free_function *)f)((void *)extra);
}

int lamgo_grequest_cancel(void *f, uintptr_t extra, int complete)
{
	return ((MPI_Grequest_cancel_function *)f)((void *)extra, complete);
}
