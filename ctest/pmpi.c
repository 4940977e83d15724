/*
 * pmpi.c: PMPI interposition. Linked with the profiling library
 * pmpi_count.c (see there), every MPI_Send the program makes goes through
 * the library's MPI_Send, which counts it and calls PMPI_Send; the
 * program's own PMPI_Send calls and the MPI library's other functions
 * (Sendrecv, Bcast, Ssend) are not counted. The messages still arrive.
 * Ranks: at least 2 (the suite runs it on 2).
 */
#include "ctest.h"

int pmpi_count_sends(void);

int main(int argc, char **argv)
{
    int rank, i, v, w;

    ct_init(&argc, &argv, "pmpi", 2);
    rank = ct_rank;
    CHECK(pmpi_count_sends() == 0, "sends counted before any: %d", pmpi_count_sends());

    if (rank == 0) {
        for (i = 0; i < 5; i++)
            OK(MPI_Send(&i, 1, MPI_INT, 1, 1, MPI_COMM_WORLD));
        v = 99;
        OK(PMPI_Send(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD));
        OK(MPI_Ssend(&v, 1, MPI_INT, 1, 3, MPI_COMM_WORLD));
    } else if (rank == 1) {
        for (i = 0; i < 5; i++) {
            OK(MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(v == i, "message %d: %d", i, v);
        }
        OK(PMPI_Recv(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(v == 99, "PMPI message: %d", v);
        OK(MPI_Recv(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    v = rank;
    OK(MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % ct_size, 4, &w, 1, MPI_INT, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    OK(MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD));
    CHECK(pmpi_count_sends() == (rank == 0 ? 5 : 0), "MPI_Send calls counted: %d, want %d", pmpi_count_sends(), rank == 0 ? 5 : 0);
    SECTION("profiling interface");
    return ct_finish();
}
