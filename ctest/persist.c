/*
 * persist.c: persistent requests: MPI_Send_init, MPI_Recv_init,
 * MPI_Ssend_init, MPI_Start, MPI_Startall, reuse over several rounds,
 * MPI_Request_free of an inactive request, and Wait on an inactive one.
 * Ranks: at least 2 (the suite runs it on 4): a ring.
 */
#include "ctest.h"

int main(int argc, char **argv)
{
    int rank, size, next, prev, round, sv, rv, count;
    MPI_Request reqs[2], r;
    MPI_Status sts[2], st;

    ct_init(&argc, &argv, "persist", 2);
    rank = ct_rank;
    size = ct_size;
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;

    OK(MPI_Recv_init(&rv, 1, MPI_INT, prev, 5, MPI_COMM_WORLD, &reqs[0]));
    OK(MPI_Send_init(&sv, 1, MPI_INT, next, 5, MPI_COMM_WORLD, &reqs[1]));
    for (round = 0; round < 10; round++) {
        sv = rank * 100 + round;
        rv = -1;
        OK(MPI_Startall(2, reqs));
        OK(MPI_Waitall(2, reqs, sts));
        CHECK(rv == prev * 100 + round, "round %d: received %d", round, rv);
        CHECK(sts[0].MPI_SOURCE == prev && sts[0].MPI_TAG == 5, "round %d: status %d %d", round, sts[0].MPI_SOURCE, sts[0].MPI_TAG);
        CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL, "a persistent request became null");
    }
    SECTION("startall");

    for (round = 0; round < 5; round++) {
        sv = -round;
        OK(MPI_Start(&reqs[0]));
        OK(MPI_Start(&reqs[1]));
        OK(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
        OK(MPI_Wait(&reqs[0], &st));
        CHECK(rv == -round, "Start round %d: %d", round, rv);
    }
    /* Waiting on an inactive persistent request returns at once with an
     * empty status. */
    OK(MPI_Wait(&reqs[0], &st));
    OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG && count == 0,
          "Wait on an inactive request: %d %d %d", st.MPI_SOURCE, st.MPI_TAG, count);
    OK(MPI_Request_free(&reqs[0]));
    OK(MPI_Request_free(&reqs[1]));
    CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL, "Request_free left a request");
    SECTION("start and free");

    /* A synchronous persistent send. */
    OK(MPI_Ssend_init(&sv, 1, MPI_INT, next, 6, MPI_COMM_WORLD, &r));
    sv = 42 + rank;
    OK(MPI_Start(&r));
    OK(MPI_Recv(&rv, 1, MPI_INT, prev, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(rv == 42 + prev, "Ssend_init: %d", rv);
    OK(MPI_Request_free(&r));
    SECTION("ssend_init");

    return ct_finish();
}
