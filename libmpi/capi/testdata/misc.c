/* Small MPI-2/3 calls as a singleton: MPI_Alloc_mem and MPI_Free_mem,
   MPI_Aint_add and MPI_Aint_diff, MPI_Status_c2f and MPI_Status_f2c,
   MPI_Comm_dup_with_info, MPI_Comm_set_info and MPI_Comm_get_info,
   MPI_Type_match_size, MPI_Get_library_version. */
#include <stdio.h>
#include <string.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (cond) printf("ok %s\n", #cond); else { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

int main(int argc, char **argv)
{
	int *p = NULL, i, rc, class, size, len, key, flag, *val, one = 1;
	double a[4];
	MPI_Aint x, y;
	MPI_Status st, back;
	MPI_Fint f[16]; /* MPI_STATUS_SIZE INTEGERs (mpif.h's) */
	MPI_Comm dup;
	MPI_Info info;
	MPI_Datatype t;
	char version[MPI_MAX_LIBRARY_VERSION_STRING];

	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

	/* Memory: usable, freed; too much is MPI_ERR_NO_MEM. */
	CHECK(MPI_Alloc_mem(100 * sizeof(int), MPI_INFO_NULL, &p) == MPI_SUCCESS && p != NULL, "Alloc_mem");
	for (i = 0; i < 100; i++)
		p[i] = i;
	CHECK(p[99] == 99, "memory written");
	CHECK(MPI_Free_mem(p) == MPI_SUCCESS, "Free_mem");
	MPI_Info_create(&info);
	MPI_Info_set(info, "alloc_shared_noncontig", "true");
	CHECK(MPI_Alloc_mem(0, info, &p) == MPI_SUCCESS, "Alloc_mem of 0 bytes with hints");
	MPI_Free_mem(p);
	rc = MPI_Alloc_mem((MPI_Aint)1 << 62, MPI_INFO_NULL, &p);
	MPI_Error_class(rc, &class);
	CHECK(class == MPI_ERR_NO_MEM, "huge Alloc_mem: class %d", class);

	/* Address arithmetic. */
	MPI_Get_address(&a[0], &x);
	MPI_Get_address(&a[3], &y);
	CHECK(MPI_Aint_diff(y, x) == 3 * (MPI_Aint)sizeof(double), "Aint_diff %ld", (long)MPI_Aint_diff(y, x));
	CHECK(MPI_Aint_add(x, 3 * sizeof(double)) == y, "Aint_add");
	CHECK(MPI_Aint_diff(x, y) == -3 * (MPI_Aint)sizeof(double), "Aint_diff negative");

	/* A status through Fortran's form and back. */
	MPI_Sendrecv(a, 3, MPI_DOUBLE, 0, 7, a, 4, MPI_DOUBLE, 0, 7, MPI_COMM_SELF, &st);
	CHECK(MPI_Status_c2f(&st, f) == MPI_SUCCESS, "Status_c2f");
	/* Fortran's MPI_SOURCE and MPI_TAG are its first two INTEGERs. */
	CHECK(f[0] == 0 && f[1] == 7, "Fortran source %d tag %d", (int)f[0], (int)f[1]);
	memset(&back, 0xff, sizeof back);
	CHECK(MPI_Status_f2c(f, &back) == MPI_SUCCESS, "Status_f2c");
	MPI_Get_count(&back, MPI_DOUBLE, &i);
	CHECK(back.MPI_SOURCE == 0 && back.MPI_TAG == 7 && i == 3, "status back: source %d tag %d count %d", back.MPI_SOURCE, back.MPI_TAG, i);

	/* A duplicate with hints keeps attributes as Comm_dup does. */
	MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL);
	MPI_Comm_set_attr(MPI_COMM_WORLD, key, &one);
	CHECK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &dup) == MPI_SUCCESS, "Comm_dup_with_info");
	MPI_Comm_size(dup, &size);
	CHECK(size == 1, "dup size %d", size);
	MPI_Comm_get_attr(dup, key, &val, &flag);
	CHECK(flag && val == &one, "attribute copied: flag %d", flag);
	MPI_Comm_compare(dup, MPI_COMM_WORLD, &rc);
	CHECK(rc == MPI_CONGRUENT, "congruent %d", rc);
	MPI_Comm_free(&dup);
	MPI_Comm_delete_attr(MPI_COMM_WORLD, key);
	MPI_Comm_free_keyval(&key);
	/* Hints: LAM/Go uses none, so any may be set and get gives a new,
	   empty Info. */
	{
		MPI_Info used = MPI_INFO_NULL;
		int nkeys = -1;
		CHECK(MPI_Comm_set_info(MPI_COMM_WORLD, info) == MPI_SUCCESS, "Comm_set_info");
		CHECK(MPI_Comm_get_info(MPI_COMM_WORLD, &used) == MPI_SUCCESS && used != MPI_INFO_NULL, "Comm_get_info");
#ifdef OPEN_MPI
		/* Open MPI keeps hints, and reports them. */
		CHECK(MPI_Info_get_nkeys(used, &nkeys) == MPI_SUCCESS && nkeys >= 0, "nkeys of the hints used %d", nkeys);
#else
		CHECK(MPI_Info_get_nkeys(used, &nkeys) == MPI_SUCCESS && nkeys == 0, "nkeys of the hints used %d", nkeys);
#endif
		CHECK(MPI_Info_free(&used) == MPI_SUCCESS && used == MPI_INFO_NULL, "hints used freed");
	}
	MPI_Info_free(&info);
	rc = MPI_Comm_set_info(MPI_COMM_WORLD, info);
	MPI_Error_class(rc, &class);
	CHECK(class == MPI_ERR_INFO, "Comm_set_info of MPI_INFO_NULL: class %d", class);

	/* Fortran's types by size (which of two names of one size is given
	   differs: Open MPI gives MPI_INTEGER for 4 bytes). */
	{
		int classes[7] = {MPI_TYPECLASS_INTEGER, MPI_TYPECLASS_INTEGER, MPI_TYPECLASS_INTEGER, MPI_TYPECLASS_REAL,
				  MPI_TYPECLASS_REAL, MPI_TYPECLASS_COMPLEX, MPI_TYPECLASS_COMPLEX};
		int sizes[7] = {1, 4, 8, 4, 8, 8, 16};
		for (i = 0; i < 7; i++) {
			size = -1;
			rc = MPI_Type_match_size(classes[i], sizes[i], &t);
			if (rc == MPI_SUCCESS)
				MPI_Type_size(t, &size);
			CHECK(rc == MPI_SUCCESS && size == sizes[i], "class %d size %d: rc %d size %d", classes[i], sizes[i], rc, size);
		}
	}
	MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &t);
	CHECK(t == MPI_INTEGER || t == MPI_INTEGER4, "integer 4 is an INTEGER");
	MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t);
	CHECK(t == MPI_DOUBLE_PRECISION || t == MPI_REAL8, "real 8 is a DOUBLE PRECISION");
	rc = MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t);
	MPI_Error_class(rc, &class);
	CHECK(class == MPI_ERR_ARG, "integer 3: class %d", class);

	/* Open MPI counts the NUL in len. */
	CHECK(MPI_Get_library_version(version, &len) == MPI_SUCCESS && len > 0 && strlen(version) > 0, "library version %s", version);

	MPI_Finalize();
	return failed;
}
