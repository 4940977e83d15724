/*
 * coll.c: the C twin of bench/coll, for other MPIs (Open MPI, LAM 7.1.4):
 * the same loops and the same output (OSU's format).
 *
 *   mpicc -O2 -o coll bench/c/coll.c
 *   mpirun -np 4 ./coll [-min B] [-max B] [-sizes B,B...] [-iters N] [-align B] [-median] \
 *       allreduce|bcast|barrier|gather|scatter|allgather|alltoall|
 *       iallreduce|ibarrier|ibcast|ireduce|igather|iscatter|iallgather|ialltoall
 *
 * The modes that begin with i start the nonblocking collective and wait
 * for it (MPI 3: not with LAM 7.1.4).
 *
 * For gather, scatter and allgather (and their i forms) the size is each
 * rank's block; for alltoall each block. Above 64 KiB a tenth as many iterations run, above
 * 1 MiB a fortieth (at least 5). -median times each operation and prints
 * the median's average over the ranks instead of the mean (steadier when
 * other processes share the processors).
 *
 * After each size's line, "# slowest SIZE US" is the slowest rank's time:
 * the loops run without a barrier between operations, so a rank that only
 * sends (a Gather's or a Reduce's non-roots) may run ahead of the others
 * by as many operations as the MPI buffers, and the average then counts
 * its shorter loop; the slowest rank's is the rate of the collective as a
 * whole.
 *
 * -align B places both buffers B bytes past a page boundary (posix_memalign
 * plus B) instead of where malloc puts them: glibc gives a buffer of more
 * than 128 KiB its own mapping, whose data start 16 bytes past a page, and
 * on some processors a copy whose source and destination differ in their
 * offset within a cache line is several times slower than one where they
 * agree. Go's buffers of that size start on a page, so `-align 0` is the
 * placement to compare with bench/coll; the default keeps malloc's, as an
 * unmodified program has.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* LAM/Go's libmpi.so counts its heap allocations (not in mpi.h; weak, so
 * that other MPIs link): each size's line is followed by one saying how
 * many the measured calls made per call, the most of any rank's. */
extern unsigned long long lamgo_heap_allocs(void) __attribute__((weak));
/* And how many collectives its C fast path ran without entering Go (the
 * rest cross into Go and back: cgo calls): "# in C/op SIZE F", the least
 * of any rank's share of the measured calls. */
extern unsigned long long lamgo_fcoll_calls(void) __attribute__((weak));

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static const char *modes[] = {"allreduce", "bcast", "barrier", "gather", "scatter", "allgather", "alltoall", "iallreduce", "ibarrier", "ibcast", "ireduce", "igather", "iscatter", "iallgather", "ialltoall", NULL};

