/* The Fortran 77 bindings gen cannot write from mpi.h: calls without C's
   arguments (MPI_INIT), functions returning values (MPI_WTIME), and
   strings, which gfortran passes blank-padded with hidden lengths after
   the other arguments. Each is a strong pmpi_ symbol with a weak mpi_
   alias, as in fortran.c. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include "mpi.h"
#include "fortran.h"

/* mpif.h's common blocks (see fortran.h). */
MPI_Fint mpi_fortran_bottom_;
MPI_Fint mpi_fortran_in_place_;
MPI_Fint mpi_fortran_status_ignore_[6];
MPI_Fint mpi_fortran_statuses_ignore_[6];

/* The addresses the program gives them: its own common blocks when it
   allocates them (a Fortran executable does, and exports them); ours
   otherwise. */
void *lamgo_f_bottom, *lamgo_f_in_place, *lamgo_f_status_ignore, *lamgo_f_statuses_ignore;

static void *lamgo_common(void *prog, const char *name, void *ours)
{
	void *p = prog ? dlsym(prog, name) : NULL;
	return p ? p : ours;
}

/* Looked up through the program's handle: RTLD_DEFAULT would search
   this library first (it is linked -Bsymbolic). */
__attribute__((constructor)) static void lamgo_fortran_commons(void)
{
	void *prog = dlopen(NULL, RTLD_NOW);
	lamgo_f_bottom = lamgo_common(prog, "mpi_fortran_bottom_", &mpi_fortran_bottom_);
	lamgo_f_in_place = lamgo_common(prog, "mpi_fortran_in_place_", &mpi_fortran_in_place_);
	lamgo_f_status_ignore = lamgo_common(prog, "mpi_fortran_status_ignore_", mpi_fortran_status_ignore_);
	lamgo_f_statuses_ignore = lamgo_common(prog, "mpi_fortran_statuses_ignore_", mpi_fortran_statuses_ignore_);
}

void lamgo_f2c_string(const char *f, size_t n, char *c, size_t max)
{
	while (n > 0 && f[n - 1] == ' ')
		n--;
	if (n > max - 1)
		n = max - 1;
	memcpy(c, f, n);
	c[n] = 0;
}

void lamgo_c2f_string(const char *c, char *f, size_t n)
{
	size_t l = strlen(c);
	if (l > n)
		l = n;
	memcpy(f, c, l);
	memset(f + l, ' ', n - l);
}

void pmpi_init_(MPI_Fint *ierr)
{
	*ierr = MPI_Init(NULL, NULL);
}
#pragma weak mpi_init_ = pmpi_init_

double pmpi_wtime_(void)
{
	return MPI_Wtime();
}
#pragma weak mpi_wtime_ = pmpi_wtime_

double pmpi_wtick_(void)
{
	return MPI_Wtick();
}
#pragma weak mpi_wtick_ = pmpi_wtick_

void pmpi_get_processor_name_(char *name, MPI_Fint *resultlen, MPI_Fint *ierr, size_t name_len)
{
	char c[MPI_MAX_PROCESSOR_NAME];
	int n = 0;
	*ierr = MPI_Get_processor_name(c, &n);
	if (*ierr == MPI_SUCCESS) {
		lamgo_c2f_string(c, name, name_len);
		*resultlen = n < (int)name_len ? n : (int)name_len;
	}
}
#pragma weak mpi_get_processor_name_ = pmpi_get_processor_name_

void pmpi_error_string_(MPI_Fint *code, char *string, MPI_Fint *resultlen, MPI_Fint *ierr, size_t string_len)
{
	char c[MPI_MAX_ERROR_STRING];
	int n = 0;
	*ierr = MPI_Error_string(*code, c, &n);
	if (*ierr == MPI_SUCCESS) {
		lamgo_c2f_string(c, string, string_len);
		*resultlen = n < (int)string_len ? n : (int)string_len;
	}
}
#pragma weak mpi_error_string_ = pmpi_error_string_
