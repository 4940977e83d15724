/* np: 1 2 3 4
 * The collectives that move data, each from every root where it has one,
 * in place and not: Barrier, Bcast, Gather(v), Scatter(v), Allgather(v),
 * Alltoall(v,w), with irregular counts and displacements with gaps for
 * the v forms, and zero counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (!(cond)) { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

static int rank, size;

/* The value rank r puts in its element i for the collective k. */
static int val(int k, int r, int i) { return k * 10000 + r * 100 + i; }

static void bcast(void)
{
	int root, i, rc;
	for (root = 0; root < size; root++) {
		int b[5];
		double d[3];
		for (i = 0; i < 5; i++)
			b[i] = rank == root ? val(1, root, i) : -1;
		for (i = 0; i < 3; i++)
			d[i] = rank == root ? root + i * 0.5 : -1;
		rc = MPI_Bcast(b, 5, MPI_INT, root, MPI_COMM_WORLD);
		CHECK(rc == MPI_SUCCESS, "Bcast rc %d", rc);
		MPI_Bcast(d, 3, MPI_DOUBLE, root, MPI_COMM_WORLD);
		for (i = 0; i < 5; i++)
			CHECK(b[i] == val(1, root, i), "Bcast root %d b[%d] = %d", root, i, b[i]);
		for (i = 0; i < 3; i++)
			CHECK(d[i] == root + i * 0.5, "Bcast root %d d[%d] = %g", root, i, d[i]);
		rc = MPI_Bcast(NULL, 0, MPI_INT, root, MPI_COMM_WORLD);
		CHECK(rc == MPI_SUCCESS, "Bcast of nothing rc %d", rc);
	}
	printf("ok bcast\n");
}

static void gather_scatter(void)
{
	int root, i, r, inplace;
	int *all = malloc(sizeof(int) * 2 * size);
	for (root = 0; root < size; root++)
		for (inplace = 0; inplace < 2; inplace++) {
			int mine[2] = {val(2, rank, 0), val(2, rank, 1)};
			for (i = 0; i < 2 * size; i++)
				all[i] = -1;
			if (inplace && rank == root) {
				all[2 * root] = mine[0];
				all[2 * root + 1] = mine[1];
				MPI_Gather(MPI_IN_PLACE, 2, MPI_INT, all, 2, MPI_INT, root, MPI_COMM_WORLD);
			} else
				MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, root, MPI_COMM_WORLD);
			if (rank == root)
				for (r = 0; r < size; r++)
					for (i = 0; i < 2; i++)
						CHECK(all[2 * r + i] == val(2, r, i), "Gather root %d in place %d: [%d] = %d", root, inplace, 2 * r + i, all[2 * r + i]);

			if (rank == root)
				for (r = 0; r < size; r++)
					for (i = 0; i < 2; i++)
						all[2 * r + i] = val(3, r, i);
			mine[0] = mine[1] = -1;
			if (inplace && rank == root) {
				MPI_Scatter(all, 2, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, root, MPI_COMM_WORLD);
				mine[0] = all[2 * root];
				mine[1] = all[2 * root + 1];
			} else
				MPI_Scatter(all, 2, MPI_INT, mine, 2, MPI_INT, root, MPI_COMM_WORLD);
			CHECK(mine[0] == val(3, rank, 0) && mine[1] == val(3, rank, 1), "Scatter root %d in place %d: %d %d", root, inplace, mine[0], mine[1]);
		}
	free(all);
	printf("ok gather scatter\n");
}

/* Rank r's block in the v forms: r+1 elements, or none for rank 1 (a
   zero count), at displacement 2r(r+1)/2 + r (gaps between blocks). */
static int vcount(int r) { return r == 1 ? 0 : r + 1; }
static int vdispl(int r) { return r * (r + 1) / 2 + 2 * r; }

