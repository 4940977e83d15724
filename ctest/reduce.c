/*
 * reduce.c: the predefined reduction operations on several types
 * (SUM, PROD, MAX, MIN, LAND, LOR, LXOR, BAND, BOR, BXOR), MAXLOC and
 * MINLOC on MPI_2INT and MPI_DOUBLE_INT, and user operations made with
 * MPI_Op_create: a commutative one and a non-commutative one (whose
 * result must follow rank order), then MPI_Op_free.
 * Ranks: any number (the suite runs it on 4).
 */
#include "ctest.h"

/* A 2x2 integer matrix product, not commutative. */
typedef struct {
    int m[4];
} mat;

static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    mat *a = in, *b = inout;
    int i;
    (void)dt;
    for (i = 0; i < *len; i++) {
        mat r;
        r.m[0] = a[i].m[0] * b[i].m[0] + a[i].m[1] * b[i].m[2];
        r.m[1] = a[i].m[0] * b[i].m[1] + a[i].m[1] * b[i].m[3];
        r.m[2] = a[i].m[2] * b[i].m[0] + a[i].m[3] * b[i].m[2];
        r.m[3] = a[i].m[2] * b[i].m[1] + a[i].m[3] * b[i].m[3];
        b[i] = r;
    }
}

static int calls;

static void absmax(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *a = in, *b = inout, i;
    (void)dt;
    calls++;
    for (i = 0; i < *len; i++) {
        int x = a[i] < 0 ? -a[i] : a[i], y = b[i] < 0 ? -b[i] : b[i];
        b[i] = x > y ? a[i] : b[i];
    }
}

