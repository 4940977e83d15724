/*
 * ctest.h: the checks every program of LAM/Go's C test suite uses.
 *
 * CHECK(cond, fmt, ...) counts a check and, when cond is false, prints
 * "FAIL <program> rank <r> <file>:<line>: <message>". SECTION(name) is
 * collective: rank 0 prints "PASS <program> <name>" when no rank failed
 * a check since the last section, else "FAIL <program> <name>".
 * ct_finish() is collective too: it prints "PASS <program>" (or "FAIL
 * <program>: N failed checks"), finalizes, and returns the status the
 * program exits with (1 when any rank failed).
 */
#ifndef CTEST_H
#define CTEST_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *ct_prog = "?";
static int ct_rank, ct_size, ct_fails, ct_section_fails, ct_checks;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        ct_checks++;                                                            \
        if (!(cond)) {                                                          \
            ct_fails++;                                                         \
            ct_section_fails++;                                                 \
            printf("FAIL %s rank %d %s:%d: ", ct_prog, ct_rank, __FILE__, __LINE__); \
            printf(__VA_ARGS__);                                                \
            printf("\n");                                                       \
            fflush(stdout);                                                     \
        }                                                                       \
    } while (0)

/* OK(call) checks that an MPI call returned MPI_SUCCESS. */
#define OK(call)                                                                \
    do {                                                                        \
        int ct_rc = (call);                                                     \
        CHECK(ct_rc == MPI_SUCCESS, "%s returned %d", #call, ct_rc);            \
    } while (0)

/* ct_init initializes MPI and the suite; need is the least number of
 * ranks the program needs (it fails when run with fewer). */
static void ct_init(int *argc, char ***argv, const char *prog, int need)
{
    ct_prog = prog;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &ct_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ct_size);
    if (ct_size < need) {
        if (ct_rank == 0)
            printf("FAIL %s: needs at least %d ranks, has %d\n", prog, need, ct_size);
        MPI_Finalize();
        exit(1);
    }
}

static void SECTION(const char *name)
{
    int all = 0;
    MPI_Allreduce(&ct_section_fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (ct_rank == 0) {
        printf("%s %s %s\n", all ? "FAIL" : "PASS", ct_prog, name);
        fflush(stdout);
    }
    ct_section_fails = 0;
}

static int ct_finish(void)
{
    int all = 0, checks = 0;
    MPI_Allreduce(&ct_fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&ct_checks, &checks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (ct_rank == 0) {
        if (all)
            printf("FAIL %s: %d of %d checks failed\n", ct_prog, all, checks);
        else
            printf("PASS %s: %d checks on %d ranks\n", ct_prog, checks, ct_size);
        fflush(stdout);
    }
    MPI_Finalize();
    return all ? 1 : 0;
}

#endif