static void gatherv_scatterv(void)
{
	int root, i, r, inplace, n = vdispl(size) + 1;
	int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
	double *all = malloc(sizeof(double) * n), mine[8];
	for (r = 0; r < size; r++) {
		counts[r] = vcount(r);
		displs[r] = vdispl(r);
	}
	for (root = 0; root < size; root++)
		for (inplace = 0; inplace < 2; inplace++) {
			for (i = 0; i < vcount(rank); i++)
				mine[i] = val(4, rank, i) + 0.25;
			for (i = 0; i < n; i++)
				all[i] = -1;
			if (inplace && rank == root) {
				for (i = 0; i < vcount(rank); i++)
					all[displs[rank] + i] = mine[i];
				MPI_Gatherv(MPI_IN_PLACE, vcount(rank), MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, root, MPI_COMM_WORLD);
			} else
				MPI_Gatherv(mine, vcount(rank), MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, root, MPI_COMM_WORLD);
			if (rank == root) {
				for (r = 0; r < size; r++)
					for (i = 0; i < vcount(r); i++)
						CHECK(all[displs[r] + i] == val(4, r, i) + 0.25, "Gatherv root %d in place %d: rank %d [%d] = %g", root, inplace, r, i, all[displs[r] + i]);
				for (r = 0; r + 1 < size; r++)
					CHECK(all[displs[r] + counts[r]] == -1, "Gatherv root %d wrote into the gap after block %d", root, r);
			}

			if (rank == root)
				for (r = 0; r < size; r++)
					for (i = 0; i < vcount(r); i++)
						all[displs[r] + i] = val(5, r, i);
			for (i = 0; i < 8; i++)
				mine[i] = -1;
			if (inplace && rank == root) {
				MPI_Scatterv(all, counts, displs, MPI_DOUBLE, MPI_IN_PLACE, vcount(rank), MPI_DOUBLE, root, MPI_COMM_WORLD);
				for (i = 0; i < vcount(rank); i++)
					mine[i] = all[displs[rank] + i];
			} else
				MPI_Scatterv(all, counts, displs, MPI_DOUBLE, mine, vcount(rank), MPI_DOUBLE, root, MPI_COMM_WORLD);
			for (i = 0; i < vcount(rank); i++)
				CHECK(mine[i] == val(5, rank, i), "Scatterv root %d in place %d: [%d] = %g", root, inplace, i, mine[i]);
			CHECK(mine[vcount(rank)] == -1, "Scatterv wrote past the block");
		}
	free(counts);
	free(displs);
	free(all);
	printf("ok gatherv scatterv\n");
}

static void allgather(void)
{
	int i, r, inplace, n = vdispl(size) + 1;
	int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
	short *all = malloc(sizeof(short) * n), mine[8];
	for (r = 0; r < size; r++) {
		counts[r] = vcount(r);
		displs[r] = vdispl(r);
	}
	for (inplace = 0; inplace < 2; inplace++) {
		mine[0] = (short)(rank * 2);
		mine[1] = (short)(rank * 2 + 1);
		for (i = 0; i < 2 * size; i++)
			all[i] = -1;
		if (inplace) {
			all[2 * rank] = mine[0];
			all[2 * rank + 1] = mine[1];
			MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 2, MPI_SHORT, MPI_COMM_WORLD);
		} else
			MPI_Allgather(mine, 2, MPI_SHORT, all, 2, MPI_SHORT, MPI_COMM_WORLD);
		for (i = 0; i < 2 * size; i++)
			CHECK(all[i] == i, "Allgather in place %d: [%d] = %d", inplace, i, all[i]);

		for (i = 0; i < vcount(rank); i++)
			mine[i] = (short)val(0, rank, i);
		for (i = 0; i < n; i++)
			all[i] = -1;
		if (inplace) {
			for (i = 0; i < vcount(rank); i++)
				all[displs[rank] + i] = mine[i];
			MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, counts, displs, MPI_SHORT, MPI_COMM_WORLD);
		} else
			MPI_Allgatherv(mine, vcount(rank), MPI_SHORT, all, counts, displs, MPI_SHORT, MPI_COMM_WORLD);
		for (r = 0; r < size; r++)
			for (i = 0; i < vcount(r); i++)
				CHECK(all[displs[r] + i] == val(0, r, i), "Allgatherv in place %d: rank %d [%d] = %d", inplace, r, i, all[displs[r] + i]);
		for (r = 0; r + 1 < size; r++)
			CHECK(all[displs[r] + counts[r]] == -1, "Allgatherv wrote into the gap after block %d", r);
	}
	free(counts);
	free(displs);
	free(all);
	printf("ok allgather allgatherv\n");
}

/* The elements rank i sends rank j in the in-place Alltoallv: the same
   both ways, as in place needs. */
static int sym(int i, int j) { return i + j + 1; }

