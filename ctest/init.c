/*
 * init.c: MPI_Init, MPI_Initialized, MPI_Finalized, rank and size of
 * MPI_COMM_WORLD and MPI_COMM_SELF, MPI_Get_version, the processor name,
 * MPI_Wtime and MPI_Wtick.
 * Ranks: any number (the suite runs it on 3).
 */
#include "ctest.h"

int main(int argc, char **argv)
{
    int flag = -1, rank, size, ver, sub, len, all;
    char name[MPI_MAX_PROCESSOR_NAME];

    MPI_Initialized(&flag);
    if (flag != 0) {
        printf("FAIL init: MPI_Initialized says yes before MPI_Init\n");
        return 1;
    }
    /* MPI_Get_version may be called before MPI_Init. */
    MPI_Get_version(&ver, &sub);
    ct_init(&argc, &argv, "init", 1);

    MPI_Initialized(&flag);
    CHECK(flag == 1, "MPI_Initialized after MPI_Init: %d", flag);
    MPI_Finalized(&flag);
    CHECK(flag == 0, "MPI_Finalized before MPI_Finalize: %d", flag);
    CHECK(ver >= 1 && sub >= 0, "MPI_Get_version: %d.%d", ver, sub);
    CHECK(MPI_VERSION >= 1, "MPI_VERSION %d", MPI_VERSION);
    SECTION("initialized");

    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(rank >= 0 && rank < size, "rank %d of %d", rank, size);
    MPI_Allreduce(&rank, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(all == size * (size - 1) / 2, "the ranks sum to %d", all);
    OK(MPI_Comm_rank(MPI_COMM_SELF, &rank));
    OK(MPI_Comm_size(MPI_COMM_SELF, &size));
    CHECK(rank == 0 && size == 1, "MPI_COMM_SELF: rank %d size %d", rank, size);
    SECTION("rank and size");

    OK(MPI_Get_processor_name(name, &len));
    CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME && (int)strlen(name) == len, "processor name %s (%d)", name, len);
    SECTION("processor name");

    {
        double t0 = MPI_Wtime(), t1, tick = MPI_Wtick();
        volatile double x = 0;
        int i;
        for (i = 0; i < 1000000; i++)
            x += i;
        t1 = MPI_Wtime();
        CHECK(t1 >= t0, "MPI_Wtime went back: %f then %f", t0, t1);
        CHECK(tick > 0 && tick < 1, "MPI_Wtick %g", tick);
    }
    SECTION("wtime");

    {
        int code = ct_finish();
        MPI_Finalized(&flag);
        if (flag != 1) {
            printf("FAIL init: MPI_Finalized after MPI_Finalize: %d\n", flag);
            code = 1;
        }
        return code;
    }
}