int main(int argc, char **argv)
{
    int rank, size, i, iv, ir;
    double dv, dr;
    long lv, lr;
    unsigned uv, ur;

    ct_init(&argc, &argv, "reduce", 1);
    rank = ct_rank;
    size = ct_size;

    iv = rank + 1;
    OK(MPI_Allreduce(&iv, &ir, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD));
    {
        int f = 1;
        for (i = 2; i <= size; i++)
            f *= i;
        CHECK(ir == f, "PROD int: %d", ir);
    }
    dv = rank * 0.5;
    OK(MPI_Allreduce(&dv, &dr, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    CHECK(dr == 0.25 * size * (size - 1), "SUM double: %g", dr);
    OK(MPI_Allreduce(&dv, &dr, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
    CHECK(dr == 0, "MIN double: %g", dr);
    lv = (long)rank << 33;
    OK(MPI_Allreduce(&lv, &lr, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD));
    CHECK(lr == (long)(size - 1) << 33, "MAX long: %ld", lr);
    {
        float fv = (float)rank, fr;
        short sv = (short)rank, sr;
        signed char cv = (signed char)(rank + 1), cr; /* MPI_CHAR is text: no MIN (MPI-3 §5.9.2) */
        OK(MPI_Allreduce(&fv, &fr, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
        CHECK(fr == (float)(size * (size - 1) / 2), "SUM float: %g", fr);
        OK(MPI_Allreduce(&sv, &sr, 1, MPI_SHORT, MPI_MAX, MPI_COMM_WORLD));
        CHECK(sr == size - 1, "MAX short: %d", sr);
        OK(MPI_Allreduce(&cv, &cr, 1, MPI_SIGNED_CHAR, MPI_MIN, MPI_COMM_WORLD));
        CHECK(cr == 1, "MIN signed char: %d", cr);
    }
    SECTION("arithmetic");

    iv = rank == 0;
    OK(MPI_Allreduce(&iv, &ir, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD));
    CHECK(ir == 1, "LOR: %d", ir);
    OK(MPI_Allreduce(&iv, &ir, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
    CHECK(ir == (size == 1), "LAND: %d", ir);
    iv = 1;
    OK(MPI_Allreduce(&iv, &ir, 1, MPI_INT, MPI_LXOR, MPI_COMM_WORLD));
    CHECK(ir == (size % 2), "LXOR: %d", ir);
    uv = 1u << rank % 32;
    OK(MPI_Allreduce(&uv, &ur, 1, MPI_UNSIGNED, MPI_BOR, MPI_COMM_WORLD));
    CHECK(ur == (size >= 32 ? 0xffffffffu : (1u << size) - 1), "BOR: %#x", ur);
    uv = 0xff00u | rank;
    OK(MPI_Allreduce(&uv, &ur, 1, MPI_UNSIGNED, MPI_BAND, MPI_COMM_WORLD));
    CHECK((ur & 0xff00u) == 0xff00u && (size == 1 || (ur & 0xffu) == 0), "BAND: %#x", ur);
    uv = 1;
    OK(MPI_Allreduce(&uv, &ur, 1, MPI_UNSIGNED, MPI_BXOR, MPI_COMM_WORLD));
    CHECK(ur == (unsigned)(size % 2), "BXOR: %#x", ur);
    SECTION("logical and bitwise");

    /* MAXLOC and MINLOC: values with ties resolve to the lowest index. */
    {
        struct {
            int v, i;
        } in2[2], out2[2];
        struct {
            double v;
            int i;
        } ind, outd;
        in2[0].v = rank % 2 ? 10 : 0; /* ties at 10 among the odd ranks */
        in2[0].i = rank;
        in2[1].v = -rank;
        in2[1].i = rank;
        OK(MPI_Allreduce(in2, out2, 2, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD));
        CHECK(out2[0].v == (size > 1 ? 10 : 0) && out2[0].i == (size > 1 ? 1 : 0), "MAXLOC 2INT tie: %d at %d", out2[0].v, out2[0].i);
        CHECK(out2[1].v == 0 && out2[1].i == 0, "MAXLOC 2INT second: %d at %d", out2[1].v, out2[1].i);
        OK(MPI_Allreduce(in2, out2, 2, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD));
        CHECK(out2[0].v == 0 && out2[0].i == 0, "MINLOC 2INT: %d at %d", out2[0].v, out2[0].i);
        CHECK(out2[1].v == -(size - 1) && out2[1].i == size - 1, "MINLOC 2INT second: %d at %d", out2[1].v, out2[1].i);
        ind.v = rank == size / 2 ? 100.5 : (double)rank;
        ind.i = rank;
        OK(MPI_Reduce(&ind, &outd, 1, MPI_DOUBLE_INT, MPI_MAXLOC, 0, MPI_COMM_WORLD));
        if (rank == 0)
            CHECK(outd.v == 100.5 && outd.i == size / 2, "MAXLOC DOUBLE_INT: %g at %d", outd.v, outd.i);
        ind.v = 7.0;
        OK(MPI_Allreduce(&ind, &outd, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD));
        CHECK(outd.v == 7.0 && outd.i == 0, "MINLOC DOUBLE_INT tie: %g at %d", outd.v, outd.i);
    }
    SECTION("maxloc minloc");

    /* A commutative user operation. */
    {
        MPI_Op op;
        int v[2], r[2];
        OK(MPI_Op_create(absmax, 1, &op));
        v[0] = rank % 2 ? -rank * 3 : rank;
        v[1] = rank;
        OK(MPI_Allreduce(v, r, 2, MPI_INT, op, MPI_COMM_WORLD));
        {
            int best = 0, j;
            for (j = 0; j < size; j++) {
                int x = j % 2 ? -j * 3 : j;
                if ((x < 0 ? -x : x) > (best < 0 ? -best : best))
                    best = x;
            }
            CHECK(r[0] == best && r[1] == size - 1, "user op absmax: %d %d, want %d %d", r[0], r[1], best, size - 1);
        }
        MPI_Allreduce(MPI_IN_PLACE, &calls, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(size == 1 || calls > 0, "the user op was never called");
        OK(MPI_Op_free(&op));
        CHECK(op == MPI_OP_NULL, "Op_free left the handle");
    }
    SECTION("commutative user op");

    /* A non-commutative one: the product of the ranks' matrices in rank
     * order, on a contiguous type of 4 ints. */
    {
        MPI_Op op;
        MPI_Datatype mt;
        mat m, r, want;
        int j;
        OK(MPI_Type_contiguous(4, MPI_INT, &mt));
        OK(MPI_Type_commit(&mt));
        OK(MPI_Op_create(matmul, 0, &op));
        m.m[0] = 1, m.m[1] = rank + 1, m.m[2] = 0, m.m[3] = 1;
        if (rank % 2)
            m.m[1] = 1, m.m[2] = rank;
        want.m[0] = 1, want.m[1] = 0, want.m[2] = 0, want.m[3] = 1;
        for (j = 0; j < size; j++) {
            mat x, y = want;
            x.m[0] = 1, x.m[1] = j + 1, x.m[2] = 0, x.m[3] = 1;
            if (j % 2)
                x.m[1] = 1, x.m[2] = j;
            /* want = want * x (inout = in * inout means left-to-right rank order) */
            want.m[0] = y.m[0] * x.m[0] + y.m[1] * x.m[2];
            want.m[1] = y.m[0] * x.m[1] + y.m[1] * x.m[3];
            want.m[2] = y.m[2] * x.m[0] + y.m[3] * x.m[2];
            want.m[3] = y.m[2] * x.m[1] + y.m[3] * x.m[3];
        }
        OK(MPI_Reduce(&m, &r, 1, mt, op, 0, MPI_COMM_WORLD));
        if (rank == 0)
            CHECK(memcmp(&r, &want, sizeof r) == 0, "non-commutative Reduce: [%d %d %d %d], want [%d %d %d %d]",
                  r.m[0], r.m[1], r.m[2], r.m[3], want.m[0], want.m[1], want.m[2], want.m[3]);
        OK(MPI_Allreduce(&m, &r, 1, mt, op, MPI_COMM_WORLD));
        CHECK(memcmp(&r, &want, sizeof r) == 0, "non-commutative Allreduce: [%d %d %d %d]", r.m[0], r.m[1], r.m[2], r.m[3]);
        OK(MPI_Scan(&m, &r, 1, mt, op, MPI_COMM_WORLD));
        if (rank == size - 1)
            CHECK(memcmp(&r, &want, sizeof r) == 0, "non-commutative Scan at the last rank: [%d %d %d %d]", r.m[0], r.m[1], r.m[2], r.m[3]);
        OK(MPI_Op_free(&op));
        OK(MPI_Type_free(&mt));
    }
    SECTION("non-commutative user op");

    return ct_finish();
}
