/* Environment, errors and a self send as a singleton (one rank). */
#include <stdio.h>
#include <string.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (cond) printf("ok %s\n", #cond); else { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

int main(int argc, char **argv)
{
	int flag = -1, rank = -1, size = -1, len = 0, v, sv, class, n;
	char name[MPI_MAX_PROCESSOR_NAME], s[MPI_MAX_ERROR_STRING];
	MPI_Status st;

	MPI_Initialized(&flag);
	CHECK(flag == 0, "Initialized before Init: %d", flag);
	CHECK(MPI_Init(&argc, &argv) == MPI_SUCCESS, "Init");
	MPI_Initialized(&flag);
	CHECK(flag == 1, "Initialized after Init: %d", flag);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	CHECK(rank == 0 && size == 1, "rank %d size %d", rank, size);
	MPI_Comm_size(MPI_COMM_SELF, &size);
	CHECK(size == 1, "self size %d", size);
	CHECK(MPI_Get_processor_name(name, &len) == MPI_SUCCESS && len == (int)strlen(name) && len > 0, "name %s len %d", name, len);
	MPI_Get_version(&v, &sv);
	CHECK(v == MPI_VERSION && sv == MPI_SUBVERSION, "version %d.%d", v, sv);
	CHECK(MPI_Wtime() > 0 && MPI_Wtick() > 0 && MPI_Wtick() < 1, "wtime %g wtick %g", MPI_Wtime(), MPI_Wtick());

	/* Error classes keep LAM's numbers, and the strings their names. */
	MPI_Error_class(MPI_ERR_TRUNCATE, &class);
	CHECK(class == MPI_ERR_TRUNCATE, "class of TRUNCATE %d", class);
	MPI_Error_class(MPI_ERR_KEYVAL, &class);
	CHECK(class == MPI_ERR_KEYVAL, "class of KEYVAL %d", class);
	MPI_Error_string(MPI_ERR_RANK, s, &len);
	CHECK(strstr(s, "MPI_ERR_RANK") != NULL && len == (int)strlen(s), "string of ERR_RANK %s", s);
	MPI_Error_string(MPI_ERR_SPAWN, s, &len);
	CHECK(strstr(s, "MPI_ERR_SPAWN") != NULL, "string of ERR_SPAWN %s", s);

	/* Bad handles and counts are errors (the default handler is fatal, so
	   these wait until error handlers can be set) -- a send to self. */
	{
		int out = 17, in = 0;
		/* A rank cannot block-send to itself without buffering; probe the
		   receive side with a zero-size message to PROC_NULL instead. */
		CHECK(MPI_Send(&out, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD) == MPI_SUCCESS, "send to PROC_NULL");
		CHECK(MPI_Recv(&in, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st) == MPI_SUCCESS, "recv from PROC_NULL");
		MPI_Get_count(&st, MPI_INT, &n);
		CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && n == 0, "status %d %d %d", st.MPI_SOURCE, st.MPI_TAG, n);
	}
	CHECK(MPI_Finalize() == MPI_SUCCESS, "Finalize");
	MPI_Finalized(&flag);
	CHECK(flag == 1, "Finalized %d", flag);
	return failed;
}
