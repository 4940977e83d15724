/*
 * pingpong.c: the C twin of bench/pingpong's latency test, for running the
 * same measurement on other MPIs (Open MPI, LAM 7.1.4) side by side:
 *
 *   mpicc -O2 -o pingpong-c bench/c/pingpong.c
 *   mpirun -np 2 ./pingpong-c [max-bytes] [iterations] [min-bytes]
 *
 * It prints the OSU micro-benchmarks' format: "# Size  Latency (us)" and
 * one line per size, the one-way latency as half a round trip.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, max = 4 << 20, iters = 1000, min = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1) max = atoi(argv[1]);
    if (argc > 2) iters = atoi(argv[2]);
    if (argc > 3) min = atoi(argv[3]);
    char *buf = malloc(max > 0 ? max : 1);
    if (rank == 0) {
        printf("# C MPI latency test (one-way, half of a round trip)\n");
        printf("%-10s%20s\n", "# Size", "Latency (us)");
    }
    /* Start measuring in a steady state, as the Go twin does. */
    for (int i = 0; i < 20000 && rank < 2; i++) {
        if (rank == 0) {
            MPI_Send(buf, 1, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, 1, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, 1, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, 1, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
    }
    for (int s = min > 0 ? min : 1; s <= max && rank < 2; s *= 2) {
        int n = s > 65536 ? (iters / 10 > 10 ? iters / 10 : 10) : iters;
        int warm = n / 10 > 2 ? n / 10 : 2;
        double t0 = 0;
        for (int i = -warm; i < n; i++) {
            if (i == 0) t0 = MPI_Wtime();
            if (rank == 0) {
                MPI_Send(buf, s, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, s, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, s, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, s, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            }
        }
        if (rank == 0)
            printf("%-10d%20.2f\n", s, (MPI_Wtime() - t0) * 1e6 / (2.0 * n));
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