static void alltoall(void)
{
	int i, j, inplace;
	int *s = malloc(sizeof(int) * 3 * size), *r = malloc(sizeof(int) * 3 * size);
	for (inplace = 0; inplace < 2; inplace++) {
		for (j = 0; j < size; j++)
			for (i = 0; i < 3; i++)
				s[3 * j + i] = val(6, rank, j * 10 + i);
		if (inplace) {
			memcpy(r, s, sizeof(int) * 3 * size);
			MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, 3, MPI_INT, MPI_COMM_WORLD);
		} else
			MPI_Alltoall(s, 3, MPI_INT, r, 3, MPI_INT, MPI_COMM_WORLD);
		for (j = 0; j < size; j++)
			for (i = 0; i < 3; i++)
				CHECK(r[3 * j + i] == val(6, j, rank * 10 + i), "Alltoall in place %d: from %d [%d] = %d", inplace, j, i, r[3 * j + i]);
	}
	free(s);
	free(r);

	/* Alltoallv: rank i sends j+1 ints to j at sdispls with gaps. */
	int *sc = malloc(sizeof(int) * size), *sd = malloc(sizeof(int) * size);
	int *rc = malloc(sizeof(int) * size), *rd = malloc(sizeof(int) * size);
	int n = 0, m = 0;
	for (j = 0; j < size; j++) {
		sc[j] = j + 1;
		sd[j] = n + 1;
		n += sc[j] + 1;
		rc[j] = rank + 1;
		rd[j] = m;
		m += rc[j] + 2;
	}
	s = malloc(sizeof(int) * (n + 1));
	r = malloc(sizeof(int) * (m + 1));
	for (j = 0; j < size; j++)
		for (i = 0; i < sc[j]; i++)
			s[sd[j] + i] = val(7, rank, j * 10 + i);
	for (i = 0; i <= m; i++)
		r[i] = -1;
	MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, MPI_COMM_WORLD);
	for (j = 0; j < size; j++) {
		for (i = 0; i < rc[j]; i++)
			CHECK(r[rd[j] + i] == val(7, j, rank * 10 + i), "Alltoallv from %d [%d] = %d", j, i, r[rd[j] + i]);
		CHECK(r[rd[j] + rc[j]] == -1, "Alltoallv wrote into the gap after block %d", j);
	}
	free(s);
	free(r);
	/* In place: rank i and j exchange sym(i, j) ints. */
	m = 0;
	for (j = 0; j < size; j++) {
		rc[j] = sym(rank, j);
		rd[j] = m;
		m += rc[j] + 1;
	}
	r = malloc(sizeof(int) * (m + 1));
	for (j = 0; j < size; j++)
		for (i = 0; i < rc[j]; i++)
			r[rd[j] + i] = val(8, rank, j * 10 + i);
	MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, r, rc, rd, MPI_INT, MPI_COMM_WORLD);
	for (j = 0; j < size; j++)
		for (i = 0; i < rc[j]; i++)
			CHECK(r[rd[j] + i] == val(8, j, rank * 10 + i), "Alltoallv in place from %d [%d] = %d", j, i, r[rd[j] + i]);
	free(r);

	/* Alltoallw: to an odd rank, doubles; to an even one, ints; byte
	   displacements. */
	MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * size), *rt = malloc(sizeof(MPI_Datatype) * size);
	char *sb = malloc((size_t)size * 32), *rb = malloc((size_t)size * 32);
	for (j = 0; j < size; j++) {
		st[j] = j % 2 ? MPI_DOUBLE : MPI_INT;
		rt[j] = rank % 2 ? MPI_DOUBLE : MPI_INT;
		sc[j] = 2;
		rc[j] = 2;
		sd[j] = 16 * j;
		rd[j] = 16 * (size - 1 - j); /* reversed, to see the displacements */
		for (i = 0; i < 2; i++) {
			if (j % 2)
				((double *)(sb + sd[j]))[i] = val(9, rank, j * 10 + i) + 0.5;
			else
				((int *)(sb + sd[j]))[i] = val(9, rank, j * 10 + i);
		}
	}
	MPI_Alltoallw(sb, sc, sd, st, rb, rc, rd, rt, MPI_COMM_WORLD);
	for (j = 0; j < size; j++)
		for (i = 0; i < 2; i++) {
			if (rank % 2) {
				double d = ((double *)(rb + rd[j]))[i];
				CHECK(d == val(9, j, rank * 10 + i) + 0.5, "Alltoallw from %d [%d] = %g", j, i, d);
			} else {
				int v = ((int *)(rb + rd[j]))[i];
				CHECK(v == val(9, j, rank * 10 + i), "Alltoallw from %d [%d] = %d", j, i, v);
			}
		}
	/* Alltoallw in place: rank i and j exchange sym(i, j) ints. */
	int *w = malloc(sizeof(int) * 16 * size);
	for (j = 0; j < size; j++) {
		rt[j] = MPI_INT;
		rc[j] = sym(rank, j);
		rd[j] = (int)sizeof(int) * 8 * j;
		for (i = 0; i < rc[j]; i++)
			w[8 * j + i] = val(10, rank, j * 10 + i);
	}
	MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, w, rc, rd, rt, MPI_COMM_WORLD);
	for (j = 0; j < size; j++)
		for (i = 0; i < rc[j]; i++)
			CHECK(w[8 * j + i] == val(10, j, rank * 10 + i), "Alltoallw in place from %d [%d] = %d", j, i, w[8 * j + i]);
	free(w);
	free(st);
	free(rt);
	free(sb);
	free(rb);
	free(sc);
	free(sd);
	free(rc);
	free(rd);
	printf("ok alltoall alltoallv alltoallw\n");
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "Barrier");
	bcast();
	gather_scatter();
	gatherv_scatterv();
	allgather();
	alltoall();
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0 && !failed)
		printf("ok coll_move\n");
	MPI_Finalize();
	return failed;
}
