/* Error handlers, error classes, codes and strings as a singleton. */
#include <stdio.h>
#include <string.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (cond) printf("ok %s\n", #cond); else { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

static int calls, last_code;
static MPI_Comm last_comm = MPI_COMM_NULL;

static void handler(MPI_Comm *comm, int *code, ...)
{
	calls++;
	last_comm = *comm;
	last_code = *code;
}

int main(int argc, char **argv)
{
	int x = 0, cls = -1, code = -1, code2 = -1, len = 0, rc;
	char s[MPI_MAX_ERROR_STRING];
	MPI_Errhandler eh = MPI_ERRHANDLER_NULL, got = MPI_ERRHANDLER_NULL;
	MPI_Comm dup;

	MPI_Init(&argc, &argv);

	/* The default handler is MPI_ERRORS_ARE_FATAL. */
	MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got);
	CHECK(got == MPI_ERRORS_ARE_FATAL, "default handler");
	MPI_Errhandler_free(&got);

	/* MPI_ERRORS_RETURN: calls return the error class. */
	CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS, "set ERRORS_RETURN");
	MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got);
	CHECK(got == MPI_ERRORS_RETURN, "got ERRORS_RETURN");
	MPI_Errhandler_free(&got);
	rc = MPI_Send(&x, 1, MPI_INT, 3, 0, MPI_COMM_WORLD);
	MPI_Error_class(rc, &cls);
	CHECK(cls == MPI_ERR_RANK, "send to rank 3: class %d", cls);
	rc = MPI_Send(&x, 1, MPI_INT, 0, -5, MPI_COMM_WORLD);
	MPI_Error_class(rc, &cls);
	CHECK(cls == MPI_ERR_TAG, "negative tag: class %d", cls);
	rc = MPI_Send(&x, 1, MPI_Type_f2c(9999), 0, 0, MPI_COMM_WORLD);
	MPI_Error_class(rc, &cls);
	CHECK(cls == MPI_ERR_TYPE, "bad datatype: %d", rc);
	rc = MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD);
	MPI_Error_class(rc, &cls);
	CHECK(cls == MPI_ERR_COUNT, "negative count: %d", rc);

	/* A user's handler gets the communicator's handle and the code. */
	CHECK(MPI_Comm_create_errhandler(handler, &eh) == MPI_SUCCESS && eh != MPI_ERRHANDLER_NULL, "create_errhandler");
	CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, eh) == MPI_SUCCESS, "set on SELF");
	rc = MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
	CHECK(calls == 1 && last_comm == MPI_COMM_SELF && last_code == rc && rc == MPI_ERR_RANK, "handler called: %d calls, code %d, rc %d", calls, last_code, rc);
	MPI_Comm_get_errhandler(MPI_COMM_SELF, &got);
	CHECK(got == eh, "get returns the user's handler");
	MPI_Errhandler_free(&got);

	/* A communicator made from one inherits its handler. */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
	CHECK(MPI_Errhandler_free(&eh) == MPI_SUCCESS && eh == MPI_ERRHANDLER_NULL, "free while in use");
	MPI_Send(&x, 1, MPI_INT, 7, 0, MPI_COMM_WORLD);
	CHECK(calls == 2 && last_comm == MPI_COMM_WORLD, "a freed handler in use still runs: %d", calls);
	(void)dup;

	/* MPI_Comm_call_errhandler and user classes, codes and strings. */
	CHECK(MPI_Add_error_class(&cls) == MPI_SUCCESS && cls > MPI_ERR_LASTCODE, "Add_error_class %d", cls);
	CHECK(MPI_Add_error_code(cls, &code) == MPI_SUCCESS && code > cls, "Add_error_code %d", code);
	CHECK(MPI_Add_error_code(MPI_ERR_ARG, &code2) == MPI_SUCCESS && code2 > code, "code in a predefined class %d", code2);
	CHECK(MPI_Add_error_string(code, "my own error") == MPI_SUCCESS, "Add_error_string");
	MPI_Error_string(code, s, &len);
	CHECK(strcmp(s, "my own error") == 0 && len == 12, "string of the user code: %s", s);
	MPI_Error_class(code, &rc);
	CHECK(rc == cls, "class of the user code %d", rc);
	MPI_Error_class(code2, &rc);
	CHECK(rc == MPI_ERR_ARG, "class of a code in ERR_ARG %d", rc);
	CHECK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, code) == MPI_SUCCESS, "Comm_call_errhandler");
	CHECK(calls == 3 && last_code == code, "handler got the user code %d", last_code);

	/* LAM's text after the class name. */
	MPI_Error_string(MPI_ERR_TRUNCATE, s, &len);
	CHECK(strstr(s, "MPI_ERR_TRUNCATE") && strstr(s, "message truncated"), "%s", s);

#if MPI_VERSION < 3
	/* The MPI-1 names (removed in MPI-3). */
	{
		MPI_Errhandler old;
		CHECK(MPI_Errhandler_create(handler, &old) == MPI_SUCCESS, "Errhandler_create");
		CHECK(MPI_Errhandler_set(MPI_COMM_SELF, old) == MPI_SUCCESS, "Errhandler_set");
		MPI_Errhandler_get(MPI_COMM_SELF, &got);
		CHECK(got == old, "Errhandler_get");
		MPI_Send(&x, 1, MPI_INT, 2, 0, MPI_COMM_SELF);
		CHECK(calls == 4 && last_comm == MPI_COMM_SELF, "MPI-1 handler called");
		MPI_Errhandler_free(&got);
		MPI_Errhandler_free(&old);
	}
#endif
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_Errhandler_f2c(4242));
	MPI_Error_class(rc, &cls);
	CHECK(cls == MPI_ERR_ARG, "bad handler: %d", rc);
	CHECK(MPI_Finalize() == MPI_SUCCESS, "Finalize");
	return failed;
}
