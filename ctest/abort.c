/*
 * abort.c: MPI_Abort's error code becomes mpirun's exit status. Every
 * rank says it is ready; the last rank calls MPI_Abort(MPI_COMM_WORLD,
 * code) (code from the first argument, default 7) while the others wait
 * in MPI_Recv for a message nobody sends. The run must end with status
 * code and this program never prints its FAIL line.
 * Ranks: at least 2 (the suite runs it on 3).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, code = argc > 1 ? atoi(argv[1]) : 7, v;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("abort: rank %d ready\n", rank);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1)
        MPI_Abort(MPI_COMM_WORLD, code);
    else
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("FAIL abort: rank %d survived MPI_Abort\n", rank);
    MPI_Finalize();
    return 1;
}
