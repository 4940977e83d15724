/* The Fortran 77 bindings of MPI_Alloc_mem and MPI_Free_mem (BASEPTR is
   an INTEGER(KIND=MPI_ADDRESS_KIND) that receives the address, for a Cray
   pointer, and BASE is the memory itself, which Fortran passes by its
   address) and of MPI_Grequest_start (Fortran's callbacks are subroutines
   taking every argument by reference and the error code last). Strong
   pmpi_ symbols with weak mpi_ aliases, as in fortran.c. */
#include <stdlib.h>
#include "capi.h"
#include "fortran.h"

void pmpi_alloc_mem_(MPI_Aint *size, MPI_Fint *info, MPI_Aint *baseptr, MPI_Fint *ierr)
{
	*ierr = MPI_Alloc_mem(*size, (MPI_Info)*info, baseptr);
}
#pragma weak mpi_alloc_mem_ = pmpi_alloc_mem_

void pmpi_free_mem_(void *base, MPI_Fint *ierr)
{
	*ierr = MPI_Free_mem(base);
}
#pragma weak mpi_free_mem_ = pmpi_free_mem_

/* A Fortran generalized request: its subroutines and EXTRA_STATE, kept
   until the free function has run. */
struct lamgo_fgreq {
	void (*query)(MPI_Aint *extra, MPI_Fint *status, MPI_Fint *ierr);
	void (*release)(MPI_Aint *extra, MPI_Fint *ierr);
	void (*cancel)(MPI_Aint *extra, MPI_Fint *complete, MPI_Fint *ierr);
	MPI_Aint extra;
};

static int fgreq_query(void *x, MPI_Status *status)
{
	struct lamgo_fgreq *g = x;
	MPI_Fint ierr = MPI_SUCCESS;
	/* A Fortran status is the C one's memory (MPI_STATUS_SIZE INTEGERs). */
	g->query(&g->extra, (MPI_Fint *)status, &ierr);
	return ierr;
}

static int fgreq_free(void *x)
{
	struct lamgo_fgreq *g = x;
	MPI_Fint ierr = MPI_SUCCESS;
	g->release(&g->extra, &ierr);
	free(g);
	return ierr;
}

static int fgreq_cancel(void *x, int complete)
{
	struct lamgo_fgreq *g = x;
	MPI_Fint ierr = MPI_SUCCESS, c = complete != 0; /* gfortran's .TRUE. is 1 */
	g->cancel(&g->extra, &c, &ierr);
	return ierr;
}

void pmpi_grequest_start_(void *query_fn, void *free_fn, void *cancel_fn, MPI_Aint *extra_state, MPI_Fint *request, MPI_Fint *ierr)
{
	struct lamgo_fgreq *g = malloc(sizeof *g);
	if (g == NULL) {
		*ierr = lamgo_fail_arg("MPI_GREQUEST_START: out of memory");
		return;
	}
	g->query = query_fn;
	g->release = free_fn;
	g->cancel = cancel_fn;
	g->extra = *extra_state;
	*ierr = MPI_Grequest_start(fgreq_query, fgreq_free, fgreq_cancel, g, (MPI_Request *)request);
	if (*ierr != MPI_SUCCESS)
		free(g);
}
#pragma weak mpi_grequest_start_ = pmpi_grequest_start_
