/* attrcb.c: the attribute callbacks' trampolines, and MPI_DUP_FN and its
   MPI-2 twins as real functions (MPI says they are functions a program
   may pass and call), strong PMPI_ names with weak MPI_ aliases. */
#include "attrcb.h"

int lamgo_attr_ints[LAMGO_PREDEFINED_KEYVALS];

/* Fortran's copy and delete subroutines (handles are INTEGERs, as C's). */
typedef void lamgo_f77_copy(MPI_Fint *old, MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *in, MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierr);
typedef void lamgo_f77_delete(MPI_Fint *obj, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *extra, MPI_Fint *ierr);
typedef void lamgo_f90_copy(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr);
typedef void lamgo_f90_delete(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val, MPI_Aint *extra, MPI_Fint *ierr);

/* fortran_copy calls a Fortran copy subroutine on the handle old. */
static int fortran_copy(void *f, int lang, MPI_Fint old, MPI_Fint keyval, uintptr_t extra, uintptr_t in, uintptr_t *out, int *flag)
{
	MPI_Fint fl = 0, ierr = MPI_SUCCESS; /* gfortran's .FALSE. is 0 */
	if (lang == LAMGO_LANG_F77) {
		MPI_Fint x = (MPI_Fint)extra, i = (MPI_Fint)in, o = 0;
		((lamgo_f77_copy *)f)(&old, &keyval, &x, &i, &o, &fl, &ierr);
		*out = (uintptr_t)(intptr_t)o;
	} else {
		MPI_Aint x = (MPI_Aint)extra, i = (MPI_Aint)in, o = 0;
		((lamgo_f90_copy *)f)(&old, &keyval, &x, &i, &o, &fl, &ierr);
		*out = (uintptr_t)o;
	}
	*flag = fl != 0;
	return ierr;
}

/* fortran_delete calls a Fortran delete subroutine on the handle obj. */
static int fortran_delete(void *f, int lang, MPI_Fint obj, MPI_Fint keyval, uintptr_t val, uintptr_t extra)
{
	MPI_Fint ierr = MPI_SUCCESS;
	if (lang == LAMGO_LANG_F77) {
		MPI_Fint v = (MPI_Fint)val, x = (MPI_Fint)extra;
		((lamgo_f77_delete *)f)(&obj, &keyval, &v, &x, &ierr);
	} else {
		MPI_Aint v = (MPI_Aint)val, x = (MPI_Aint)extra;
		((lamgo_f90_delete *)f)(&obj, &keyval, &v, &x, &ierr);
	}
	return ierr;
}

int lamgo_comm_copy(void *f, int lang, MPI_Comm old, int keyval, uintptr_t extra, uintptr_t in, uintptr_t *out, int *flag)
{
	void *o = NULL;
	int rc;
	if (lang != LAMGO_LANG_C)
		return fortran_copy(f, lang, old, keyval, extra, in, out, flag);
	rc = ((MPI_Comm_copy_attr_function *)f)(old, keyval, (void *)extra, (void *)in, &o, flag);
	*out = (uintptr_t)o;
	return rc;
}

int lamgo_comm_delete(void *f, int lang, MPI_Comm comm, int keyval, uintptr_t val, uintptr_t extra)
{
	if (lang != LAMGO_LANG_C)
		return fortran_delete(f, lang, comm, keyval, val, extra);
	return ((MPI_Comm_delete_attr_function *)f)(comm, keyval, (void *)val, (void *)extra);
}

int lamgo_type_copy(void *f, int lang, MPI_Datatype old, int keyval, uintptr_t extra, uintptr_t in, uintptr_t *out, int *flag)
{
	void *o = NULL;
	int rc;
	if (lang != LAMGO_LANG_C)
		return fortran_copy(f, lang, old, keyval, extra, in, out, flag);
	rc = ((MPI_Type_copy_attr_function *)f)(old, keyval, (void *)extra, (void *)in, &o, flag);
	*out = (uintptr_t)o;
	return rc;
}

int lamgo_type_delete(void *f, int lang, MPI_Datatype type, int keyval, uintptr_t val, uintptr_t extra)
{
	if (lang != LAMGO_LANG_C)
		return fortran_delete(f, lang, type, keyval, val, extra);
	return ((MPI_Type_delete_attr_function *)f)(type, keyval, (void *)val, (void *)extra);
}

/* The copy functions that copy the value as it is. */
int PMPI_DUP_FN(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
	(void)old, (void)keyval, (void)extra;
	*(void **)out = in;
	*flag = 1;
	return MPI_SUCCESS;
}
#pragma weak MPI_DUP_FN = PMPI_DUP_FN

int PMPI_COMM_DUP_FN(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
	return PMPI_DUP_FN(old, keyval, extra, in, out, flag);
}
#pragma weak MPI_COMM_DUP_FN = PMPI_COMM_DUP_FN

int PMPI_TYPE_DUP_FN(MPI_Datatype old, int keyval, void *extra, void *in, void *out, int *flag)
{
	(void)old, (void)keyval, (void)extra;
	*(void **)out = in;
	*flag = 1;
	return MPI_SUCCESS;
}
#pragma weak MPI_TYPE_DUP_FN = PMPI_TYPE_DUP_FN
