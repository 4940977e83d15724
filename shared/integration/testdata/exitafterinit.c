/* Rank 1 ends after MPI_Init: with exit(N) for "exit N", by SIGKILL for
 * "kill"; the other ranks wait to be killed by mpirun. */
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 1) {
		if (argc > 1 && strcmp(argv[1], "kill") == 0)
			raise(SIGKILL);
		exit(argc > 2 ? atoi(argv[2]) : 3);
	}
	sleep(60);
	MPI_Finalize();
	return 0;
}
