/* np: 1 2 3 4
 * Collectives over derived datatypes: a column of a row-major matrix
 * (MPI_Type_vector) broadcast; blocks gathered into columns (a vector
 * resized to one int: a transposition) by Gather and Gatherv;
 * MPI_DOUBLE_INT (padded) moved by Bcast and Allgather. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (!(cond)) { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

#define ROWS 3
#define COLS 4

int main(int argc, char **argv)
{
	int rank, size, i, j, root;
	MPI_Datatype col, colr;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Type_vector(ROWS, 1, COLS, MPI_INT, &col);
	MPI_Type_commit(&col);

	/* Bcast column 2 of the root's matrix into column 1 of the others'. */
	for (root = 0; root < size; root++) {
		int m[ROWS][COLS];
		for (i = 0; i < ROWS; i++)
			for (j = 0; j < COLS; j++)
				m[i][j] = rank == root ? i * 10 + j : -1;
		MPI_Bcast(rank == root ? &m[0][2] : &m[0][1], 1, col, root, MPI_COMM_WORLD);
		if (rank != root)
			for (i = 0; i < ROWS; i++)
				for (j = 0; j < COLS; j++)
					CHECK(m[i][j] == (j == 1 ? i * 10 + 2 : -1), "Bcast column root %d: m[%d][%d] = %d", root, i, j, m[i][j]);
	}

	/* Gather rows of ROWS ints into the columns of a ROWS x size matrix. */
	MPI_Type_free(&col);
	MPI_Type_vector(ROWS, 1, size, MPI_INT, &col);
	MPI_Type_create_resized(col, 0, sizeof(int), &colr);
	MPI_Type_commit(&colr);
	int mine[ROWS], *mat = malloc(sizeof(int) * ROWS * size);
	int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
	for (i = 0; i < ROWS; i++)
		mine[i] = rank * 100 + i;
	for (i = 0; i < size; i++) {
		counts[i] = 1;
		displs[i] = size - 1 - i; /* reversed: column size-1-i */
	}
	for (root = 0; root < size; root++) {
		for (i = 0; i < ROWS * size; i++)
			mat[i] = -1;
		MPI_Gather(mine, ROWS, MPI_INT, mat, 1, colr, root, MPI_COMM_WORLD);
		if (rank == root)
			for (i = 0; i < ROWS; i++)
				for (j = 0; j < size; j++)
					CHECK(mat[i * size + j] == j * 100 + i, "Gather into columns: [%d][%d] = %d", i, j, mat[i * size + j]);
		for (i = 0; i < ROWS * size; i++)
			mat[i] = -1;
		MPI_Gatherv(mine, ROWS, MPI_INT, mat, counts, displs, colr, root, MPI_COMM_WORLD);
		if (rank == root)
			for (i = 0; i < ROWS; i++)
				for (j = 0; j < size; j++)
					CHECK(mat[i * size + j] == (size - 1 - j) * 100 + i, "Gatherv into columns: [%d][%d] = %d", i, j, mat[i * size + j]);
	}
	free(mat);

	/* MPI_DOUBLE_INT: a padded struct. */
	struct { double v; int i; } di[2], *dis = malloc(sizeof(di[0]) * size);
	for (i = 0; i < 2; i++) {
		di[i].v = rank == 0 ? 1.5 + i : -1;
		di[i].i = rank == 0 ? 7 + i : -1;
	}
	MPI_Bcast(di, 2, MPI_DOUBLE_INT, 0, MPI_COMM_WORLD);
	CHECK(di[0].v == 1.5 && di[0].i == 7 && di[1].v == 2.5 && di[1].i == 8, "Bcast MPI_DOUBLE_INT");
	di[0].v = rank * 2.0;
	di[0].i = rank;
	MPI_Allgather(di, 1, MPI_DOUBLE_INT, dis, 1, MPI_DOUBLE_INT, MPI_COMM_WORLD);
	for (i = 0; i < size; i++)
		CHECK(dis[i].v == i * 2.0 && dis[i].i == i, "Allgather MPI_DOUBLE_INT [%d]", i);
	free(dis);

	MPI_Type_free(&col);
	MPI_Type_free(&colr);
	free(counts);
	free(displs);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0 && !failed)
		printf("ok coll_derived\n");
	MPI_Finalize();
	return failed;
}
