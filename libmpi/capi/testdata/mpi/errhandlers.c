/* np: 2 3
 * Error handlers across ranks: MPI_ERRORS_RETURN and error classes from
 * bad ranks, tags and handles; a user's handler on MPI_COMM_WORLD and on
 * a communicator given the handler; MPI_ERR_IN_STATUS from Waitall. */
#include <stdio.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (!(cond)) { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

static int calls, last_code;
static MPI_Comm last_comm;

static void handler(MPI_Comm *comm, int *code, ...)
{
	calls++;
	last_comm = *comm;
	last_code = *code;
}

int main(int argc, char **argv)
{
	int rank, size, x = 1, y[4], rc, cls;
	MPI_Errhandler eh;
	MPI_Request rs[2];
	MPI_Status sts[2];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

	rc = MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
	MPI_Error_class(rc, &cls);
	CHECK(cls == MPI_ERR_RANK, "send to rank %d: %d", size, cls);
	rc = MPI_Recv(&x, 1, MPI_INT, -7, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Error_class(rc, &cls);
	CHECK(cls == MPI_ERR_RANK, "recv from rank -7: %d", cls);
	rc = MPI_Isend(&x, 1, MPI_INT, 0, -3, MPI_COMM_WORLD, &rs[0]);
	MPI_Error_class(rc, &cls);
	CHECK(cls == MPI_ERR_TAG, "negative tag: %d", cls);
	rc = MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_Comm_f2c(777));
	MPI_Error_class(rc, &cls);
	CHECK(cls == MPI_ERR_COMM, "bad communicator: %d", rc);
#ifdef LAMGO_MPI
	/* What a garbage handle does is the implementation's business: LAM/Go's
	   handles are table indexes, checked. */
	rs[0] = MPI_Request_f2c(31337);
	CHECK(MPI_Wait(&rs[0], MPI_STATUS_IGNORE) == MPI_ERR_REQUEST, "bad request");
#endif

	/* A truncated message: MPI_ERR_IN_STATUS from Waitall, the class in
	   the status. */
	if (rank == 0) {
		int big[4] = {1, 2, 3, 4};
		MPI_Send(big, 4, MPI_INT, 1, 1, MPI_COMM_WORLD);
	} else if (rank == 1) {
		MPI_Irecv(y, 2, MPI_INT, 0, 1, MPI_COMM_WORLD, &rs[0]);
		rs[1] = MPI_REQUEST_NULL;
		rc = MPI_Waitall(2, rs, sts);
		MPI_Error_class(sts[0].MPI_ERROR, &cls);
		CHECK(rc == MPI_ERR_IN_STATUS && cls == MPI_ERR_TRUNCATE, "Waitall: %d, status class %d", rc, cls);
	}

	/* A user's handler. */
	MPI_Comm_create_errhandler(handler, &eh);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
	rc = MPI_Send(&x, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD);
	CHECK(calls == 1 && last_comm == MPI_COMM_WORLD && last_code == rc, "handler: %d calls, code %d/%d", calls, last_code, rc);
	MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
	CHECK(calls == 2 && last_code == MPI_ERR_OTHER, "call_errhandler: %d", last_code);
	MPI_Errhandler_free(&eh);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

	/* The ring still works after all that. */
	{
		int next = (rank + 1) % size, prev = (rank + size - 1) % size, v = -1;
		MPI_Sendrecv(&rank, 1, MPI_INT, next, 2, &v, 1, MPI_INT, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		CHECK(v == prev, "ring after errors: %d", v);
	}
	MPI_Finalize();
	if (!failed)
		printf("ok errhandlers rank %d\n", rank);
	return failed;
}
