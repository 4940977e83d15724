/*
 * vector.c: the C twin of bench/pingpong's vector test, for comparing the
 * transfer of strided data on any MPI (LAM/Go through its mpicc, Open MPI,
 * LAM 7.1.4): float64 data, every -stride'th double of a buffer, sent as
 * an MPI_Type_vector (or, with -pack, packed by hand with MPI_Pack, sent
 * as MPI_PACKED and unpacked), timed as half a round trip:
 *
 *   mpicc -O2 -o vector-c bench/c/vector.c
 *   mpirun -np 2 ./vector-c [-min B] [-max B] [-iters N] [-stride S] [-pack]
 *
 * Sizes are the data bytes of one message (the buffer spans stride times
 * as many); it prints the OSU micro-benchmarks' latency format.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* rounds scales the iteration count down for large messages, as the Go
 * twin's rounds does. */
static void rounds(int iters, int size, int *n, int *warm)
{
    *n = size > 65536 ? (iters / 10 > 10 ? iters / 10 : 10) : iters;
    *warm = *n / 10 > 2 ? *n / 10 : 2;
}

/* vector_trip returns the seconds one ping-pong of n doubles, every
 * stride'th of data, takes, averaged. */
static double vector_trip(double *data, char *packed, int n, int stride, int pack,
                          int rank, int peer, int iters)
{
    MPI_Datatype v;
    MPI_Type_vector(n, 1, stride, MPI_DOUBLE, &v);
    MPI_Type_commit(&v);
    int psize = 0;
    MPI_Pack_size(1, v, MPI_COMM_WORLD, &psize);
    int k, warm;
    rounds(iters, 8 * n, &k, &warm);
    double t0 = 0;
    for (int i = -warm; i < k; i++) {
        if (i == 0)
            t0 = MPI_Wtime();
        for (int turn = 0; turn < 2; turn++) {
            int sending = (turn == 0) == (rank == 0);
            if (sending && pack) {
                int pos = 0;
                MPI_Pack(data, 1, v, packed, psize, &pos, MPI_COMM_WORLD);
                MPI_Send(packed, pos, MPI_PACKED, peer, 1, MPI_COMM_WORLD);
            } else if (sending) {
                MPI_Send(data, 1, v, peer, 1, MPI_COMM_WORLD);
            } else if (pack) {
                int pos = 0;
                MPI_Recv(packed, psize, MPI_PACKED, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Unpack(packed, psize, &pos, data, 1, v, MPI_COMM_WORLD);
            } else {
                MPI_Recv(data, 1, v, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        }
    }
    double t = (MPI_Wtime() - t0) / k;
    MPI_Type_free(&v);
    return t;
}

int main(int argc, char **argv)
{
    long min = 8, max = 4 << 20;
    int iters = 1000, stride = 2, pack = 0;
    MPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-min") && i + 1 < argc)
            min = atol(argv[++i]);
        else if (!strcmp(argv[i], "-max") && i + 1 < argc)
            max = atol(argv[++i]);
        else if (!strcmp(argv[i], "-iters") && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-stride") && i + 1 < argc)
            stride = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-pack"))
            pack = 1;
        else {
            fprintf(stderr, "vector-c: unknown argument %s\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || stride < 1 || min < 8 || max < min) {
        if (rank == 0)
            fprintf(stderr, "vector-c: run it with 2 ranks, stride >= 1, 8 <= min <= max\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank > 1) {
        MPI_Finalize();
        return 0;
    }
    int peer = 1 - rank;
    long n = max / 8;
    double *data = calloc((size_t)((n - 1) * stride + 1), sizeof(double));
    char *packed = malloc((size_t)max + 1024);
    if (!data || !packed) {
        fprintf(stderr, "vector-c: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) {
        printf("# MPI strided vector test (stride %d, pack %s; one-way, half of a round trip)\n",
               stride, pack ? "true" : "false");
        printf("%-10s%20s\n", "# Size", "Latency (us)");
    }
    for (long s = min; s <= max; s *= 2) {
        double t = vector_trip(data, packed, (int)(s / 8), stride, pack, rank, peer, iters);
        if (rank == 0)
            printf("%-10ld%20.2f\n", s, t * 1e6 / 2);
    }
    free(data);
    free(packed);
    MPI_Finalize();
    return 0;
}
