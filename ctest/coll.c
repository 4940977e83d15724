/*
 * coll.c: the collectives on MPI_COMM_WORLD: Barrier, Bcast from every
 * root, Gather, Gatherv, Scatter, Scatterv, Allgather, Allgatherv,
 * Alltoall, Alltoallv, Reduce, Allreduce, Reduce_scatter, Scan, and
 * MPI_IN_PLACE in Gather, Allgather, Reduce, Allreduce and Scan.
 * Ranks: any number (the suite runs it on 4).
 */
#include "ctest.h"

int main(int argc, char **argv)
{
    int rank, size, root, i, j, ok;
    int *a, *b, *counts, *displs, *rcounts, *rdispls;

    ct_init(&argc, &argv, "coll", 1);
    rank = ct_rank;
    size = ct_size;
    a = malloc(sizeof(int) * size * size * 4 + 64);
    b = malloc(sizeof(int) * size * size * 4 + 64);
    counts = malloc(sizeof(int) * size);
    displs = malloc(sizeof(int) * size);
    rcounts = malloc(sizeof(int) * size);
    rdispls = malloc(sizeof(int) * size);

    OK(MPI_Barrier(MPI_COMM_WORLD));
    SECTION("barrier");

    for (root = 0; root < size; root++) {
        int v[3] = {-1, -1, -1};
        if (rank == root)
            v[0] = root, v[1] = root * 2, v[2] = root * 3;
        OK(MPI_Bcast(v, 3, MPI_INT, root, MPI_COMM_WORLD));
        CHECK(v[0] == root && v[1] == 2 * root && v[2] == 3 * root, "Bcast from %d: %d %d %d", root, v[0], v[1], v[2]);
    }
    SECTION("bcast");

    /* Gather and Scatter at root size-1. */
    root = size - 1;
    a[0] = rank;
    a[1] = -rank;
    OK(MPI_Gather(a, 2, MPI_INT, b, 2, MPI_INT, root, MPI_COMM_WORLD));
    if (rank == root)
        for (i = 0; i < size; i++)
            CHECK(b[2 * i] == i && b[2 * i + 1] == -i, "Gather slot %d: %d %d", i, b[2 * i], b[2 * i + 1]);
    if (rank == root)
        for (i = 0; i < size; i++)
            a[i] = 10 * i;
    OK(MPI_Scatter(a, 1, MPI_INT, b, 1, MPI_INT, root, MPI_COMM_WORLD));
    CHECK(b[0] == 10 * rank, "Scatter: %d", b[0]);
    SECTION("gather scatter");

    /* Gatherv and Scatterv: rank i contributes i+1 ints, in reverse order. */
    for (i = 0; i < size; i++)
        counts[i] = i + 1;
    for (i = size - 1, j = 0; i >= 0; i--) {
        displs[i] = j;
        j += counts[i];
    }
    for (i = 0; i <= rank; i++)
        a[i] = rank * 100 + i;
    OK(MPI_Gatherv(a, rank + 1, MPI_INT, b, counts, displs, MPI_INT, 0, MPI_COMM_WORLD));
    if (rank == 0)
        for (i = 0; i < size; i++)
            for (j = 0; j <= i; j++)
                CHECK(b[displs[i] + j] == i * 100 + j, "Gatherv from %d item %d: %d", i, j, b[displs[i] + j]);
    if (rank == 0)
        for (i = 0; i < size; i++)
            for (j = 0; j <= i; j++)
                a[displs[i] + j] = i * 7 + j;
    memset(b, 0xff, sizeof(int) * (size + 1));
    OK(MPI_Scatterv(a, counts, displs, MPI_INT, b, rank + 1, MPI_INT, 0, MPI_COMM_WORLD));
    for (j = 0; j <= rank; j++)
        CHECK(b[j] == rank * 7 + j, "Scatterv item %d: %d", j, b[j]);
    SECTION("gatherv scatterv");

    /* Allgather, Allgatherv. */
    a[0] = rank * 3;
    OK(MPI_Allgather(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD));
    for (i = 0; i < size; i++)
        CHECK(b[i] == i * 3, "Allgather slot %d: %d", i, b[i]);
    for (i = 0; i <= rank; i++)
        a[i] = rank;
    OK(MPI_Allgatherv(a, rank + 1, MPI_INT, b, counts, displs, MPI_INT, MPI_COMM_WORLD));
    for (i = 0, ok = 1; i < size; i++)
        for (j = 0; j <= i; j++)
            ok &= b[displs[i] + j] == i;
    CHECK(ok, "Allgatherv data");
    SECTION("allgather");

    /* Alltoall: a[i] = rank*size+i goes to rank i. */
    for (i = 0; i < size; i++)
        a[i] = rank * size + i;
    OK(MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD));
    for (i = 0; i < size; i++)
        CHECK(b[i] == i * size + rank, "Alltoall from %d: %d", i, b[i]);
    /* Alltoallv: rank r sends i+1 copies of r to rank i. */
    for (i = 0, j = 0; i < size; i++) {
        counts[i] = rank + 1; /* every rank sends me rank+1 items */
        displs[i] = j;
        j += counts[i];
    }
    for (i = 0, j = 0; i < size; i++) {
        rcounts[i] = i + 1; /* I send i+1 items to rank i */
        rdispls[i] = j;
        for (ok = 0; ok < i + 1; ok++)
            a[j + ok] = rank;
        j += i + 1;
    }
    OK(MPI_Alltoallv(a, rcounts, rdispls, MPI_INT, b, counts, displs, MPI_INT, MPI_COMM_WORLD));
    for (i = 0, ok = 1; i < size; i++)
        for (j = 0; j < rank + 1; j++)
            ok &= b[displs[i] + j] == i;
    CHECK(ok, "Alltoallv data");
    SECTION("alltoall");

    /* Reductions. */
    a[0] = rank + 1;
    a[1] = rank;
    OK(MPI_Reduce(a, b, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    if (rank == 0)
        CHECK(b[0] == size * (size + 1) / 2 && b[1] == size * (size - 1) / 2, "Reduce sum: %d %d", b[0], b[1]);
    OK(MPI_Allreduce(a, b, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    CHECK(b[0] == size, "Allreduce max: %d", b[0]);
    for (i = 0; i < size; i++) {
        a[i] = rank + i;
        counts[i] = 1;
    }
    OK(MPI_Reduce_scatter(a, b, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(b[0] == size * (size - 1) / 2 + size * rank, "Reduce_scatter: %d", b[0]);
    a[0] = rank + 1;
    OK(MPI_Scan(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(b[0] == (rank + 1) * (rank + 2) / 2, "Scan: %d", b[0]);
    SECTION("reduce allreduce reduce_scatter scan");

    /* MPI_IN_PLACE. */
    b[0] = rank + 1;
    OK(MPI_Allreduce(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(b[0] == size * (size + 1) / 2, "Allreduce in place: %d", b[0]);
    b[0] = rank;
    if (rank == 0)
        OK(MPI_Reduce(MPI_IN_PLACE, b, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD));
    else
        OK(MPI_Reduce(b, NULL, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD));
    if (rank == 0)
        CHECK(b[0] == size - 1, "Reduce in place: %d", b[0]);
    for (i = 0; i < size; i++)
        b[i] = i == rank ? rank * 5 : -1;
    OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, 1, MPI_INT, MPI_COMM_WORLD));
    for (i = 0; i < size; i++)
        CHECK(b[i] == i * 5, "Allgather in place slot %d: %d", i, b[i]);
    if (rank == 0) {
        for (i = 0; i < size; i++)
            b[i] = i == 0 ? 99 : -1;
        OK(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_WORLD));
        CHECK(b[0] == 99, "Gather in place kept the root's item: %d", b[0]);
        for (i = 1; i < size; i++)
            CHECK(b[i] == i + 1000, "Gather in place slot %d: %d", i, b[i]);
    } else {
        a[0] = rank + 1000;
        OK(MPI_Gather(a, 1, MPI_INT, NULL, 0, MPI_INT, 0, MPI_COMM_WORLD));
    }
    b[0] = rank + 1;
    OK(MPI_Scan(MPI_IN_PLACE, b, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD));
    {
        int f = 1;
        for (i = 1; i <= rank + 1; i++)
            f *= i;
        CHECK(b[0] == f, "Scan in place: %d, want %d", b[0], f);
    }
    SECTION("in place");

    free(a);
    free(b);
    free(counts);
    free(displs);
    free(rcounts);
    free(rdispls);
    return ct_finish();
}
