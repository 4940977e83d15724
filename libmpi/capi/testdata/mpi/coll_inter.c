/* np: 2 3 4
 * Collectives on an intercommunicator between the even and the odd
 * ranks of MPI_COMM_WORLD: rooted ones with MPI_ROOT and MPI_PROC_NULL,
 * Allreduce (each group gets the other's result), Allgather, Alltoall,
 * Barrier. */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (!(cond)) { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

int main(int argc, char **argv)
{
	int wrank, wsize, rank, size, rsize, i;
	MPI_Comm local, inter;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
	MPI_Comm_size(MPI_COMM_WORLD, &wsize);
	int color = wrank % 2;
	MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &local);
	MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 99, &inter);
	MPI_Comm_rank(inter, &rank);
	MPI_Comm_size(inter, &size);
	MPI_Comm_remote_size(inter, &rsize);

	/* Bcast from the even group's rank 0 to the odd group. */
	int b[2] = {-1, -1};
	if (color == 0) {
		if (rank == 0) {
			b[0] = 41;
			b[1] = 42;
		}
		MPI_Bcast(b, 2, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
		if (rank != 0)
			CHECK(b[0] == -1, "Bcast touched a non-root of the root's group");
	} else {
		MPI_Bcast(b, 2, MPI_INT, 0, inter);
		CHECK(b[0] == 41 && b[1] == 42, "Bcast: %d %d", b[0], b[1]);
	}

	/* Gather to the odd group's rank 0 from the even group. */
	int *all = malloc(sizeof(int) * (rsize + 1)), me = 1000 + rank;
	for (i = 0; i < rsize; i++)
		all[i] = -1;
	if (color == 1)
		MPI_Gather(NULL, 0, MPI_INT, all, 1, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
	else
		MPI_Gather(&me, 1, MPI_INT, NULL, 0, MPI_INT, 0, inter);
	if (color == 1 && rank == 0)
		for (i = 0; i < rsize; i++)
			CHECK(all[i] == 1000 + i, "Gather [%d] = %d", i, all[i]);

	/* Scatter from the odd group's rank 0 to the even group. */
	int got = -1;
	for (i = 0; i < rsize; i++)
		all[i] = 2000 + i;
	if (color == 1)
		MPI_Scatter(all, 1, MPI_INT, NULL, 0, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
	else {
		MPI_Scatter(NULL, 0, MPI_INT, &got, 1, MPI_INT, 0, inter);
		CHECK(got == 2000 + rank, "Scatter: %d", got);
	}

	/* Reduce to the even group's rank 0 of the odd group's values. */
	long r = -1, v = wrank;
	if (color == 0)
		MPI_Reduce(NULL, &r, 1, MPI_LONG, MPI_SUM, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
	else
		MPI_Reduce(&v, NULL, 1, MPI_LONG, MPI_SUM, 0, inter);
	long odd = 0, even = 0;
	for (i = 0; i < wsize; i++) {
		if (i % 2)
			odd += i;
		else
			even += i;
	}
	if (color == 0 && rank == 0)
		CHECK(r == odd, "Reduce: %ld, want %ld", r, odd);

	/* Allreduce: each group gets the sum of the other's. */
	r = -1;
	MPI_Allreduce(&v, &r, 1, MPI_LONG, MPI_SUM, inter);
	CHECK(r == (color ? even : odd), "Allreduce: %ld", r);

	/* Allgather: each process gets the other group's ranks. */
	for (i = 0; i < rsize; i++)
		all[i] = -1;
	MPI_Allgather(&wrank, 1, MPI_INT, all, 1, MPI_INT, inter);
	for (i = 0; i < rsize; i++)
		CHECK(all[i] == 2 * i + 1 - color, "Allgather [%d] = %d", i, all[i]);

	/* Alltoall: block j goes to the remote rank j. */
	int *s = malloc(sizeof(int) * rsize);
	for (i = 0; i < rsize; i++) {
		s[i] = wrank * 100 + i;
		all[i] = -1;
	}
	MPI_Alltoall(s, 1, MPI_INT, all, 1, MPI_INT, inter);
	for (i = 0; i < rsize; i++)
		CHECK(all[i] == (2 * i + 1 - color) * 100 + rank, "Alltoall [%d] = %d", i, all[i]);

	MPI_Barrier(inter);
	free(all);
	free(s);
	MPI_Comm_free(&inter);
	MPI_Comm_free(&local);
	MPI_Barrier(MPI_COMM_WORLD);
	if (wrank == 0 && !failed)
		printf("ok coll_inter\n");
	MPI_Finalize();
	return failed;
}
