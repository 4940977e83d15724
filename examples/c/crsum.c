/*
 * crsum.c: a C program that can be checkpointed, continued, stopped and
 * restarted (LAM/Go's self cr module), to the same answer as a run never
 * interrupted. Every iteration the ranks add up a number from each
 * (MPI_Allreduce) into an accumulator; rank 0 prints it at the end.
 *
 *   mpicc -o crsum crsum.c      (mpicc links with -rdynamic: the library
 *                                finds the lam_cr_self_* functions)
 *   mpirun -ssi cr self -ssi rpi crtcp -np 4 crsum 5000 1000 &
 *   crcheckpoint -stop <mpirun's pid>
 *   crrestart <the set it printed>
 *
 * At a checkpoint the library calls lam_cr_self_checkpoint, which saves
 * the accumulator after the last two iterations (the ranks are at most
 * one iteration apart: each ends with the Allreduce); a rank restarted
 * from the set gets lam_cr_self_restart called inside MPI_Init, and the
 * ranks go back to the last iteration every one of them completed.
 */
#include <mpi.h>
#include <mpil_cr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct state {
    long iter;         /* iterations completed */
    unsigned long acc; /* the accumulator after them */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct state cur, prev; /* under mu */
static int restarted, rank;

/* Called by the library at a checkpoint, MPI quiesced: no MPI calls. */
void lam_cr_self_checkpoint(void)
{
    struct state s[2];

    pthread_mutex_lock(&mu);
    s[0] = prev;
    s[1] = cur;
    pthread_mutex_unlock(&mu);
    if (MPIL_Cr_write(s, sizeof s) != MPI_SUCCESS)
        fprintf(stderr, "rank %d: cannot save the state\n", rank);
    printf("rank %d checkpoint at iteration %ld\n", rank, s[1].iter);
    fflush(stdout);
}

/* Called after a checkpoint the job survives. */
void lam_cr_self_continue(void)
{
    printf("rank %d continued\n", rank);
    fflush(stdout);
}

/* Called inside MPI_Init of a rank restarted from a checkpoint. */
void lam_cr_self_restart(void)
{
    struct state s[2];

    if (MPIL_Cr_read(s, sizeof s) != MPI_SUCCESS) {
        fprintf(stderr, "cannot read the saved state\n");
        exit(1);
    }
    prev = s[0];
    cur = s[1];
    restarted = 1;
    /* The ranks resume from the iteration they all completed and send
       again what followed: the messages the checkpoint saved are old. */
    MPIL_Cr_discard_messages();
}

int main(int argc, char **argv)
{
    long iters, i, start = 0;
    int size, delay = 0;
    unsigned long mine, sum, lo, hi;

    if (argc < 2 || (iters = atol(argv[1])) < 1) {
        fprintf(stderr, "usage: crsum <iterations> [<microseconds per iteration>]\n");
        return 2;
    }
    if (argc > 2)
        delay = atoi(argv[2]);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("rank %d running\n", rank);
    fflush(stdout);
    if (restarted) {
        long have = cur.iter, least;

        MPI_Allreduce(&have, &least, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
        if (least == prev.iter)
            cur = prev;
        else if (least != cur.iter) {
            fprintf(stderr, "rank %d: restart at %ld, but it has %ld and %ld\n", rank, least, prev.iter, cur.iter);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        start = cur.iter;
        printf("rank %d restarted at iteration %ld\n", rank, start);
        fflush(stdout);
    }
    for (i = start; i < iters; i++) {
        if (delay > 0)
            usleep(delay);
        mine = (unsigned long)(rank + 1) * (unsigned long)(i + 1) ^ (cur.acc >> 7);
        MPI_Allreduce(&mine, &sum, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
        pthread_mutex_lock(&mu);
        prev = cur;
        cur.iter = i + 1;
        cur.acc = cur.acc * 1099511628211UL + sum;
        pthread_mutex_unlock(&mu);
    }
    MPI_Allreduce(&cur.acc, &lo, 1, MPI_UNSIGNED_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&cur.acc, &hi, 1, MPI_UNSIGNED_LONG, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
        if (lo != hi)
            printf("ranks disagree: %lx %lx\n", lo, hi);
        else
            printf("result %lx\n", lo);
    }
    MPI_Finalize();
    return 0;
}
