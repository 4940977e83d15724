/* misc.c: the small MPI-2/3 calls that need no Go (address arithmetic,
   the status conversions, freeing MPI_Alloc_mem's memory) and the
   allocation MPI_Alloc_mem makes (misc.go). */
#include <stdlib.h>
#include <string.h>
#include "capi.h"

_Static_assert(sizeof(MPI_Status) == 6 * sizeof(MPI_Fint), "the Fortran status is MPI_STATUS_SIZE (6) INTEGERs");

void *lamgo_malloc(size_t n)
{
	return malloc(n > 0 ? n : 1);
}

int capi_Free_mem(void *base)
{
	free(base);
	return MPI_SUCCESS;
}

/* Address arithmetic wraps as the machine's does (MPI-3.1 §4.1.5): done
   on unsigned values, where C defines the overflow. */
MPI_Aint capi_Aint_add(MPI_Aint base, MPI_Aint disp)
{
	return (MPI_Aint)((unsigned long)base + (unsigned long)disp);
}

MPI_Aint capi_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
	return (MPI_Aint)((unsigned long)addr1 - (unsigned long)addr2);
}

/* The Fortran status is the C one's memory as MPI_STATUS_SIZE INTEGERs
   (MPI_SOURCE, MPI_TAG, MPI_ERROR first, as mpif.h numbers them). */
int capi_Status_c2f(MPI_Status *c_status, MPI_Fint *f_status)
{
	if (c_status == MPI_STATUS_IGNORE || f_status == NULL)
		return lamgo_fail_arg("MPI_Status_c2f: MPI_STATUS_IGNORE or NULL status");
	memcpy(f_status, c_status, sizeof *c_status);
	return MPI_SUCCESS;
}

int capi_Status_f2c(MPI_Fint *f_status, MPI_Status *c_status)
{
	if (f_status == NULL || c_status == MPI_STATUS_IGNORE)
		return lamgo_fail_arg("MPI_Status_f2c: NULL status or MPI_STATUS_IGNORE");
	memcpy(c_status, f_status, sizeof *c_status);
	return MPI_SUCCESS;
}
