/* Ends a job early, for shared/integration's TestCAbort:
 *   abort N   rank 1 calls MPI_Abort(MPI_COMM_WORLD, N)
 *   fatal     rank 1 sends to a rank that does not exist under the
 *             default error handler, MPI_ERRORS_ARE_FATAL
 * The other ranks wait in a receive that never completes. Rank 1 prints
 * a line first, which must not be lost when the job ends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, size, x = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 2) {
		fprintf(stderr, "usage: abort abort N | fatal\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (rank == 1) {
		printf("rank 1 before\n");
		if (strcmp(argv[1], "abort") == 0 && argc > 2)
			MPI_Abort(MPI_COMM_WORLD, atoi(argv[2]));
		else
			MPI_Send(&x, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
		printf("rank 1 not reached\n");
	} else {
		MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	MPI_Finalize();
	return 0;
}
