/* The Fortran 77 bindings of attribute caching: the keyval calls, whose
   copy and delete functions are Fortran SUBROUTINEs called back with
   every argument by reference (attrcb.c), the attribute calls, whose
   values are INTEGERs for MPI-1's MPI_ATTR_PUT/MPI_ATTR_GET and
   INTEGER(KIND=MPI_ADDRESS_KIND)s for the MPI-2 calls, and MPI's
   predefined copy and delete functions as Fortran subroutines (mpif.h
   declares them EXTERNAL). A value set from Fortran is kept as the
   attribute's pointer bits (an INTEGER sign-extended), so C sees it as
   (void *)(MPI_Aint)value. Each is a strong pmpi_ symbol with a weak mpi_
   alias, as in fortran.c. */
#include "capi.h"
#include "attrcb.h"
#include "fortran.h"

/* An attribute value as Fortran gets it: the int a predefined attribute
   points to, else the value itself (what Fortran stored, or a C
   pointer's bits). */
static MPI_Aint attr_value(int keyval, void *v)
{
	if (keyval >= 0 && keyval < LAMGO_PREDEFINED_KEYVALS)
		return *(int *)v;
	return (MPI_Aint)v;
}

void pmpi_keyval_create_(void *copy_fn, void *delete_fn, MPI_Fint *keyval, MPI_Fint *extra_state, MPI_Fint *ierr)
{
	*ierr = lamgo_fortran_keyval(copy_fn, delete_fn, *extra_state, LAMGO_LANG_F77, 0, keyval, "MPI_KEYVAL_CREATE");
}
#pragma weak mpi_keyval_create_ = pmpi_keyval_create_

void pmpi_comm_create_keyval_(void *copy_fn, void *delete_fn, MPI_Fint *keyval, MPI_Aint *extra_state, MPI_Fint *ierr)
{
	*ierr = lamgo_fortran_keyval(copy_fn, delete_fn, *extra_state, LAMGO_LANG_F90, 0, keyval, "MPI_COMM_CREATE_KEYVAL");
}
#pragma weak mpi_comm_create_keyval_ = pmpi_comm_create_keyval_

void pmpi_type_create_keyval_(void *copy_fn, void *delete_fn, MPI_Fint *keyval, MPI_Aint *extra_state, MPI_Fint *ierr)
{
	*ierr = lamgo_fortran_keyval(copy_fn, delete_fn, *extra_state, LAMGO_LANG_F90, 1, keyval, "MPI_TYPE_CREATE_KEYVAL");
}
#pragma weak mpi_type_create_keyval_ = pmpi_type_create_keyval_

/* MPI-1's ATTR_PUT and ATTR_GET: INTEGER values. */
void pmpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *ierr)
{
	*ierr = MPI_Attr_put((MPI_Comm)*comm, *keyval, (void *)(MPI_Aint)*value);
}
#pragma weak mpi_attr_put_ = pmpi_attr_put_

void pmpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *flag, MPI_Fint *ierr)
{
	void *v = NULL;
	int f = 0;
	*ierr = MPI_Attr_get((MPI_Comm)*comm, *keyval, &v, &f);
	if (*ierr == MPI_SUCCESS) {
		*flag = f;
		if (f)
			*value = (MPI_Fint)attr_value(*keyval, v);
	}
}
#pragma weak mpi_attr_get_ = pmpi_attr_get_

/* MPI-2's attribute calls: INTEGER(KIND=MPI_ADDRESS_KIND) values. */
void pmpi_comm_set_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *ierr)
{
	*ierr = MPI_Comm_set_attr((MPI_Comm)*comm, *keyval, (void *)*value);
}
#pragma weak mpi_comm_set_attr_ = pmpi_comm_set_attr_

void pmpi_comm_get_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag, MPI_Fint *ierr)
{
	void *v = NULL;
	int f = 0;
	*ierr = MPI_Comm_get_attr((MPI_Comm)*comm, *keyval, &v, &f);
	if (*ierr == MPI_SUCCESS) {
		*flag = f;
		if (f)
			*value = attr_value(*keyval, v);
	}
}
#pragma weak mpi_comm_get_attr_ = pmpi_comm_get_attr_

