/*
 * pingpong.c: the C twin of bench/pingpong, for running the same
 * measurements on any MPI (LAM/Go through its mpicc, Open MPI, LAM 7.1.4)
 * side by side. It takes bench/pingpong's options and tests and prints
 * the same lines (the OSU micro-benchmarks' format):
 *
 *   mpicc -O2 -o pingpong-c bench/c/pingpong.c
 *   mpirun -np 2 ./pingpong-c [-min B] [-max B] [-iters N] [-window W] [latency|pingpong|bw]
 *
 *   latency    one-way latency, half a round trip (the default)
 *   pingpong   ping-pong bandwidth
 *   bw         windowed bandwidth (osu_bw)
 *
 * For the older scripts, bare numbers are also read as
 * [max-bytes] [iterations] [min-bytes].
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

/* round_trip returns the seconds one ping-pong of size bytes takes,
 * averaged over the measured rounds. */
static double round_trip(char *buf, int size, int rank, int peer, int iters)
{
    int n, warm, i;
    double t0 = 0;
    rounds(iters, size, &n, &warm);
    for (i = -warm; i < n; i++) {
        if (i == 0)
            t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
        }
    }
    return (MPI_Wtime() - t0) / n;
}

int main(int argc, char **argv)
{
    int rank, size, max = 4 << 20, iters = 1000, min = 1, window = 64, npos = 0, s, i, w;
    const char *mode = "latency";
    char *buf;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-min") == 0 && i + 1 < argc)
            min = atoi(argv[++i]);
        else if (strcmp(argv[i], "-max") == 0 && i + 1 < argc)
            max = atoi(argv[++i]);
        else if (strcmp(argv[i], "-iters") == 0 && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (strcmp(argv[i], "-window") == 0 && i + 1 < argc)
            window = atoi(argv[++i]);
        else if (argv[i][0] >= '0' && argv[i][0] <= '9') {
            int v = atoi(argv[i]);
            if (npos == 0)
                max = v;
            else if (npos == 1)
                iters = v;
            else
                min = v;
            npos++;
        } else
            mode = argv[i];
    }
    if (size < 2) {
        fprintf(stderr, "pingpong: run it with at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (strcmp(mode, "latency") && strcmp(mode, "pingpong") && strcmp(mode, "bw")) {
        if (rank == 0)
            fprintf(stderr, "pingpong: unknown test \"%s\" (latency, pingpong or bw)\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (min < 1)
        min = 1;
    if (iters < 1)
        iters = 1;
    if (window < 1)
        window = 1;
    if (rank > 1) {
        MPI_Finalize();
        return 0;
    }
    buf = malloc(max > 0 ? max : 1);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(buf, 0, max > 0 ? max : 1);
    /* Start measuring in a steady state, as the Go twin does. */
    round_trip(buf, 1, rank, 1 - rank, 20000);

    if (strcmp(mode, "latency") == 0) {
        if (rank == 0) {
            printf("# C MPI latency test (one-way, half of a round trip)\n");
            printf("%-10s%20s\n", "# Size", "Latency (us)");
        }
        for (s = min; s <= max; s *= 2) {
            double rt = round_trip(buf, s, rank, 1 - rank, iters);
            if (rank == 0)
                printf("%-10d%20.2f\n", s, rt * 1e6 / 2);
        }
    } else if (strcmp(mode, "pingpong") == 0) {
        if (rank == 0) {
            printf("# C MPI ping-pong bandwidth test\n");
            printf("%-10s%20s\n", "# Size", "Bandwidth (MB/s)");
        }
        for (s = min; s <= max; s *= 2) {
            double rt = round_trip(buf, s, rank, 1 - rank, iters);
            if (rank == 0)
                printf("%-10d%20.2f\n", s, 2.0 * s / rt / 1e6);
        }
    } else {
        MPI_Request *reqs = malloc(sizeof(MPI_Request) * window);
        char ack = 0;
        if (rank == 0) {
            printf("# C MPI bandwidth test (windowed)\n");
            printf("%-10s%20s\n", "# Size", "Bandwidth (MB/s)");
        }
        for (s = min; s <= max; s *= 2) {
            int n, warm;
            double t0 = 0;
            rounds(iters / 10 + 1, s, &n, &warm);
            for (i = -warm; i < n; i++) {
                if (i == 0)
                    t0 = MPI_Wtime();
                for (w = 0; w < window; w++) {
                    if (rank == 0)
                        MPI_Isend(buf, s, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &reqs[w]);
                    else
                        MPI_Irecv(buf, s, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &reqs[w]);
                }
                MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
                if (rank == 0)
                    MPI_Recv(&ack, 1, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                else
                    MPI_Send(&ack, 1, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
            }
            if (rank == 0)
                printf("%-10d%20.2f\n", s, (double)n * window * s / (MPI_Wtime() - t0) / 1e6);
        }
        free(reqs);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
