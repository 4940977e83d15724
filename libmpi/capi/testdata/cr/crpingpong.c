/* A checked ping-pong of small messages, on the C fast path (fast.c) over
 * shared memory, until the file named by argv[1] exists; the test
 * (shared/integration TestCFastPathCheckpoint) checkpoints the job while
 * it runs. Each rank prints "rank N running" once started and
 * "ok crpingpong rank N: R round trips, F on the fast path" at the end. */
#include <stdio.h>
#include <unistd.h>
#include <mpi.h>

/* Messages the C fast path sent and received in this process. */
extern unsigned long long lamgo_fast_calls(void);

int main(int argc, char **argv)
{
	int rank, size, i, v, stop = 0, failed = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 2 || size != 2) {
		if (rank == 0)
			printf("FAIL usage: mpirun -np 2 crpingpong GATE\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	printf("rank %d running\n", rank);
	fflush(stdout);
	for (i = 0; !stop; i++) {
		if (rank == 0) {
			/* The message's value is the round's number, or -1 to stop
			 * once the gate is open. */
			v = (i % 4096 == 4095 && access(argv[1], F_OK) == 0) ? -1 : i;
			MPI_Send(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
			MPI_Recv(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
		}
		if (v == -1) {
			stop = 1;
		} else if (v != i) {
			printf("FAIL rank %d: round %d came as %d\n", rank, i, v);
			failed = 1;
			break;
		}
	}
	if (!failed)
		printf("ok crpingpong rank %d: %d round trips, %llu on the fast path\n", rank, i, lamgo_fast_calls());
	MPI_Finalize();
	return failed;
}
