/* The Fortran 77 bindings of MPI_Alloc_mem and MPI_Free_mem: BASEPTR is
   an INTEGER(KIND=MPI_ADDRESS_KIND) that receives the address (for a Cray
   pointer), and BASE is the memory itself, which Fortran passes by its
   address. Strong pmpi_ symbols with weak mpi_ aliases, as in fortran.c. */
#include "mpi.h"
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
