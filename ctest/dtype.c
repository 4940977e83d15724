/*
 * dtype.c: derived datatypes: contiguous, vector, hvector, indexed,
 * hindexed, struct, resized, their size and extent, sending one type and
 * receiving another of the same signature, MPI_Get_elements, and
 * MPI_Pack / MPI_Unpack / MPI_Pack_size.
 * Ranks: at least 2 (the suite runs it on 2).
 */
#include "ctest.h"
#include <stddef.h>

struct particle {
    double x;
    int id;
    char tag;
};

int main(int argc, char **argv)
{
    int rank, i, size, count;
    MPI_Aint lb, extent;
    MPI_Datatype contig, vec, hvec, idx, hidx, st, res;
    MPI_Status status;
    int a[64], b[64];

    ct_init(&argc, &argv, "dtype", 2);
    rank = ct_rank;
    for (i = 0; i < 64; i++)
        a[i] = i;

    OK(MPI_Type_contiguous(3, MPI_INT, &contig));
    OK(MPI_Type_commit(&contig));
    OK(MPI_Type_size(contig, &size));
    OK(MPI_Type_get_extent(contig, &lb, &extent));
    CHECK(size == 3 * (int)sizeof(int) && lb == 0 && extent == 3 * (MPI_Aint)sizeof(int), "contiguous: size %d lb %ld extent %ld", size, (long)lb, (long)extent);

    /* 4 blocks of 2 ints, stride 5 ints. */
    OK(MPI_Type_vector(4, 2, 5, MPI_INT, &vec));
    OK(MPI_Type_commit(&vec));
    OK(MPI_Type_size(vec, &size));
    OK(MPI_Type_get_extent(vec, &lb, &extent));
    CHECK(size == 8 * (int)sizeof(int) && extent == 17 * (MPI_Aint)sizeof(int), "vector: size %d extent %ld", size, (long)extent);
    OK(MPI_Type_create_hvector(3, 1, 4 * sizeof(int), MPI_INT, &hvec));
    OK(MPI_Type_commit(&hvec));
    {
        int lens[3] = {1, 2, 3}, disps[3] = {0, 4, 10};
        MPI_Aint hdisps[3] = {0, 4 * sizeof(int), 10 * sizeof(int)};
        OK(MPI_Type_indexed(3, lens, disps, MPI_INT, &idx));
        OK(MPI_Type_commit(&idx));
        OK(MPI_Type_create_hindexed(3, lens, hdisps, MPI_INT, &hidx));
        OK(MPI_Type_commit(&hidx));
        OK(MPI_Type_size(idx, &size));
        CHECK(size == 6 * (int)sizeof(int), "indexed size %d", size);
    }
    {
        int lens[3] = {1, 1, 1};
        MPI_Aint disps[3] = {offsetof(struct particle, x), offsetof(struct particle, id), offsetof(struct particle, tag)};
        MPI_Datatype types[3] = {MPI_DOUBLE, MPI_INT, MPI_CHAR};
        MPI_Datatype tmp;
        OK(MPI_Type_create_struct(3, lens, disps, types, &tmp));
        OK(MPI_Type_create_resized(tmp, 0, sizeof(struct particle), &st));
        OK(MPI_Type_commit(&st));
        OK(MPI_Type_free(&tmp));
        OK(MPI_Type_get_extent(st, &lb, &extent));
        OK(MPI_Type_size(st, &size));
        CHECK(extent == sizeof(struct particle) && size == sizeof(double) + sizeof(int) + 1, "struct: size %d extent %ld", size, (long)extent);
    }
    OK(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &res));
    OK(MPI_Type_commit(&res));
    SECTION("constructors size extent");

    /* Vector out, contiguous in: the same signature. */
    if (rank == 0) {
        OK(MPI_Send(a, 1, vec, 1, 1, MPI_COMM_WORLD));
        OK(MPI_Send(a, 2, hvec, 1, 2, MPI_COMM_WORLD));
        OK(MPI_Send(a, 1, idx, 1, 3, MPI_COMM_WORLD));
        OK(MPI_Send(a, 6, MPI_INT, 1, 4, MPI_COMM_WORLD));
        OK(MPI_Send(a, 4, res, 1, 5, MPI_COMM_WORLD));
    } else if (rank == 1) {
        int want[8] = {0, 1, 5, 6, 10, 11, 15, 16};
        memset(b, 0, sizeof b);
        OK(MPI_Recv(b, 8, MPI_INT, 0, 1, MPI_COMM_WORLD, &status));
        CHECK(memcmp(b, want, sizeof want) == 0, "vector received as ints: %d %d %d %d", b[2], b[3], b[6], b[7]);
        OK(MPI_Get_count(&status, MPI_INT, &count));
        CHECK(count == 8, "count %d", count);
        OK(MPI_Get_count(&status, vec, &count));
        CHECK(count == 1, "count in vectors %d", count);
        /* Two hvectors of 3 ints, stride 4 ints, one extent apart:
         * the second starts at the first's extent (9 ints). */
        OK(MPI_Recv(b, 6, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(b[0] == 0 && b[1] == 4 && b[2] == 8 && b[3] == 9 && b[4] == 13 && b[5] == 17,
              "hvector: %d %d %d %d %d %d", b[0], b[1], b[2], b[3], b[4], b[5]);
        /* Ints in, indexed out. */
        OK(MPI_Recv(b, 6, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(b[0] == 0 && b[1] == 4 && b[2] == 5 && b[3] == 10 && b[5] == 12, "indexed: %d %d %d %d %d", b[0], b[1], b[2], b[3], b[5]);
        memset(b, 0xff, sizeof b);
        OK(MPI_Recv(b, 1, hidx, 0, 4, MPI_COMM_WORLD, &status));
        CHECK(b[0] == 0 && b[4] == 1 && b[5] == 2 && b[10] == 3 && b[12] == 5 && b[1] == -1, "into hindexed: %d %d %d %d %d %d",
              b[0], b[4], b[5], b[10], b[12], b[1]);
        OK(MPI_Get_elements(&status, hidx, &count));
        CHECK(count == 6, "Get_elements %d", count);
        OK(MPI_Recv(b, 4, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(b[0] == 0 && b[1] == 2 && b[2] == 4 && b[3] == 6, "resized: %d %d %d %d", b[0], b[1], b[2], b[3]);
    }
    SECTION("send and receive");

    /* An array of structs. */
    {
        struct particle p[3];
        if (rank == 0) {
            for (i = 0; i < 3; i++) {
                p[i].x = i + 0.25;
                p[i].id = 100 + i;
                p[i].tag = 'a' + i;
            }
            OK(MPI_Send(p, 3, st, 1, 6, MPI_COMM_WORLD));
        } else if (rank == 1) {
            memset(p, 0, sizeof p);
            OK(MPI_Recv(p, 3, st, 0, 6, MPI_COMM_WORLD, &status));
            for (i = 0; i < 3; i++)
                CHECK(p[i].x == i + 0.25 && p[i].id == 100 + i && p[i].tag == 'a' + i, "struct %d: %g %d %c", i, p[i].x, p[i].id, p[i].tag);
            OK(MPI_Get_count(&status, st, &count));
            CHECK(count == 3, "struct count %d", count);
            OK(MPI_Get_elements(&status, st, &count));
            CHECK(count == 9, "struct elements %d", count);
        }
    }
    SECTION("struct");

    /* Pack and unpack. */
    {
        char buf[256];
        int pos = 0, psize, n = 7, v[8];
        double d = 3.5, e = 0;
        OK(MPI_Pack_size(8, MPI_INT, MPI_COMM_WORLD, &psize));
        CHECK(psize >= 8 * (int)sizeof(int), "Pack_size %d", psize);
        OK(MPI_Pack(&n, 1, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD));
        OK(MPI_Pack(a, 1, vec, buf, sizeof buf, &pos, MPI_COMM_WORLD));
        OK(MPI_Pack(&d, 1, MPI_DOUBLE, buf, sizeof buf, &pos, MPI_COMM_WORLD));
        if (rank == 0)
            OK(MPI_Send(buf, pos, MPI_PACKED, 1, 7, MPI_COMM_WORLD));
        else if (rank == 1) {
            OK(MPI_Recv(buf, sizeof buf, MPI_PACKED, 0, 7, MPI_COMM_WORLD, &status));
            OK(MPI_Get_count(&status, MPI_PACKED, &count));
            CHECK(count == pos, "packed count %d, packed %d", count, pos);
            pos = 0;
            n = 0;
            OK(MPI_Unpack(buf, count, &pos, &n, 1, MPI_INT, MPI_COMM_WORLD));
            OK(MPI_Unpack(buf, count, &pos, v, 8, MPI_INT, MPI_COMM_WORLD));
            OK(MPI_Unpack(buf, count, &pos, &e, 1, MPI_DOUBLE, MPI_COMM_WORLD));
            CHECK(n == 7 && v[0] == 0 && v[2] == 5 && v[7] == 16 && e == 3.5, "unpacked %d %d %d %d %g", n, v[0], v[2], v[7], e);
            CHECK(pos == count, "Unpack used %d of %d bytes", pos, count);
        }
    }
    SECTION("pack unpack");

    OK(MPI_Type_free(&contig));
    OK(MPI_Type_free(&vec));
    OK(MPI_Type_free(&hvec));
    OK(MPI_Type_free(&idx));
    OK(MPI_Type_free(&hidx));
    OK(MPI_Type_free(&st));
    OK(MPI_Type_free(&res));
    CHECK(vec == MPI_DATATYPE_NULL, "Type_free left the handle");
    SECTION("free");
    return ct_finish();
}