void pmpi_type_set_attr_(MPI_Fint *type, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *ierr)
{
	*ierr = MPI_Type_set_attr((MPI_Datatype)*type, *keyval, (void *)*value);
}
#pragma weak mpi_type_set_attr_ = pmpi_type_set_attr_

void pmpi_type_get_attr_(MPI_Fint *type, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag, MPI_Fint *ierr)
{
	void *v = NULL;
	int f = 0;
	*ierr = MPI_Type_get_attr((MPI_Datatype)*type, *keyval, &v, &f);
	if (*ierr == MPI_SUCCESS) {
		*flag = f;
		if (f)
			*value = (MPI_Aint)v;
	}
}
#pragma weak mpi_type_get_attr_ = pmpi_type_get_attr_

/* MPI's predefined copy and delete functions, as Fortran subroutines: the
   null ones copy nothing (FLAG = .FALSE.) and delete nothing, the dup
   ones copy the value. MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN and
   MPI_DUP_FN take MPI-1's INTEGER values, the COMM_ and TYPE_ ones
   INTEGER(KIND=MPI_ADDRESS_KIND)s. */
void pmpi_null_copy_fn_(MPI_Fint *old, MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *in, MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierr)
{
	(void)old, (void)keyval, (void)extra, (void)in, (void)out;
	*flag = 0;
	*ierr = MPI_SUCCESS;
}
#pragma weak mpi_null_copy_fn_ = pmpi_null_copy_fn_

void pmpi_null_delete_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *extra, MPI_Fint *ierr)
{
	(void)obj, (void)keyval, (void)val, (void)extra;
	*ierr = MPI_SUCCESS;
}
#pragma weak mpi_null_delete_fn_ = pmpi_null_delete_fn_

void pmpi_dup_fn_(MPI_Fint *old, MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *in, MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierr)
{
	(void)old, (void)keyval, (void)extra;
	*out = *in;
	*flag = 1; /* gfortran's .TRUE. */
	*ierr = MPI_SUCCESS;
}
#pragma weak mpi_dup_fn_ = pmpi_dup_fn_

/* The MPI-2 ones: one function each for communicators and datatypes,
   whose Fortran arguments are alike. */
static void f90_null_copy(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr)
{
	(void)old, (void)keyval, (void)extra, (void)in, (void)out;
	*flag = 0;
	*ierr = MPI_SUCCESS;
}

static void f90_null_delete(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val, MPI_Aint *extra, MPI_Fint *ierr)
{
	(void)obj, (void)keyval, (void)val, (void)extra;
	*ierr = MPI_SUCCESS;
}

static void f90_dup(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr)
{
	(void)old, (void)keyval, (void)extra;
	*out = *in;
	*flag = 1;
	*ierr = MPI_SUCCESS;
}

void pmpi_comm_null_copy_fn_(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr)
{
	f90_null_copy(old, keyval, extra, in, out, flag, ierr);
}
#pragma weak mpi_comm_null_copy_fn_ = pmpi_comm_null_copy_fn_

void pmpi_comm_null_delete_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val, MPI_Aint *extra, MPI_Fint *ierr)
{
	f90_null_delete(obj, keyval, val, extra, ierr);
}
#pragma weak mpi_comm_null_delete_fn_ = pmpi_comm_null_delete_fn_

void pmpi_comm_dup_fn_(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr)
{
	f90_dup(old, keyval, extra, in, out, flag, ierr);
}
#pragma weak mpi_comm_dup_fn_ = pmpi_comm_dup_fn_

void pmpi_type_null_copy_fn_(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr)
{
	f90_null_copy(old, keyval, extra, in, out, flag, ierr);
}
#pragma weak mpi_type_null_copy_fn_ = pmpi_type_null_copy_fn_

void pmpi_type_null_delete_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val, MPI_Aint *extra, MPI_Fint *ierr)
{
	f90_null_delete(obj, keyval, val, extra, ierr);
}
#pragma weak mpi_type_null_delete_fn_ = pmpi_type_null_delete_fn_

void pmpi_type_dup_fn_(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr)
{
	f90_dup(old, keyval, extra, in, out, flag, ierr);
}
#pragma weak mpi_type_dup_fn_ = pmpi_type_dup_fn_
