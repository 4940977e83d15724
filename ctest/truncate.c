/*
 * truncate.c: a message longer than the receive buffer is an error of
 * class MPI_ERR_TRUNCATE (with MPI_ERRORS_RETURN), in MPI_Recv's return
 * value, in MPI_Wait's, and in the status of MPI_Waitall, which returns
 * MPI_ERR_IN_STATUS; MPI_Error_string names it.
 * Ranks: at least 2 (the suite runs it on 2).
 */
#include "ctest.h"

int main(int argc, char **argv)
{
    int rank, rc, cls, len, buf[10] = {0}, big[20];
    char str[MPI_MAX_ERROR_STRING];
    MPI_Status st, sts[2];
    MPI_Request reqs[2];

    ct_init(&argc, &argv, "truncate", 2);
    rank = ct_rank;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    memset(big, 0, sizeof big);

    if (rank == 0) {
        OK(MPI_Send(big, 20, MPI_INT, 1, 1, MPI_COMM_WORLD));
        OK(MPI_Send(big, 20, MPI_INT, 1, 2, MPI_COMM_WORLD));
        OK(MPI_Send(big, 5, MPI_INT, 1, 3, MPI_COMM_WORLD));
        OK(MPI_Send(big, 20, MPI_INT, 1, 4, MPI_COMM_WORLD));
    } else if (rank == 1) {
        rc = MPI_Recv(buf, 10, MPI_INT, 0, 1, MPI_COMM_WORLD, &st);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE, "Recv of a long message: rc %d class %d", rc, cls);
        MPI_Error_string(rc, str, &len);
        CHECK(len > 0 && (int)strlen(str) == len, "Error_string of the truncation: %s", str);

        OK(MPI_Irecv(buf, 10, MPI_INT, 0, 2, MPI_COMM_WORLD, &reqs[0]));
        rc = MPI_Wait(&reqs[0], &st);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE, "Wait of a long message: rc %d class %d", rc, cls);

        OK(MPI_Irecv(buf, 10, MPI_INT, 0, 3, MPI_COMM_WORLD, &reqs[0]));
        OK(MPI_Irecv(buf, 10, MPI_INT, 0, 4, MPI_COMM_WORLD, &reqs[1]));
        rc = MPI_Waitall(2, reqs, sts);
        CHECK(rc == MPI_ERR_IN_STATUS, "Waitall with one truncation: rc %d", rc);
        CHECK(sts[0].MPI_ERROR == MPI_SUCCESS, "status 0 error %d", sts[0].MPI_ERROR);
        MPI_Error_class(sts[1].MPI_ERROR, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE, "status 1 error %d class %d", sts[1].MPI_ERROR, cls);
    }
    SECTION("truncation");
    return ct_finish();
}
