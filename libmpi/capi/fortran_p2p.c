/* The Fortran 77 bindings of the point-to-point, request, error and
   environment calls gen cannot write: Fortran's indices count from 1
   (Waitany, Testany, Waitsome, Testsome), strings carry hidden lengths,
   MPI_Buffer_detach has no address to give back to Fortran, MPI_Pcontrol
   is variadic in C and MPI_Init_thread has no argv. Each is a strong
   pmpi_ symbol with a weak mpi_ alias, as in fortran.c. */
#include "mpi.h"
#include "fortran.h"

/* f_index is a C index as Fortran sees it. */
static MPI_Fint f_index(int i)
{
	return i == MPI_UNDEFINED || i < 0 ? i : i + 1;
}

void pmpi_waitany_(MPI_Fint *count, MPI_Fint *array_of_requests, MPI_Fint *index, MPI_Fint *status, MPI_Fint *ierr)
{
	int i = MPI_UNDEFINED;
	*ierr = MPI_Waitany((int)*count, (MPI_Request *)array_of_requests, &i, lamgo_f2c_status(status));
	*index = f_index(i);
}
#pragma weak mpi_waitany_ = pmpi_waitany_

void pmpi_testany_(MPI_Fint *count, MPI_Fint *array_of_requests, MPI_Fint *index, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)
{
	int i = MPI_UNDEFINED;
	*ierr = MPI_Testany((int)*count, (MPI_Request *)array_of_requests, &i, (int *)flag, lamgo_f2c_status(status));
	*index = f_index(i);
}
#pragma weak mpi_testany_ = pmpi_testany_

void pmpi_waitsome_(MPI_Fint *incount, MPI_Fint *array_of_requests, MPI_Fint *outcount, MPI_Fint *array_of_indices, MPI_Fint *array_of_statuses, MPI_Fint *ierr)
{
	int k;
	*ierr = MPI_Waitsome((int)*incount, (MPI_Request *)array_of_requests, (int *)outcount, (int *)array_of_indices, lamgo_f2c_status(array_of_statuses));
	for (k = 0; k < *outcount; k++)
		array_of_indices[k]++;
}
#pragma weak mpi_waitsome_ = pmpi_waitsome_

void pmpi_testsome_(MPI_Fint *incount, MPI_Fint *array_of_requests, MPI_Fint *outcount, MPI_Fint *array_of_indices, MPI_Fint *array_of_statuses, MPI_Fint *ierr)
{
	int k;
	*ierr = MPI_Testsome((int)*incount, (MPI_Request *)array_of_requests, (int *)outcount, (int *)array_of_indices, lamgo_f2c_status(array_of_statuses));
	for (k = 0; k < *outcount; k++)
		array_of_indices[k]++;
}
#pragma weak mpi_testsome_ = pmpi_testsome_

/* Fortran's BUFFER_ADDR is the buffer itself: the detached address means
   nothing there, so only the size comes back. */
void pmpi_buffer_detach_(void *buffer_addr, MPI_Fint *size, MPI_Fint *ierr)
{
	void *addr = NULL;
	int n = 0;
	(void)buffer_addr;
	*ierr = MPI_Buffer_detach(&addr, &n);
	*size = n;
}
#pragma weak mpi_buffer_detach_ = pmpi_buffer_detach_

void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
	int p = 0;
	*ierr = MPI_Init_thread(NULL, NULL, (int)*required, &p);
	*provided = p;
}
#pragma weak mpi_init_thread_ = pmpi_init_thread_

void pmpi_pcontrol_(MPI_Fint *level, MPI_Fint *ierr)
{
	*ierr = MPI_Pcontrol((int)*level);
}
#pragma weak mpi_pcontrol_ = pmpi_pcontrol_

void pmpi_get_library_version_(char *version, MPI_Fint *resultlen, MPI_Fint *ierr, size_t version_len)
{
	char c[MPI_MAX_LIBRARY_VERSION_STRING];
	int n = 0;
	*ierr = MPI_Get_library_version(c, &n);
	if (*ierr == MPI_SUCCESS) {
		lamgo_c2f_string(c, version, version_len);
		*resultlen = n < (int)version_len ? n : (int)version_len;
	}
}
#pragma weak mpi_get_library_version_ = pmpi_get_library_version_

void pmpi_add_error_string_(MPI_Fint *errorcode, const char *string, MPI_Fint *ierr, size_t string_len)
{
	char c[MPI_MAX_ERROR_STRING];
	lamgo_f2c_string(string, string_len, c, sizeof c);
	*ierr = MPI_Add_error_string((int)*errorcode, c);
}
#pragma weak mpi_add_error_string_ = pmpi_add_error_string_
