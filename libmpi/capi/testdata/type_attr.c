/* Datatype attributes with copy and delete functions through
 * MPI_Type_dup and MPI_Type_free (the datatype each is called with, their
 * order), and datatype names, as a singleton. */
#include <stdio.h>
#include <string.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (cond) printf("ok %s\n", #cond); else { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

static MPI_Datatype expect; /* the datatype the next callback gets */
static char cblog[128];

static int copy_inc(MPI_Datatype old, int key, void *extra, void *in, void *out, int *flag)
{
	(void)key, (void)extra;
	if (old != expect)
		printf("FAIL copy function called with another datatype\n"), failed = 1;
	strcat(cblog, "c ");
	*(void **)out = (void *)((long)in + 1);
	*flag = 1;
	return MPI_SUCCESS;
}

static int del_log(MPI_Datatype t, int key, void *v, void *extra)
{
	char b[16];
	(void)key, (void)extra;
	if (t != expect)
		printf("FAIL delete function called with another datatype\n"), failed = 1;
	snprintf(b, sizeof b, "d%ld ", (long)v);
	strcat(cblog, b);
	return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
	MPI_Datatype v, d;
	int k, flag, len;
	void *val;
	char name[MPI_MAX_OBJECT_NAME];

	MPI_Init(&argc, &argv);
	MPI_Type_vector(2, 1, 2, MPI_INT, &v);
	MPI_Type_get_name(v, name, &len);
	CHECK(len == 0 && name[0] == 0, "an unnamed datatype's name is empty: '%s'", name);
	MPI_Type_set_name(v, "every other");
	MPI_Type_get_name(v, name, &len);
	CHECK(strcmp(name, "every other") == 0 && len == 11, "named %s %d", name, len);

	MPI_Type_create_keyval(copy_inc, del_log, &k, NULL);
	MPI_Type_set_attr(v, k, (void *)5);
	expect = v;
	MPI_Type_dup(v, &d);
	MPI_Type_get_attr(d, k, &val, &flag);
	CHECK(flag && val == (void *)6, "the dup's value: %d %p", flag, val);
	expect = d;
	MPI_Type_free(&d);
	expect = v;
	MPI_Type_free(&v);
	CHECK(strcmp(cblog, "c d6 d5 ") == 0, "callbacks: %s", cblog);
	MPI_Type_free_keyval(&k);
	CHECK(k == MPI_KEYVAL_INVALID, "keyval freed");
	MPI_Finalize();
	return failed;
}
