/* attrcb.c: the attribute callbacks' trampolines, and MPI_DUP_FN and its
   MPI-2 twins as real functions (MPI says they are functions a program
   may pass and call), strong PMPI_ names with weak MPI_ aliases. */
#include "attrcb.h"

int lamgo_attr_ints[LAMGO_PREDEFINED_KEYVALS];

int lamgo_comm_copy(void *f, MPI_Comm old, int keyval, uintptr_t extra, uintptr_t in, uintptr_t *out, int *flag)
{
	void *o = NULL;
	int rc = ((MPI_Comm_copy_attr_function *)f)(old, keyval, (void *)extra, (void *)in, &o, flag);
	*out = (uintptr_t)o;
	return rc;
}

int lamgo_comm_delete(void *f, MPI_Comm comm, int keyval, uintptr_t val, uintptr_t extra)
{
	return ((MPI_Comm_delete_attr_function *)f)(comm, keyval, (void *)val, (void *)extra);
}

int lamgo_type_copy(void *f, MPI_Datatype old, int keyval, uintptr_t extra, uintptr_t in, uintptr_t *out, int *flag)
{
	void *o = NULL;
	int rc = ((MPI_Type_copy_attr_function *)f)(old, keyval, (void *)extra, (void *)in, &o, flag);
	*out = (uintptr_t)o;
	return rc;
}

int lamgo_type_delete(void *f, MPI_Datatype type, int keyval, uintptr_t val, uintptr_t extra)
{
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
