/*
 * pi.c: LAM's classic pi by numerical integration of 4/(1+x^2) over
 * [0,1], in C: each rank sums every size-th interval and rank 0 adds up
 * the parts. The number of intervals is the first argument (default ten
 * million). Prints the same line as the Go examples/pi.
 *
 *   mpicc -o pi pi.c
 *   mpirun -np 4 pi [intervals]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    const double PI25DT = 3.141592653589793238462643;
    int rank, size, n = 10000000, i, src;
    double h, sum = 0, part, pi, err, start;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && atoi(argv[1]) > 0)
        n = atoi(argv[1]);
    start = MPI_Wtime();
    h = 1.0 / (double)n;
    for (i = rank; i < n; i += size) {
        double x = h * ((double)i + 0.5);
        sum += 4.0 / (1.0 + x * x);
    }
    part = h * sum;
    if (rank != 0)
        MPI_Send(&part, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    else {
        pi = part;
        for (src = 1; src < size; src++) {
            MPI_Recv(&part, 1, MPI_DOUBLE, src, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            pi += part;
        }
        err = pi > PI25DT ? pi - PI25DT : PI25DT - pi;
        printf("pi is approximately %.16f, error %.2e (%d intervals, %d processes, %.3f s)\n",
               pi, err, n, size, MPI_Wtime() - start);
    }
    MPI_Finalize();
    return 0;
}
