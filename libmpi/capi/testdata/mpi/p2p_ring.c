/* np: 1 3 4
 * A ring of blocking sends and receives of ints, doubles and bytes, with
 * statuses checked and MPI_STATUS_IGNORE. */
#include <stdio.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (!(cond)) { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

int main(int argc, char **argv)
{
	int rank, size, i, n;
	MPI_Status st;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	for (i = 0; i < 3; i++) {
		int iv[4] = {rank, i, -rank, 7}, ir[4];
		double dv[2] = {rank + 0.5, i * 2.25}, dr[2];
		if (rank % 2 == 0) {
			MPI_Send(iv, 4, MPI_INT, next, 10 + i, MPI_COMM_WORLD);
			MPI_Recv(ir, 4, MPI_INT, prev, 10 + i, MPI_COMM_WORLD, &st);
			MPI_Send(dv, 2, MPI_DOUBLE, next, 20, MPI_COMM_WORLD);
			MPI_Recv(dr, 2, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(ir, 4, MPI_INT, prev, 10 + i, MPI_COMM_WORLD, &st);
			MPI_Send(iv, 4, MPI_INT, next, 10 + i, MPI_COMM_WORLD);
			MPI_Recv(dr, 2, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(dv, 2, MPI_DOUBLE, next, 20, MPI_COMM_WORLD);
		}
		MPI_Get_count(&st, MPI_INT, &n);
		CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 10 + i && n == 4, "status %d %d %d", st.MPI_SOURCE, st.MPI_TAG, n);
		MPI_Get_count(&st, MPI_DOUBLE, &n);
		CHECK(n == 2, "count as doubles %d", n); /* 16 bytes are 2 doubles */
		CHECK(ir[0] == prev && ir[1] == i && ir[2] == -prev && ir[3] == 7, "ints %d %d %d %d", ir[0], ir[1], ir[2], ir[3]);
		CHECK(dr[0] == prev + 0.5 && dr[1] == i * 2.25, "doubles %g %g", dr[0], dr[1]);
	}
	MPI_Finalize();
	if (!failed)
		printf("ok p2p_ring rank %d\n", rank);
	return failed;
}
