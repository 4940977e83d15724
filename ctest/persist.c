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

    /* A ready persistent send: every receive is posted (and the
     * barrier says so) before any send starts, as MPI_Rsend needs. */
    OK(MPI_Rsend_init(&sv, 1, MPI_INT, next, 7, MPI_COMM_WORLD, &r));
    for (round = 0; round < 3; round++) {
        sv = 1000 * round + rank;
        rv = -1;
        OK(MPI_Irecv(&rv, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, &reqs[0]));
        OK(MPI_Barrier(MPI_COMM_WORLD));
        OK(MPI_Start(&r));
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        OK(MPI_Wait(&reqs[0], &st));
        CHECK(rv == 1000 * round + prev && st.MPI_SOURCE == prev && st.MPI_TAG == 7,
              "Rsend_init round %d: %d from %d tag %d", round, rv, st.MPI_SOURCE, st.MPI_TAG);
        OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    OK(MPI_Request_free(&r));
    /* Its errors, returned: an invalid rank, a negative count, a null
     * communicator (the world's handler). */
    {
        int rc, class;
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        rc = MPI_Rsend_init(&sv, 1, MPI_INT, size, 7, MPI_COMM_WORLD, &r);
        MPI_Error_class(rc, &class);
        CHECK(class == MPI_ERR_RANK, "Rsend_init to rank %d: class %d", size, class);
        rc = MPI_Rsend_init(&sv, -1, MPI_INT, next, 7, MPI_COMM_WORLD, &r);
        MPI_Error_class(rc, &class);
        CHECK(class == MPI_ERR_COUNT, "Rsend_init of -1: class %d", class);
        rc = MPI_Rsend_init(&sv, 1, MPI_INT, next, 7, MPI_COMM_NULL, &r);
        MPI_Error_class(rc, &class);
        CHECK(class == MPI_ERR_COMM, "Rsend_init on MPI_COMM_NULL: class %d", class);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    SECTION("rsend_init");

    return ct_finish();
}
