/*
 * crash.c: a rank that dies of a signal in the middle of a job. Every
 * rank initializes; then the last rank raises the signal given as the
 * first argument (default SIGSEGV, 11) while the others wait in MPI_Recv.
 * mpirun must name the rank and the signal and stop the others.
 * Ranks: at least 2 (the suite runs it on 3).
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, sig = argc > 1 ? atoi(argv[1]) : SIGSEGV, v;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1) {
        signal(sig, SIG_DFL);
        raise(sig);
    } else
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("FAIL crash: rank %d went on\n", rank);
    MPI_Finalize();
    return 1;
}
