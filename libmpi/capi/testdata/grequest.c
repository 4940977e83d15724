/* Generalized requests as a singleton: the query, free and cancel
   functions with their extra_state, completed by MPI_Wait and MPI_Test;
   MPI_Status_set_elements(_x) and MPI_Status_set_cancelled. */
#include <stdio.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (cond) printf("ok %s\n", #cond); else { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

struct op {
	int queries, frees, cancels, cancel_complete, cancelled, elements, err;
};

static int query(void *extra, MPI_Status *status)
{
	struct op *o = extra;
	o->queries++;
	MPI_Status_set_elements(status, MPI_INT, o->elements);
	MPI_Status_set_cancelled(status, o->cancelled);
	status->MPI_SOURCE = MPI_UNDEFINED;
	status->MPI_TAG = MPI_UNDEFINED;
	return o->err;
}

static int release(void *extra)
{
	((struct op *)extra)->frees++;
	return MPI_SUCCESS;
}

static int cancel(void *extra, int complete)
{
	struct op *o = extra;
	o->cancels++;
	o->cancel_complete = complete;
	if (!complete)
		o->cancelled = 1;
	return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
	struct op a = {0}, b = {0}, c = {0}, d = {0};
	MPI_Request r, rs[2];
	MPI_Status st, sts[2];
	MPI_Datatype three;
	int flag = -1, n = -1, rc, class;

	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

	/* Not complete until MPI_Grequest_complete; then Wait reports the
	   query's status and the free function has run. */
	a.elements = 5;
	CHECK(MPI_Grequest_start(query, release, cancel, &a, &r) == MPI_SUCCESS && r != MPI_REQUEST_NULL, "start");
	MPI_Test(&r, &flag, &st);
	CHECK(flag == 0 && r != MPI_REQUEST_NULL, "Test before complete: flag %d", flag);
	CHECK(MPI_Grequest_complete(r) == MPI_SUCCESS, "complete");
	CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS && r == MPI_REQUEST_NULL, "Wait");
	CHECK(a.queries == 1 && a.frees == 1 && a.cancels == 0, "callbacks: %d queries %d frees %d cancels", a.queries, a.frees, a.cancels);
	MPI_Get_count(&st, MPI_INT, &n);
	CHECK(n == 5, "count %d", n);
	MPI_Get_elements(&st, MPI_INT, &n);
	CHECK(n == 5, "elements %d", n);
	MPI_Test_cancelled(&st, &flag);
	CHECK(flag == 0, "not cancelled: %d", flag);

	/* Cancel calls the cancel function with complete false; the query
	   then reports the request cancelled. */
	CHECK(MPI_Grequest_start(query, release, cancel, &b, &r) == MPI_SUCCESS, "start b");
	CHECK(MPI_Cancel(&r) == MPI_SUCCESS, "cancel");
	CHECK(b.cancels == 1 && b.cancel_complete == 0, "cancel function: %d calls, complete %d", b.cancels, b.cancel_complete);
	MPI_Grequest_complete(r);
	CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS, "Wait b");
	MPI_Test_cancelled(&st, &flag);
	CHECK(flag == 1, "cancelled: %d", flag);
	CHECK(b.frees == 1, "b freed %d", b.frees);

	/* A query's error is the request's, reported by Waitall in its status. */
	c.err = MPI_ERR_TRUNCATE;
	MPI_Grequest_start(query, release, NULL, &c, &rs[0]);
	MPI_Grequest_start(query, NULL, NULL, &a, &rs[1]);
	MPI_Grequest_complete(rs[1]);
	MPI_Grequest_complete(rs[0]);
	rc = MPI_Waitall(2, rs, sts);
	MPI_Error_class(rc, &class);
	CHECK(class == MPI_ERR_IN_STATUS, "Waitall: class %d", class);
	MPI_Error_class(sts[0].MPI_ERROR, &class);
	CHECK(class == MPI_ERR_TRUNCATE, "status 0: class %d", class);
	CHECK(sts[1].MPI_ERROR == MPI_SUCCESS, "status 1: %d", sts[1].MPI_ERROR);
	CHECK(rs[0] == MPI_REQUEST_NULL && rs[1] == MPI_REQUEST_NULL && c.frees == 1, "both done");

	/* A class of C's own (no Go API class) keeps its number. */
	d.err = MPI_ERR_NO_MEM;
	MPI_Grequest_start(query, NULL, NULL, &d, &r);
	MPI_Grequest_complete(r);
	rc = MPI_Wait(&r, &st);
	MPI_Error_class(rc, &class);
	CHECK(class == MPI_ERR_NO_MEM, "Wait: class %d", class);

	/* Elements of a derived type: whole ones and a part of one. */
	MPI_Type_contiguous(3, MPI_INT, &three);
	MPI_Type_commit(&three);
	MPI_Status_set_elements(&st, three, 7);
	MPI_Get_elements(&st, three, &n);
	CHECK(n == 7, "elements of three %d", n);
	MPI_Get_count(&st, three, &n);
	CHECK(n == MPI_UNDEFINED, "count of 7 ints in threes %d", n);
	MPI_Status_set_elements(&st, three, 6);
	MPI_Get_count(&st, three, &n);
	CHECK(n == 2, "count of 6 ints in threes %d", n);
	MPI_Status_set_elements(&st, MPI_DOUBLE, 0);
	MPI_Get_count(&st, MPI_DOUBLE, &n);
	CHECK(n == 0, "count 0: %d", n);
	/* The _x form: a count wider than an int (5e9 bytes of MPI_BYTE),
	   and the errors it reports (the world returns them here). */
	{
		MPI_Count big = 5000000000LL, x = 0;
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
		rc = MPI_Status_set_elements_x(&st, MPI_BYTE, big);
		MPI_Get_elements_x(&st, MPI_BYTE, &x);
		CHECK(rc == MPI_SUCCESS && x == big, "set_elements_x %lld: rc %d, %lld", big, rc, x);
		MPI_Get_count(&st, MPI_BYTE, &n);
		CHECK(n == MPI_UNDEFINED, "count of 5e9 bytes in an int: %d", n);
		MPI_Get_elements(&st, MPI_BYTE, &n);
		CHECK(n == MPI_UNDEFINED, "elements of 5e9 bytes in an int: %d", n);
		rc = MPI_Status_set_elements_x(&st, three, 4);
		MPI_Get_elements_x(&st, three, &x);
		CHECK(rc == MPI_SUCCESS && x == 4, "set_elements_x of threes: rc %d, %lld", rc, x);
		rc = MPI_Status_set_elements_x(&st, MPI_DATATYPE_NULL, 1);
		MPI_Error_class(rc, &class);
		CHECK(class == MPI_ERR_TYPE, "set_elements_x of MPI_DATATYPE_NULL: class %d", class);
		rc = MPI_Status_set_elements_x(&st, MPI_INT, -1);
		MPI_Error_class(rc, &class);
		CHECK(rc != MPI_SUCCESS && class == MPI_ERR_COUNT, "set_elements_x of -1: class %d", class);
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	}
	MPI_Type_free(&three);

	MPI_Finalize();
	return failed;
}
