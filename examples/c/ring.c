/*
 * ring.c: LAM's classic ring, in C: rank 0 sends the number 10 around
 * the ring of every rank; each time it comes back rank 0 decrements it;
 * every rank leaves once it has passed on 0. Prints the same lines as
 * the Go examples/ring.
 *
 *   mpicc -o ring ring.c
 *   mpirun -np 4 ring
 */
#include <mpi.h>
#include <stdio.h>

#define TAG 201

int main(int argc, char **argv)
{
    int rank, size, next, prev, message;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;

    if (rank == 0) {
        message = 10;
        printf("Process 0 sending %d to %d, tag %d (%d processes in ring)\n", message, next, TAG, size);
        MPI_Send(&message, 1, MPI_INT, next, TAG, MPI_COMM_WORLD);
        printf("Process 0 sent to %d\n", next);
    }
    for (;;) {
        MPI_Recv(&message, 1, MPI_INT, prev, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rank == 0) {
            message--;
            printf("Process 0 decremented value: %d\n", message);
        }
        MPI_Send(&message, 1, MPI_INT, next, TAG, MPI_COMM_WORLD);
        if (message == 0) {
            printf("Process %d exiting\n", rank);
            break;
        }
    }
    /* The last 0 comes back to rank 0: take it so nothing is left. */
    if (rank == 0)
        MPI_Recv(&message, 1, MPI_INT, prev, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
