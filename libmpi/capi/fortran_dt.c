/* The Fortran 77 bindings of the datatype calls gen cannot write from
   mpi.h: the MPI-1 address functions, whose addresses are MPI_Aint in C
   but INTEGER in Fortran 77 (an address that does not fit is
   MPI_ERR_ARG, not a truncated value), MPI_GET_ADDRESS, and the
   external32 calls, whose datarep is a Fortran string. Each is a strong
   pmpi_ symbol with a weak mpi_ alias, as in fortran.c. */
#include <limits.h>
#include <stdlib.h>
#include "capi.h"
#include "fortran.h"

/* fint stores an MPI_Aint in a Fortran INTEGER, or fails. */
static int fint(MPI_Aint a, MPI_Fint *out, char *fn)
{
	if (a < INT_MIN || a > INT_MAX)
		return lamgo_fail_arg(fn);
	*out = (MPI_Fint)a;
	return MPI_SUCCESS;
}

/* aints widens n Fortran INTEGERs into a new array (NULL for none). */
static MPI_Aint *aints(const MPI_Fint *f, int n)
{
	MPI_Aint *a;
	int i;
	if (n <= 0)
		return NULL;
	a = malloc(n * sizeof *a);
	if (a == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		a[i] = f[i];
	return a;
}

void pmpi_address_(void *location, MPI_Fint *address, MPI_Fint *ierr)
{
	MPI_Aint a;
	*ierr = MPI_Get_address(lamgo_f2c_buf(location), &a);
	if (*ierr == MPI_SUCCESS)
		*ierr = fint(a, address, "MPI_ADDRESS: the address does not fit in an INTEGER (use MPI_GET_ADDRESS)");
}
#pragma weak mpi_address_ = pmpi_address_

void pmpi_get_address_(void *location, MPI_Aint *address, MPI_Fint *ierr)
{
	*ierr = MPI_Get_address(lamgo_f2c_buf(location), address);
}
#pragma weak mpi_get_address_ = pmpi_get_address_

void pmpi_type_extent_(MPI_Fint *datatype, MPI_Fint *extent, MPI_Fint *ierr)
{
	MPI_Aint a;
	*ierr = MPI_Type_extent((MPI_Datatype)*datatype, &a);
	if (*ierr == MPI_SUCCESS)
		*ierr = fint(a, extent, "MPI_TYPE_EXTENT: the extent does not fit in an INTEGER");
}
#pragma weak mpi_type_extent_ = pmpi_type_extent_

void pmpi_type_lb_(MPI_Fint *datatype, MPI_Fint *lb, MPI_Fint *ierr)
{
	MPI_Aint a;
	*ierr = MPI_Type_lb((MPI_Datatype)*datatype, &a);
	if (*ierr == MPI_SUCCESS)
		*ierr = fint(a, lb, "MPI_TYPE_LB: the bound does not fit in an INTEGER");
}
#pragma weak mpi_type_lb_ = pmpi_type_lb_

void pmpi_type_ub_(MPI_Fint *datatype, MPI_Fint *ub, MPI_Fint *ierr)
{
	MPI_Aint a;
	*ierr = MPI_Type_ub((MPI_Datatype)*datatype, &a);
	if (*ierr == MPI_SUCCESS)
		*ierr = fint(a, ub, "MPI_TYPE_UB: the bound does not fit in an INTEGER");
}
#pragma weak mpi_type_ub_ = pmpi_type_ub_

void pmpi_type_hvector_(MPI_Fint *count, MPI_Fint *blocklength, MPI_Fint *stride, MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierr)
{
	*ierr = MPI_Type_hvector(*count, *blocklength, (MPI_Aint)*stride, (MPI_Datatype)*oldtype, (MPI_Datatype *)newtype);
}
#pragma weak mpi_type_hvector_ = pmpi_type_hvector_

void pmpi_type_hindexed_(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Fint *displacements, MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierr)
{
	MPI_Aint *d = aints(displacements, *count);
	if (d == NULL && *count > 0) {
		*ierr = lamgo_fail_arg("MPI_TYPE_HINDEXED: out of memory");
		return;
	}
	*ierr = MPI_Type_hindexed(*count, (int *)blocklengths, d, (MPI_Datatype)*oldtype, (MPI_Datatype *)newtype);
	free(d);
}
#pragma weak mpi_type_hindexed_ = pmpi_type_hindexed_

void pmpi_type_struct_(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Fint *displacements, MPI_Fint *types, MPI_Fint *newtype, MPI_Fint *ierr)
{
	MPI_Aint *d = aints(displacements, *count);
	if (d == NULL && *count > 0) {
		*ierr = lamgo_fail_arg("MPI_TYPE_STRUCT: out of memory");
		return;
	}
	*ierr = MPI_Type_struct(*count, (int *)blocklengths, d, (MPI_Datatype *)types, (MPI_Datatype *)newtype);
	free(d);
}
#pragma weak mpi_type_struct_ = pmpi_type_struct_

/* The datarep names are short: a longer one is no representation. */
#define DATAREP_MAX 64

void pmpi_pack_external_(char *datarep, void *inbuf, MPI_Fint *incount, MPI_Fint *datatype, void *outbuf, MPI_Aint *outsize, MPI_Aint *position, MPI_Fint *ierr, size_t datarep_len)
{
	char rep[DATAREP_MAX];
	lamgo_f2c_string(datarep, datarep_len, rep, sizeof rep);
	*ierr = MPI_Pack_external(rep, lamgo_f2c_buf(inbuf), *incount, (MPI_Datatype)*datatype, outbuf, *outsize, position);
}
#pragma weak mpi_pack_external_ = pmpi_pack_external_

void pmpi_unpack_external_(char *datarep, void *inbuf, MPI_Aint *insize, MPI_Aint *position, void *outbuf, MPI_Fint *outcount, MPI_Fint *datatype, MPI_Fint *ierr, size_t datarep_len)
{
	char rep[DATAREP_MAX];
	lamgo_f2c_string(datarep, datarep_len, rep, sizeof rep);
	*ierr = MPI_Unpack_external(rep, inbuf, *insize, position, lamgo_f2c_buf(outbuf), *outcount, (MPI_Datatype)*datatype);
}
#pragma weak mpi_unpack_external_ = pmpi_unpack_external_

void pmpi_pack_external_size_(char *datarep, MPI_Fint *incount, MPI_Fint *datatype, MPI_Aint *size, MPI_Fint *ierr, size_t datarep_len)
{
	char rep[DATAREP_MAX];
	lamgo_f2c_string(datarep, datarep_len, rep, sizeof rep);
	*ierr = MPI_Pack_external_size(rep, *incount, (MPI_Datatype)*datatype, size);
}
#pragma weak mpi_pack_external_size_ = pmpi_pack_external_size_
