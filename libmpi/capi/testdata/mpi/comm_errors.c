/* np: 2 3
 * Error classes of the group, communicator, topology, attribute and Info
 * calls under MPI_ERRORS_RETURN, and what the calls leave behind after an
 * error: a failing copy function fails MPI_Comm_dup, a failing delete
 * function fails MPI_Comm_free and leaves the communicator usable. */
#include <stdio.h>
#include <string.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (!(cond)) { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

/* The class of an error code. */
static int cls(int rc)
{
	int c = rc;
	if (rc != MPI_SUCCESS)
		MPI_Error_class(rc, &c);
	return c;
}

static int copy_fail(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
	(void)old, (void)key, (void)extra, (void)in, (void)out;
	*flag = 0;
	return MPI_ERR_OTHER;
}

static int refuse = 1;
static int del_refuse(MPI_Comm c, int key, void *v, void *extra)
{
	(void)c, (void)key, (void)v, (void)extra;
	return refuse ? MPI_ERR_OTHER : MPI_SUCCESS;
}

int main(int argc, char **argv)
{
	int rank, size, rc, x, flag, k;
	MPI_Comm c, w = MPI_COMM_WORLD;
	MPI_Group g, ng;
	void *v;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

	/* Communicators. */
	rc = MPI_Comm_size(MPI_COMM_NULL, &x);
	CHECK(cls(rc) == MPI_ERR_COMM, "size of MPI_COMM_NULL: %d", rc);
	rc = MPI_Comm_free(&w);
	CHECK(cls(rc) == MPI_ERR_COMM && w == MPI_COMM_WORLD, "free of the world: %d", rc);
	rc = MPI_Comm_remote_size(MPI_COMM_WORLD, &x);
	CHECK(cls(rc) == MPI_ERR_COMM || (rc == MPI_SUCCESS && x == 0), "remote size of an intracommunicator: %d", rc); /* Open MPI: 0 */
	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
	{
		MPI_Comm ic;
		rc = MPI_Intercomm_create(c, size, MPI_COMM_WORLD, 0, 5, &ic);
	}
	CHECK(cls(rc) == MPI_ERR_RANK || cls(rc) == MPI_ERR_ARG, "intercomm with a bad local leader: %d", rc);

	/* Groups. */
	MPI_Comm_group(MPI_COMM_WORLD, &g);
	{
		int bad[1] = {size};
		rc = MPI_Group_incl(g, 1, bad, &ng);
		CHECK(cls(rc) == MPI_ERR_RANK, "incl of rank %d: %d", size, rc);
	}

	/* Topologies. */
	{
		int coords[2], dims[2] = {0, 3};
		rc = MPI_Cart_coords(c, 0, 2, coords);
		CHECK(cls(rc) == MPI_ERR_TOPOLOGY, "coords without a grid: %d", rc);
		rc = MPI_Dims_create(7, 2, dims);
		CHECK(cls(rc) == MPI_ERR_DIMS, "dims of 7 with 3 fixed: %d", rc);
	}

	/* Attributes. */
	rc = MPI_Comm_set_attr(c, MPI_TAG_UB, &x);
	CHECK(rc != MPI_SUCCESS, "setting MPI_TAG_UB: %d", rc);
	rc = MPI_Comm_get_attr(c, 12345, &v, &flag);
	CHECK(cls(rc) == MPI_ERR_KEYVAL || cls(rc) == MPI_ERR_OTHER, "an invalid keyval: %d", rc);
	MPI_Comm_create_keyval(copy_fail, MPI_COMM_NULL_DELETE_FN, &k, NULL);
	MPI_Comm_set_attr(c, k, (void *)1);
	{
		MPI_Comm d = MPI_COMM_SELF;
		rc = MPI_Comm_dup(c, &d);
		CHECK(rc != MPI_SUCCESS && d == MPI_COMM_NULL, "a failing copy function fails the dup: %d", rc);
	}
	MPI_Comm_delete_attr(c, k);
	MPI_Comm_free_keyval(&k);
	MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_refuse, &k, NULL);
	MPI_Comm_set_attr(c, k, (void *)2);
	rc = MPI_Comm_free(&c);
	CHECK(rc != MPI_SUCCESS && c != MPI_COMM_NULL, "a failing delete function fails the free: %d", rc);
	/* c still works. */
	MPI_Comm_size(c, &x);
	CHECK(x == size, "size after a failed free: %d", x);
	refuse = 0;
	rc = MPI_Comm_free(&c);
	CHECK(rc == MPI_SUCCESS && c == MPI_COMM_NULL, "free once the delete function agrees: %d", rc);
	MPI_Comm_free_keyval(&k);

	/* Info. */
	{
		MPI_Info in;
		char key[MPI_MAX_INFO_KEY + 8];
		MPI_Info_create(&in);
		rc = MPI_Info_delete(in, "none");
		CHECK(cls(rc) == MPI_ERR_INFO_NOKEY, "delete a missing key: %d", rc);
		rc = MPI_Info_get_nthkey(in, 0, key);
		CHECK(cls(rc) == MPI_ERR_ARG || cls(rc) == MPI_ERR_INFO_KEY, "key 0 of an empty info: %d", rc);
		memset(key, 'k', sizeof key - 1);
		key[sizeof key - 1] = 0;
		rc = MPI_Info_set(in, key, "v");
		CHECK(cls(rc) == MPI_ERR_INFO_KEY, "a key too long: %d", rc);
		MPI_Info_free(&in);
		rc = MPI_Info_set(in, "a", "b");
		CHECK(cls(rc) == MPI_ERR_INFO || cls(rc) == MPI_ERR_ARG, "set on MPI_INFO_NULL: %d", rc);
	}

	MPI_Group_free(&g);
	MPI_Finalize();
	if (!failed)
		printf("ok comm_errors rank %d\n", rank);
	return failed;
}
