/* np: 2 3
 * Collective errors with MPI_ERRORS_RETURN: an op a type does not allow
 * (MPI_ERR_OP), an invalid op, a bad root (MPI_ERR_ROOT), MPI_IN_PLACE
 * where it is not allowed; the communicator still works afterwards. */
#include <stdio.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (!(cond)) { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

static int class_of(int rc)
{
	int c = -1;
	MPI_Error_class(rc, &c);
	return c;
}

int main(int argc, char **argv)
{
	int rank, size, rc;
	unsigned char b[4] = {1, 2, 3, 4}, bo[4];
	float f[2] = {1, 2}, fo[2];
	_Bool l[2] = {1, 0}, lo[2];
	int i[2] = {1, 2}, io[2];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

	rc = MPI_Allreduce(f, fo, 2, MPI_FLOAT, MPI_BAND, MPI_COMM_WORLD);
	CHECK(class_of(rc) == MPI_ERR_OP, "BAND on MPI_FLOAT: %d", rc);
	rc = MPI_Reduce(l, lo, 2, MPI_C_BOOL, MPI_PROD, 0, MPI_COMM_WORLD);
	CHECK(class_of(rc) == MPI_ERR_OP, "PROD on MPI_C_BOOL: %d", rc);
	rc = MPI_Allreduce(i, io, 2, MPI_INT, MPI_MAXLOC, MPI_COMM_WORLD);
	CHECK(class_of(rc) == MPI_ERR_OP, "MAXLOC on MPI_INT: %d", rc);
	rc = MPI_Allreduce(i, io, 2, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD);
	CHECK(class_of(rc) == MPI_ERR_OP, "MPI_OP_NULL: %d", rc);
	rc = MPI_Op_free(&(MPI_Op){MPI_SUM});
	CHECK(class_of(rc) == MPI_ERR_OP, "Op_free(MPI_SUM): %d", rc);
	printf("ok MPI_ERR_OP\n");

	rc = MPI_Bcast(i, 2, MPI_INT, size, MPI_COMM_WORLD);
	CHECK(class_of(rc) == MPI_ERR_ROOT, "Bcast to root %d: %d", size, rc);
	printf("ok MPI_ERR_ROOT\n");

	/* Allowed again after the errors. */
	rc = MPI_Allreduce(b, bo, 4, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD);
	CHECK(rc == MPI_SUCCESS && bo[0] == 1 && bo[3] == 4, "BOR on MPI_BYTE: %d", rc);
	rc = MPI_Allreduce(l, lo, 2, MPI_C_BOOL, MPI_LXOR, MPI_COMM_WORLD);
	CHECK(rc == MPI_SUCCESS && lo[0] == (size % 2) && lo[1] == 0, "LXOR on MPI_C_BOOL: %d", rc);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0 && !failed)
		printf("ok coll_errors\n");
	MPI_Finalize();
	return failed;
}
