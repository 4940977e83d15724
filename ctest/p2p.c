/*
 * p2p.c: blocking and nonblocking point-to-point: Send/Recv with
 * statuses (MPI_SOURCE, MPI_TAG, MPI_Get_count), MPI_STATUS_IGNORE and
 * MPI_STATUSES_IGNORE, Ssend, Rsend, Bsend with an attached buffer,
 * Sendrecv, Sendrecv_replace, MPI_PROC_NULL, Isend/Irecv with Wait,
 * Waitall, Waitany, Waitsome, Test, Testall, and message order.
 * Ranks: at least 2 (the suite runs it on 4); every rank works with its
 * neighbours in a ring.
 */
#include "ctest.h"

#define N 100

int main(int argc, char **argv)
{
    int rank, size, next, prev, i, count, flag, idx;
    int sbuf[N], rbuf[N];
    MPI_Status st, sts[4];
    MPI_Request req, reqs[4];

    ct_init(&argc, &argv, "p2p", 2);
    rank = ct_rank;
    size = ct_size;
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    for (i = 0; i < N; i++)
        sbuf[i] = rank * 1000 + i;

    /* Blocking, with a status. */
    if (rank == 0) {
        OK(MPI_Send(sbuf, N, MPI_INT, 1, 11, MPI_COMM_WORLD));
        OK(MPI_Send(sbuf, N / 2, MPI_INT, 1, 12, MPI_COMM_WORLD));
    } else if (rank == 1) {
        memset(rbuf, 0, sizeof rbuf);
        OK(MPI_Recv(rbuf, N, MPI_INT, 0, 11, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 11, "status source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
        OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK(count == N, "count %d", count);
        CHECK(rbuf[0] == 0 && rbuf[N - 1] == N - 1, "data %d %d", rbuf[0], rbuf[N - 1]);
        /* A shorter message into a longer buffer. */
        OK(MPI_Recv(rbuf, N, MPI_INT, 0, 12, MPI_COMM_WORLD, &st));
        OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK(count == N / 2, "short count %d", count);
        OK(MPI_Get_count(&st, MPI_BYTE, &count));
        CHECK(count == N / 2 * (int)sizeof(int), "short count in bytes %d", count);
    }
    SECTION("send recv status");

    /* MPI_STATUS_IGNORE, and the order of messages with one tag. */
    if (rank == 0) {
        for (i = 0; i < 10; i++)
            OK(MPI_Send(&i, 1, MPI_INT, 1, 13, MPI_COMM_WORLD));
    } else if (rank == 1) {
        for (i = 0; i < 10; i++) {
            int v = -1;
            OK(MPI_Recv(&v, 1, MPI_INT, 0, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(v == i, "message %d arrived as %d (order)", i, v);
        }
    }
    SECTION("status ignore and order");

    /* Synchronous, ready and buffered modes. */
    if (rank == 0) {
        int bsize = N * sizeof(int) + MPI_BSEND_OVERHEAD, bs2;
        void *b = malloc(bsize), *b2;
        OK(MPI_Ssend(sbuf, N, MPI_INT, 1, 21, MPI_COMM_WORLD));
        OK(MPI_Recv(NULL, 0, MPI_INT, 1, 22, MPI_COMM_WORLD, MPI_STATUS_IGNORE)); /* rank 1 posted its receive */
        OK(MPI_Rsend(sbuf, N, MPI_INT, 1, 23, MPI_COMM_WORLD));
        OK(MPI_Buffer_attach(b, bsize));
        OK(MPI_Bsend(sbuf, N, MPI_INT, 1, 24, MPI_COMM_WORLD));
        OK(MPI_Buffer_detach(&b2, &bs2));
        CHECK(b2 == b && bs2 == bsize, "Buffer_detach gave %p %d, want %p %d", b2, bs2, b, bsize);
        free(b);
    } else if (rank == 1) {
        OK(MPI_Recv(rbuf, N, MPI_INT, 0, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(rbuf[5] == 5, "Ssend data %d", rbuf[5]);
        OK(MPI_Irecv(rbuf, N, MPI_INT, 0, 23, MPI_COMM_WORLD, &req));
        OK(MPI_Send(NULL, 0, MPI_INT, 0, 22, MPI_COMM_WORLD));
        OK(MPI_Wait(&req, &st));
        CHECK(st.MPI_TAG == 23 && rbuf[7] == 7, "Rsend: tag %d data %d", st.MPI_TAG, rbuf[7]);
        OK(MPI_Recv(rbuf, N, MPI_INT, 0, 24, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(rbuf[9] == 9, "Bsend data %d", rbuf[9]);
    }
    SECTION("ssend rsend bsend");

    /* Sendrecv around the ring, and Sendrecv_replace. */
    OK(MPI_Sendrecv(sbuf, N, MPI_INT, next, 31, rbuf, N, MPI_INT, prev, 31, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == prev && rbuf[3] == prev * 1000 + 3, "Sendrecv from %d: %d", st.MPI_SOURCE, rbuf[3]);
    memcpy(rbuf, sbuf, sizeof rbuf);
    OK(MPI_Sendrecv_replace(rbuf, N, MPI_INT, next, 32, prev, 32, MPI_COMM_WORLD, &st));
    CHECK(rbuf[4] == prev * 1000 + 4, "Sendrecv_replace: %d", rbuf[4]);
    SECTION("sendrecv");

    /* MPI_PROC_NULL: sends vanish, receives complete at once, empty. */
    OK(MPI_Send(sbuf, N, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    OK(MPI_Recv(rbuf, N, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0,
          "PROC_NULL status: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, count);
    SECTION("proc null");

    /* Nonblocking: Waitall with statuses and with MPI_STATUSES_IGNORE. */
    {
        int r1[N], r2[N];
        OK(MPI_Irecv(r1, N, MPI_INT, prev, 41, MPI_COMM_WORLD, &reqs[0]));
        OK(MPI_Irecv(r2, N, MPI_INT, next, 42, MPI_COMM_WORLD, &reqs[1]));
        OK(MPI_Isend(sbuf, N, MPI_INT, next, 41, MPI_COMM_WORLD, &reqs[2]));
        OK(MPI_Isend(sbuf, N, MPI_INT, prev, 42, MPI_COMM_WORLD, &reqs[3]));
        OK(MPI_Waitall(4, reqs, sts));
        CHECK(sts[0].MPI_SOURCE == prev && sts[0].MPI_TAG == 41, "Waitall status 0: %d %d", sts[0].MPI_SOURCE, sts[0].MPI_TAG);
        CHECK(sts[1].MPI_SOURCE == next && sts[1].MPI_TAG == 42, "Waitall status 1: %d %d", sts[1].MPI_SOURCE, sts[1].MPI_TAG);
        CHECK(r1[1] == prev * 1000 + 1 && r2[2] == next * 1000 + 2, "Waitall data %d %d", r1[1], r2[2]);
        for (i = 0; i < 4; i++)
            CHECK(reqs[i] == MPI_REQUEST_NULL, "request %d not MPI_REQUEST_NULL after Waitall", i);

        OK(MPI_Irecv(r1, N, MPI_INT, prev, 43, MPI_COMM_WORLD, &reqs[0]));
        OK(MPI_Isend(sbuf, N, MPI_INT, next, 43, MPI_COMM_WORLD, &reqs[1]));
        OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
        CHECK(r1[6] == prev * 1000 + 6, "Waitall ignoring statuses: %d", r1[6]);
    }
    SECTION("isend irecv waitall");

    /* Wait on a null request returns an empty status. */
    req = MPI_REQUEST_NULL;
    OK(MPI_Wait(&req, &st));
    OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG && count == 0,
          "Wait(MPI_REQUEST_NULL): source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, count);
    OK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
    CHECK(flag, "Test(MPI_REQUEST_NULL) is not done");
    SECTION("null requests");

    /* Waitany and Waitsome: every request completes exactly once. */
    {
        int r[3], seen[3] = {0, 0, 0}, done = 0, outcount, idxs[3];
        for (i = 0; i < 3; i++)
            OK(MPI_Irecv(&r[i], 1, MPI_INT, prev, 50 + i, MPI_COMM_WORLD, &reqs[i]));
        for (i = 2; i >= 0; i--) {
            int v = rank * 10 + i;
            OK(MPI_Send(&v, 1, MPI_INT, next, 50 + i, MPI_COMM_WORLD));
        }
        for (i = 0; i < 3; i++) {
            OK(MPI_Waitany(3, reqs, &idx, &st));
            CHECK(idx >= 0 && idx < 3 && !seen[idx], "Waitany index %d", idx);
            if (idx >= 0 && idx < 3) {
                seen[idx] = 1;
                CHECK(st.MPI_TAG == 50 + idx && r[idx] == prev * 10 + idx, "Waitany %d: tag %d value %d", idx, st.MPI_TAG, r[idx]);
            }
        }
        OK(MPI_Waitany(3, reqs, &idx, MPI_STATUS_IGNORE));
        CHECK(idx == MPI_UNDEFINED, "Waitany on null requests: %d", idx);

        for (i = 0; i < 3; i++)
            OK(MPI_Irecv(&r[i], 1, MPI_INT, prev, 60 + i, MPI_COMM_WORLD, &reqs[i]));
        for (i = 0; i < 3; i++) {
            int v = rank * 100 + i;
            OK(MPI_Send(&v, 1, MPI_INT, next, 60 + i, MPI_COMM_WORLD));
        }
        memset(seen, 0, sizeof seen);
        while (done < 3) {
            OK(MPI_Waitsome(3, reqs, &outcount, idxs, sts));
            CHECK(outcount >= 1 && outcount <= 3 - done, "Waitsome outcount %d", outcount);
            if (outcount < 1 || outcount > 3 - done)
                break;
            for (i = 0; i < outcount; i++) {
                CHECK(!seen[idxs[i]] && sts[i].MPI_TAG == 60 + idxs[i] && r[idxs[i]] == prev * 100 + idxs[i],
                      "Waitsome %d: tag %d value %d", idxs[i], sts[i].MPI_TAG, r[idxs[i]]);
                seen[idxs[i]] = 1;
            }
            done += outcount;
        }
        OK(MPI_Waitsome(3, reqs, &outcount, idxs, MPI_STATUSES_IGNORE));
        CHECK(outcount == MPI_UNDEFINED, "Waitsome on null requests: %d", outcount);
    }
    SECTION("waitany waitsome");

    /* Test and Testall poll until done. */
    {
        int v = -1, w = rank;
        OK(MPI_Irecv(&v, 1, MPI_INT, prev, 70, MPI_COMM_WORLD, &reqs[0]));
        OK(MPI_Isend(&w, 1, MPI_INT, next, 70, MPI_COMM_WORLD, &reqs[1]));
        flag = 0;
        for (i = 0; !flag && i < 100000000; i++)
            OK(MPI_Testall(2, reqs, &flag, sts));
        CHECK(flag && v == prev && sts[0].MPI_SOURCE == prev, "Testall: flag %d value %d source %d", flag, v, sts[0].MPI_SOURCE);
        OK(MPI_Irecv(&v, 1, MPI_INT, prev, 71, MPI_COMM_WORLD, &req));
        OK(MPI_Send(&w, 1, MPI_INT, next, 71, MPI_COMM_WORLD));
        flag = 0;
        while (!flag)
            OK(MPI_Test(&req, &flag, &st));
        CHECK(req == MPI_REQUEST_NULL && st.MPI_TAG == 71, "Test: tag %d", st.MPI_TAG);
    }
    SECTION("test testall");

    return ct_finish();
}
