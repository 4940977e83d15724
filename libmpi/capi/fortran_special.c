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

/* Names and Info (the groups, communicators and attributes family;
   attributes are in fortran_attr.c). Strings are copied into buffers a
   little longer than MPI's limits, so that one too long is still too
   long for the C call (MPI_ERR_INFO_KEY …) instead of silently cut. */

void pmpi_comm_set_name_(MPI_Fint *comm, char *name, MPI_Fint *ierr, size_t name_len)
{
	char c[MPI_MAX_OBJECT_NAME + 1];
	lamgo_f2c_string(name, name_len, c, sizeof c);
	*ierr = MPI_Comm_set_name((MPI_Comm)*comm, c);
}
#pragma weak mpi_comm_set_name_ = pmpi_comm_set_name_

void pmpi_comm_get_name_(MPI_Fint *comm, char *name, MPI_Fint *resultlen, MPI_Fint *ierr, size_t name_len)
{
	char c[MPI_MAX_OBJECT_NAME];
	int n = 0;
	*ierr = MPI_Comm_get_name((MPI_Comm)*comm, c, &n);
	if (*ierr == MPI_SUCCESS) {
		lamgo_c2f_string(c, name, name_len);
		*resultlen = n < (int)name_len ? n : (int)name_len;
	}
}
#pragma weak mpi_comm_get_name_ = pmpi_comm_get_name_

void pmpi_type_set_name_(MPI_Fint *type, char *name, MPI_Fint *ierr, size_t name_len)
{
	char c[MPI_MAX_OBJECT_NAME + 1];
	lamgo_f2c_string(name, name_len, c, sizeof c);
	*ierr = MPI_Type_set_name((MPI_Datatype)*type, c);
}
#pragma weak mpi_type_set_name_ = pmpi_type_set_name_

void pmpi_type_get_name_(MPI_Fint *type, char *name, MPI_Fint *resultlen, MPI_Fint *ierr, size_t name_len)
{
	char c[MPI_MAX_OBJECT_NAME];
	int n = 0;
	*ierr = MPI_Type_get_name((MPI_Datatype)*type, c, &n);
	if (*ierr == MPI_SUCCESS) {
		lamgo_c2f_string(c, name, name_len);
		*resultlen = n < (int)name_len ? n : (int)name_len;
	}
}
#pragma weak mpi_type_get_name_ = pmpi_type_get_name_

void pmpi_info_set_(MPI_Fint *info, char *key, char *value, MPI_Fint *ierr, size_t key_len, size_t value_len)
{
	char k[MPI_MAX_INFO_KEY + 2], v[MPI_MAX_INFO_VAL + 2];
	lamgo_f2c_string(key, key_len, k, sizeof k);
	lamgo_f2c_string(value, value_len, v, sizeof v);
	*ierr = MPI_Info_set((MPI_Info)*info, k, v);
}
#pragma weak mpi_info_set_ = pmpi_info_set_

void pmpi_info_get_(MPI_Fint *info, char *key, MPI_Fint *valuelen, char *value, MPI_Fint *flag, MPI_Fint *ierr, size_t key_len, size_t value_len)
{
	char k[MPI_MAX_INFO_KEY + 2], v[MPI_MAX_INFO_VAL + 1];
	int n = *valuelen < (MPI_Fint)value_len ? *valuelen : (int)value_len, f = 0;
	lamgo_f2c_string(key, key_len, k, sizeof k);
	if (n > MPI_MAX_INFO_VAL)
		n = MPI_MAX_INFO_VAL;
	*ierr = MPI_Info_get((MPI_Info)*info, k, n < 0 ? *valuelen : n, v, &f);
	if (*ierr == MPI_SUCCESS) {
		*flag = f;
		if (f)
			lamgo_c2f_string(v, value, value_len);
	}
}
#pragma weak mpi_info_get_ = pmpi_info_get_

void pmpi_info_get_valuelen_(MPI_Fint *info, char *key, MPI_Fint *valuelen, MPI_Fint *flag, MPI_Fint *ierr, size_t key_len)
{
	char k[MPI_MAX_INFO_KEY + 2];
	int n = 0, f = 0;
	lamgo_f2c_string(key, key_len, k, sizeof k);
	*ierr = MPI_Info_get_valuelen((MPI_Info)*info, k, &n, &f);
	if (*ierr == MPI_SUCCESS) {
		*flag = f;
		if (f)
			*valuelen = n;
	}
}
#pragma weak mpi_info_get_valuelen_ = pmpi_info_get_valuelen_

void pmpi_info_get_nthkey_(MPI_Fint *info, MPI_Fint *n, char *key, MPI_Fint *ierr, size_t key_len)
{
	char k[MPI_MAX_INFO_KEY];
	*ierr = MPI_Info_get_nthkey((MPI_Info)*info, *n, k);
	if (*ierr == MPI_SUCCESS)
		lamgo_c2f_string(k, key, key_len);
}
#pragma weak mpi_info_get_nthkey_ = pmpi_info_get_nthkey_

void pmpi_info_delete_(MPI_Fint *info, char *key, MPI_Fint *ierr, size_t key_len)
{
	char k[MPI_MAX_INFO_KEY + 2];
	lamgo_f2c_string(key, key_len, k, sizeof k);
	*ierr = MPI_Info_delete((MPI_Info)*info, k);
}
#pragma weak mpi_info_delete_ = pmpi_info_delete_

/* MPI_AINT_ADD and MPI_AINT_DIFF are functions returning
   INTEGER(KIND=MPI_ADDRESS_KIND) values (mpif.h declares them). */
MPI_Aint pmpi_aint_add_(MPI_Aint *base, MPI_Aint *disp)
{
	return MPI_Aint_add(*base, *disp);
}
#pragma weak mpi_aint_add_ = pmpi_aint_add_

MPI_Aint pmpi_aint_diff_(MPI_Aint *addr1, MPI_Aint *addr2)
{
	return MPI_Aint_diff(*addr1, *addr2);
}
#pragma weak mpi_aint_diff_ = pmpi_aint_diff_
