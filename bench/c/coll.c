/*
 * coll.c: the C twin of bench/coll, for other MPIs (Open MPI, LAM 7.1.4):
 * the same loops and the same output (OSU's format).
 *
 *   mpicc -O2 -o coll bench/c/coll.c
 *   mpirun -np 4 ./coll [-min B] [-max B] [-iters N] allreduce|bcast|barrier
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    long min = 4 << 20, max = 4 << 20;
    int iters = 100;
    const char *mode = "allreduce";
    int rank, size, i;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-min") == 0 && i + 1 < argc)
            min = atol(argv[++i]);
        else if (strcmp(argv[i], "-max") == 0 && i + 1 < argc)
            max = atol(argv[++i]);
        else if (strcmp(argv[i], "-iters") == 0 && i + 1 < argc)
            iters = atoi(argv[++i]);
        else
            mode = argv[i];
    }
    if (strcmp(mode, "allreduce") && strcmp(mode, "bcast") && strcmp(mode, "barrier")) {
        if (rank == 0)
            fprintf(stderr, "usage: coll [-min B] [-max B] [-iters N] allreduce|bcast|barrier\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (strcmp(mode, "barrier") == 0)
        min = max = 0;
    float *send = malloc(max > 0 ? max : 1), *recv = malloc(max > 0 ? max : 1);
    if (!send || !recv)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (i = 0; i < max / 4; i++)
        send[i] = (float)(rank + i % 7);
    memset(recv, 0, max > 0 ? max : 1);
    if (rank == 0) {
        printf("# C MPI %s latency test, %d processes\n", mode, size);
        printf("%-10s%20s\n", "# Size", "Avg Latency(us)");
    }
    for (long s = min;; s = s * 2 > 0 ? s * 2 : 1) {
        int warm = iters / 10 > 0 ? iters / 10 : 1;
        for (int pass = 0; pass < 2; pass++) {
            int n = pass == 0 ? warm : iters;
            if (pass == 1)
                MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (i = 0; i < n; i++) {
                if (mode[0] == 'a')
                    MPI_Allreduce(send, recv, (int)(s / 4), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
                else if (mode[1] == 'c')
                    MPI_Bcast(send, (int)s, MPI_BYTE, 0, MPI_COMM_WORLD);
                else
                    MPI_Barrier(MPI_COMM_WORLD);
            }
            if (pass == 1) {
                double us = (MPI_Wtime() - t0) * 1e6 / iters, sum = 0;
                MPI_Reduce(&us, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
                if (rank == 0)
                    printf("%-10ld%20.2f\n", s, sum / size);
            }
        }
        if (s >= max)
            break;
    }
    free(send);
    free(recv);
    MPI_Finalize();
    return 0;
}
