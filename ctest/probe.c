/*
 * probe.c: MPI_Probe and MPI_Iprobe, MPI_ANY_SOURCE and MPI_ANY_TAG in
 * probes and receives (the status names the real source and tag), and
 * receiving a probed message of a size learned from MPI_Get_count.
 * Ranks: at least 2 (the suite runs it on 3): every rank but 0 sends to 0.
 */
#include "ctest.h"

int main(int argc, char **argv)
{
    int rank, size, i, count, flag;
    MPI_Status st;

    ct_init(&argc, &argv, "probe", 2);
    rank = ct_rank;
    size = ct_size;

    /* Each rank r > 0 sends r+1 ints with tag 100+r; rank 0 probes
     * from any source, sizes its buffer from the probe, receives. */
    if (rank == 0) {
        int seen = 0;
        for (i = 1; i < size; i++) {
            int *buf;
            OK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            CHECK(st.MPI_SOURCE >= 1 && st.MPI_SOURCE < size && st.MPI_TAG == 100 + st.MPI_SOURCE,
                  "Probe: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
            OK(MPI_Get_count(&st, MPI_INT, &count));
            CHECK(count == st.MPI_SOURCE + 1, "Probe count %d from %d", count, st.MPI_SOURCE);
            buf = malloc((count > 0 ? count : 1) * sizeof(int));
            OK(MPI_Recv(buf, count, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st));
            CHECK(buf[count - 1] == st.MPI_SOURCE, "probed message's data %d", buf[count - 1]);
            seen |= 1 << st.MPI_SOURCE;
            free(buf);
        }
        CHECK(seen == ((1 << size) - 2), "sources seen %#x", seen);
    } else {
        int *buf = malloc((rank + 1) * sizeof(int));
        for (i = 0; i <= rank; i++)
            buf[i] = rank;
        OK(MPI_Send(buf, rank + 1, MPI_INT, 0, 100 + rank, MPI_COMM_WORLD));
        free(buf);
    }
    SECTION("probe any source");

    /* Iprobe: nothing there yet, then the message after a barrier. */
    OK(MPI_Iprobe(MPI_ANY_SOURCE, 200, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "Iprobe found a message nobody sent");
    OK(MPI_Barrier(MPI_COMM_WORLD)); /* nobody sends before every Iprobe ran */
    if (rank == 1) {
        double d = 2.5;
        OK(MPI_Send(&d, 1, MPI_DOUBLE, 0, 200, MPI_COMM_WORLD));
    }
    if (rank == 0) {
        double d = 0;
        flag = 0;
        while (!flag)
            OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 200, "Iprobe: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
        OK(MPI_Get_count(&st, MPI_DOUBLE, &count));
        CHECK(count == 1, "Iprobe count %d", count);
        /* The probe did not take the message. */
        OK(MPI_Iprobe(1, 200, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK(flag, "the message left after the first Iprobe");
        OK(MPI_Recv(&d, 1, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK(d == 2.5 && st.MPI_SOURCE == 1 && st.MPI_TAG == 200, "received %g from %d tag %d", d, st.MPI_SOURCE, st.MPI_TAG);
    }
    SECTION("iprobe");

    /* Wildcards in receives: tags are matched in order per source. */
    if (rank == 1) {
        int v;
        for (v = 0; v < 5; v++)
            OK(MPI_Send(&v, 1, MPI_INT, 0, 300 + v, MPI_COMM_WORLD));
    } else if (rank == 0) {
        int v;
        for (i = 0; i < 5; i++) {
            OK(MPI_Recv(&v, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            CHECK(v == i && st.MPI_TAG == 300 + i, "ANY_TAG receive %d: value %d tag %d", i, v, st.MPI_TAG);
        }
    }
    /* A specific tag skips earlier messages of other tags. */
    if (rank == 1) {
        int a = 1, b = 2;
        OK(MPI_Send(&a, 1, MPI_INT, 0, 401, MPI_COMM_WORLD));
        OK(MPI_Send(&b, 1, MPI_INT, 0, 402, MPI_COMM_WORLD));
    } else if (rank == 0) {
        int v;
        OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 402, MPI_COMM_WORLD, &st));
        CHECK(v == 2 && st.MPI_SOURCE == 1, "tag 402 first: %d from %d", v, st.MPI_SOURCE);
        OK(MPI_Recv(&v, 1, MPI_INT, 1, 401, MPI_COMM_WORLD, &st));
        CHECK(v == 1, "tag 401 after: %d", v);
    }
    SECTION("wildcards");

    return ct_finish();
}
