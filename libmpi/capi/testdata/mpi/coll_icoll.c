/* np: 1 2 3 4
 * The nonblocking collectives, two outstanding at a time and completed
 * in either order (MPI_Waitall, MPI_Wait, MPI_Test), against the results
 * of their blocking twins; in place where MPI allows it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (!(cond)) { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

static int rank, size;

static void pairs(void)
{
	MPI_Request rq[2];
	int i, j, flag;
	double s[4], d[4];
	int b[3], root = size - 1;
	for (i = 0; i < 4; i++)
		s[i] = rank + i;
	for (i = 0; i < 3; i++)
		b[i] = rank == root ? 70 + i : -1;
	/* Iallreduce beside Ibcast, waited for together. */
	MPI_Iallreduce(s, d, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq[0]);
	MPI_Ibcast(b, 3, MPI_INT, root, MPI_COMM_WORLD, &rq[1]);
	MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
	CHECK(rq[0] == MPI_REQUEST_NULL && rq[1] == MPI_REQUEST_NULL, "Waitall left requests");
	for (i = 0; i < 4; i++)
		CHECK(d[i] == size * (size - 1) / 2.0 + size * i, "Iallreduce [%d] = %g", i, d[i]);
	for (i = 0; i < 3; i++)
		CHECK(b[i] == 70 + i, "Ibcast [%d] = %d", i, b[i]);

	/* Igather and Iscatter, the second waited for first. */
	int *all = malloc(sizeof(int) * size), *sc = malloc(sizeof(int) * size), mine = -1, me = rank * 3;
	for (i = 0; i < size; i++) {
		all[i] = -1;
		sc[i] = i * 11;
	}
	MPI_Igather(&me, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD, &rq[0]);
	MPI_Iscatter(sc, 1, MPI_INT, &mine, 1, MPI_INT, 0, MPI_COMM_WORLD, &rq[1]);
	MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
	MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
	CHECK(mine == rank * 11, "Iscatter: %d", mine);
	if (rank == 0)
		for (i = 0; i < size; i++)
			CHECK(all[i] == i * 3, "Igather [%d] = %d", i, all[i]);

	/* Iallgather in place beside Ialltoall, completed by MPI_Test. */
	int *ag = malloc(sizeof(int) * size), *as = malloc(sizeof(int) * size), *ar = malloc(sizeof(int) * size);
	for (i = 0; i < size; i++) {
		ag[i] = i == rank ? rank + 100 : -1;
		as[i] = rank * 100 + i;
	}
	MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ag, 1, MPI_INT, MPI_COMM_WORLD, &rq[0]);
	MPI_Ialltoall(as, 1, MPI_INT, ar, 1, MPI_INT, MPI_COMM_WORLD, &rq[1]);
	for (j = 0; j < 2; j++)
		do
			MPI_Test(&rq[j], &flag, MPI_STATUS_IGNORE);
		while (!flag);
	for (i = 0; i < size; i++) {
		CHECK(ag[i] == i + 100, "Iallgather in place [%d] = %d", i, ag[i]);
		CHECK(ar[i] == i * 100 + rank, "Ialltoall [%d] = %d", i, ar[i]);
	}

	/* Igatherv and Iallgatherv with irregular counts. */
	int *cnt = malloc(sizeof(int) * size), *dsp = malloc(sizeof(int) * size), n = 0;
	for (i = 0; i < size; i++) {
		cnt[i] = i % 2 + 1;
		dsp[i] = n;
		n += cnt[i] + 1;
	}
	int *gv = malloc(sizeof(int) * (n + 1)), *agv = malloc(sizeof(int) * (n + 1)), mv[2] = {rank, -rank};
	for (i = 0; i <= n; i++)
		gv[i] = agv[i] = -7;
	MPI_Igatherv(mv, cnt[rank], MPI_INT, gv, cnt, dsp, MPI_INT, root, MPI_COMM_WORLD, &rq[0]);
	MPI_Iallgatherv(mv, cnt[rank], MPI_INT, agv, cnt, dsp, MPI_INT, MPI_COMM_WORLD, &rq[1]);
	MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
	for (i = 0; i < size; i++)
		for (j = 0; j < cnt[i]; j++) {
			int want = j ? -i : i;
			CHECK(agv[dsp[i] + j] == want, "Iallgatherv rank %d [%d] = %d", i, j, agv[dsp[i] + j]);
			if (rank == root)
				CHECK(gv[dsp[i] + j] == want, "Igatherv rank %d [%d] = %d", i, j, gv[dsp[i] + j]);
		}

	/* Iscatterv beside Ialltoallv. */
	int sv[2] = {-1, -1};
	for (i = 0; i <= n; i++)
		gv[i] = 500 + i;
	MPI_Iscatterv(gv, cnt, dsp, MPI_INT, sv, cnt[rank], MPI_INT, root, MPI_COMM_WORLD, &rq[0]);
	int *one = malloc(sizeof(int) * size), *od = malloc(sizeof(int) * size);
	for (i = 0; i < size; i++) {
		one[i] = 1;
		od[i] = i;
		as[i] = rank * 1000 + i;
		ar[i] = -1;
	}
	MPI_Ialltoallv(as, one, od, MPI_INT, ar, one, od, MPI_INT, MPI_COMM_WORLD, &rq[1]);
	MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
	for (j = 0; j < cnt[rank]; j++)
		CHECK(sv[j] == 500 + dsp[rank] + j, "Iscatterv [%d] = %d", j, sv[j]);
	for (i = 0; i < size; i++)
		CHECK(ar[i] == i * 1000 + rank, "Ialltoallv [%d] = %d", i, ar[i]);

	/* Ireduce in place at the root beside Iscan; Iexscan beside
	   Ireduce_scatter_block; Ireduce_scatter beside Ibarrier. */
	long r1 = rank + 1, r2 = rank == root ? rank + 1 : -1, sc1 = -1;
	if (rank == root)
		MPI_Ireduce(MPI_IN_PLACE, &r2, 1, MPI_LONG, MPI_PROD, root, MPI_COMM_WORLD, &rq[0]);
	else
		MPI_Ireduce(&r1, NULL, 1, MPI_LONG, MPI_PROD, root, MPI_COMM_WORLD, &rq[0]);
	MPI_Iscan(&r1, &sc1, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &rq[1]);
	MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
	long fact = 1;
	for (i = 1; i <= size; i++)
		fact *= i;
	if (rank == root)
		CHECK(r2 == fact, "Ireduce in place: %ld", r2);
	CHECK(sc1 == (long)(rank + 1) * (rank + 2) / 2, "Iscan: %ld", sc1);

	int ex = -1, blk[2] = {-1, -1}, *in = malloc(sizeof(int) * 2 * size);
	for (i = 0; i < 2 * size; i++)
		in[i] = i;
	MPI_Iexscan(&rank, &ex, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &rq[0]);
	MPI_Ireduce_scatter_block(in, blk, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[1]);
	MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
	if (rank > 0)
		CHECK(ex == rank - 1, "Iexscan: %d", ex);
	CHECK(blk[0] == 2 * rank * size && blk[1] == (2 * rank + 1) * size, "Ireduce_scatter_block: %d %d", blk[0], blk[1]);

	for (i = 0; i < size; i++)
		one[i] = 1;
	int rs = -1;
	MPI_Ireduce_scatter(in, &rs, one, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]);
	MPI_Ibarrier(MPI_COMM_WORLD, &rq[1]);
	MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
	CHECK(rs == rank * size, "Ireduce_scatter: %d", rs);

	/* Ialltoallw: ints to everyone. */
	MPI_Datatype *ty = malloc(sizeof(MPI_Datatype) * size);
	int *bd = malloc(sizeof(int) * size);
	for (i = 0; i < size; i++) {
		ty[i] = MPI_INT;
		bd[i] = (int)sizeof(int) * i;
		as[i] = rank * 10 + i;
		ar[i] = -1;
	}
	MPI_Ialltoallw(as, one, bd, ty, ar, one, bd, ty, MPI_COMM_WORLD, &rq[0]);
	MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
	for (i = 0; i < size; i++)
		CHECK(ar[i] == i * 10 + rank, "Ialltoallw [%d] = %d", i, ar[i]);

	/* Over derived datatypes: Ibcast of a matrix column (a vector) beside
	   Iallreduce MAXLOC over MPI_DOUBLE_INT (a padded pair). */
	MPI_Datatype colt;
	int mat[3][4];
	struct { double v; int i; } dl = {rank % 2, rank}, dlo = {-1, -1};
	MPI_Type_vector(3, 1, 4, MPI_INT, &colt);
	MPI_Type_commit(&colt);
	for (i = 0; i < 3; i++)
		for (j = 0; j < 4; j++)
			mat[i][j] = rank == 0 ? i * 4 + j : -1;
	MPI_Ibcast(&mat[0][1], 1, colt, 0, MPI_COMM_WORLD, &rq[0]);
	MPI_Iallreduce(&dl, &dlo, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD, &rq[1]);
	MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
	for (i = 0; i < 3; i++)
		for (j = 0; j < 4; j++)
			CHECK(mat[i][j] == (rank == 0 || j == 1 ? i * 4 + j : -1), "Ibcast column: [%d][%d] = %d", i, j, mat[i][j]);
	CHECK(dlo.v == (size > 1) && dlo.i == (size > 1), "Iallreduce MAXLOC MPI_DOUBLE_INT: (%g, %d)", dlo.v, dlo.i);
	MPI_Type_free(&colt);

	free(all); free(sc); free(ag); free(as); free(ar); free(cnt); free(dsp); free(gv); free(agv);
	free(one); free(od); free(in); free(ty); free(bd);
	printf("ok nonblocking collectives two at a time\n");
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	pairs();
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0 && !failed)
		printf("ok coll_icoll\n");
	MPI_Finalize();
	return failed;
}