int main(int argc, char **argv)
{
    long min = 4 << 20, max = 4 << 20, sizes[64];
    int nsizes = 0, iters = 100, m = -1, median = 0;
    long align = -1;
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
        else if (strcmp(argv[i], "-align") == 0 && i + 1 < argc)
            align = atol(argv[++i]);
        else if (strcmp(argv[i], "-median") == 0)
            median = 1;
        else if (strcmp(argv[i], "-iters") == 0 && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (strcmp(argv[i], "-sizes") == 0 && i + 1 < argc) {
            char *p = argv[++i];
            max = 0;
            while (*p && nsizes < 64) {
                sizes[nsizes] = strtol(p, &p, 10);
                if (sizes[nsizes] > max)
                    max = sizes[nsizes];
                nsizes++;
                if (*p == ',')
                    p++;
                else
                    break;
            }
        } else
            mode = argv[i];
    }
    for (i = 0; modes[i]; i++)
        if (strcmp(mode, modes[i]) == 0)
            m = i;
    if (m < 0) {
        if (rank == 0)
            fprintf(stderr, "usage: coll [-min B] [-max B] [-sizes B,B...] [-iters N] [-align B] [-median] allreduce|bcast|barrier|gather|scatter|allgather|alltoall|iallreduce|ibarrier|ibcast|ireduce|igather|iscatter|iallgather|ialltoall\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (m == 2 || m == 8) {
        nsizes = 1;
        sizes[0] = max = 0;
    }
    if (nsizes == 0)
        for (long s = min; nsizes < 64; s = s * 2 > 0 ? s * 2 : 1) {
            sizes[nsizes++] = s;
            if (s >= max)
                break;
        }
    size_t big = (size_t)(max > 0 ? max : 1) * size;
    char *sendmem = NULL, *recvmem = NULL, *send, *recv;
    if (align < 0) {
        send = sendmem = malloc(big);
        recv = recvmem = malloc(big);
    } else {
        align %= 4096;
        if (posix_memalign((void **)&sendmem, 4096, big + align) != 0 ||
            posix_memalign((void **)&recvmem, 4096, big + align) != 0)
            sendmem = recvmem = NULL;
        send = sendmem + align;
        recv = recvmem + align;
    }
    if (!sendmem || !recvmem)
        MPI_Abort(MPI_COMM_WORLD, 1);
    /* Every byte of both buffers is written before timing: pages never
     * written read as the kernel's one zero page (always in cache), which
     * would flatter the collectives that read them. */
    for (i = 0; i < max / 4; i++)
        ((float *)send)[i] = (float)(rank + i % 7);
    for (size_t j = (size_t)max; j < big; j++)
        send[j] = (char)(rank + j % 7 + 1);
    memset(recv, 0xff, big);
    if (rank == 0) {
        printf("# C MPI %s latency test, %d processes\n", mode, size);
        printf("%-10s%20s\n", "# Size", "Avg Latency(us)");
    }
    double *times = malloc(sizeof(double) * (size_t)(iters > 5 ? iters : 5));
    if (times == NULL) {
        fprintf(stderr, "coll: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int k = 0; k < nsizes; k++) {
        long s = sizes[k];
        int n = iters;
        if (s > (1 << 20))
            n = iters / 40 > 5 ? iters / 40 : 5;
        else if (s > (64 << 10))
            n = iters / 10 > 5 ? iters / 10 : 5;
        int warm = n / 10 > 0 ? n / 10 : 1;
        for (int pass = 0; pass < 2; pass++) {
            int reps = pass == 0 ? warm : n;
            if (pass == 1)
                MPI_Barrier(MPI_COMM_WORLD);
            unsigned long long a0 = lamgo_heap_allocs ? lamgo_heap_allocs() : 0;
            unsigned long long c0 = lamgo_fcoll_calls ? lamgo_fcoll_calls() : 0;
            double t0 = MPI_Wtime();
            for (i = 0; i < reps; i++) {
                double t1 = median ? MPI_Wtime() : 0;
                switch (m) {
                case 0:
                    MPI_Allreduce(send, recv, (int)(s / 4), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
                    break;
                case 1:
                    MPI_Bcast(send, (int)s, MPI_BYTE, 0, MPI_COMM_WORLD);
                    break;
                case 2:
                    MPI_Barrier(MPI_COMM_WORLD);
                    break;
                case 3:
                    MPI_Gather(send, (int)s, MPI_BYTE, recv, (int)s, MPI_BYTE, 0, MPI_COMM_WORLD);
                    break;
                case 4:
                    MPI_Scatter(send, (int)s, MPI_BYTE, recv, (int)s, MPI_BYTE, 0, MPI_COMM_WORLD);
                    break;
                case 5:
                    MPI_Allgather(send, (int)s, MPI_BYTE, recv, (int)s, MPI_BYTE, MPI_COMM_WORLD);
                    break;
                case 6:
                    MPI_Alltoall(send, (int)s, MPI_BYTE, recv, (int)s, MPI_BYTE, MPI_COMM_WORLD);
                    break;
#if MPI_VERSION >= 3 || defined(LAMGO_MPI) /* LAM 7.1.4 has no nonblocking collectives; LAM/Go has (its mpi.h says MPI 1.2, as LAM's) */
                case 7: {
                    MPI_Request q;
                    MPI_Iallreduce(send, recv, (int)(s / 4), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &q);
                    MPI_Wait(&q, MPI_STATUS_IGNORE);
                    break;
                }
                case 8: {
                    MPI_Request q;
                    MPI_Ibarrier(MPI_COMM_WORLD, &q);
                    MPI_Wait(&q, MPI_STATUS_IGNORE);
                    break;
                }
                case 9: {
                    MPI_Request q;
                    MPI_Ibcast(send, (int)s, MPI_BYTE, 0, MPI_COMM_WORLD, &q);
                    MPI_Wait(&q, MPI_STATUS_IGNORE);
                    break;
                }
                case 10: {
                    MPI_Request q;
                    MPI_Ireduce(send, recv, (int)(s / 4), MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD, &q);
                    MPI_Wait(&q, MPI_STATUS_IGNORE);
                    break;
                }
                case 11: {
                    MPI_Request q;
                    MPI_Igather(send, (int)s, MPI_BYTE, recv, (int)s, MPI_BYTE, 0, MPI_COMM_WORLD, &q);
                    MPI_Wait(&q, MPI_STATUS_IGNORE);
                    break;
                }
                case 12: {
                    MPI_Request q;
                    MPI_Iscatter(send, (int)s, MPI_BYTE, recv, (int)s, MPI_BYTE, 0, MPI_COMM_WORLD, &q);
                    MPI_Wait(&q, MPI_STATUS_IGNORE);
                    break;
                }
                case 13: {
                    MPI_Request q;
                    MPI_Iallgather(send, (int)s, MPI_BYTE, recv, (int)s, MPI_BYTE, MPI_COMM_WORLD, &q);
                    MPI_Wait(&q, MPI_STATUS_IGNORE);
                    break;
                }
                case 14: {
                    MPI_Request q;
                    MPI_Ialltoall(send, (int)s, MPI_BYTE, recv, (int)s, MPI_BYTE, MPI_COMM_WORLD, &q);
                    MPI_Wait(&q, MPI_STATUS_IGNORE);
                    break;
                }
#endif
                }
                if (median)
                    times[i] = MPI_Wtime() - t1;
            }
            if (pass == 1) {
                double us = (MPI_Wtime() - t0) * 1e6 / reps, sum = 0;
                if (median) {
                    qsort(times, (size_t)reps, sizeof times[0], cmp);
                    us = times[reps / 2] * 1e6;
                }
                double allocs = lamgo_heap_allocs ? (double)(lamgo_heap_allocs() - a0) / reps : 0, most = 0;
                double inC = lamgo_fcoll_calls ? (double)(lamgo_fcoll_calls() - c0) / reps : 0, least = 0;
                double slowest = 0;
                MPI_Reduce(&us, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
                MPI_Reduce(&us, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
                if (lamgo_heap_allocs)
                    MPI_Reduce(&allocs, &most, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
                if (rank == 0)
                    printf("%-10ld%20.2f\n", s, sum / size);
                if (rank == 0)
                    printf("# slowest %ld %.2f\n", s, slowest);
                if (rank == 0 && lamgo_heap_allocs)
                    printf("# allocs/op %ld %.2f\n", s, most);
                if (lamgo_fcoll_calls)
                    MPI_Reduce(&inC, &least, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
                if (rank == 0 && lamgo_fcoll_calls)
                    printf("# in C/op %ld %.2f\n", s, least);
            }
        }
    }
    free(times);
    free(sendmem);
    free(recvmem);
    MPI_Finalize();
    return 0;
}
