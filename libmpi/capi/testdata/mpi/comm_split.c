/* np: 2 4 5
 * Groups of MPI_COMM_WORLD and communicators made from them: Comm_group,
 * group set operations, translate and compare; Comm_split (odd/even and
 * MPI_UNDEFINED), Comm_dup, Comm_idup, Comm_create, Comm_create_group,
 * Comm_compare, Comm_free; messages on each new communicator. */
#include <stdio.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (!(cond)) { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

/* A ring of sends over c adding up the ranks: rank 0 ends with the sum
 * of all, rank r with 1+...+r. Returns whether this rank got its sum. */
static int ring(MPI_Comm c)
{
	int r, n, tok = 0;
	MPI_Comm_rank(c, &r);
	MPI_Comm_size(c, &n);
	if (n == 1)
		return 1;
	if (r == 0) {
		MPI_Send(&tok, 1, MPI_INT, 1, 5, c);
		MPI_Recv(&tok, 1, MPI_INT, n - 1, 5, c, MPI_STATUS_IGNORE);
		return tok == n * (n - 1) / 2;
	}
	MPI_Recv(&tok, 1, MPI_INT, r - 1, 5, c, MPI_STATUS_IGNORE);
	tok += r;
	MPI_Send(&tok, 1, MPI_INT, (r + 1) % n, 5, c);
	return tok == r * (r + 1) / 2;
}

int main(int argc, char **argv)
{
	int rank, size, r, n, res, i;
	MPI_Comm dup, half, none, made, grp;
	MPI_Group world, evens, odds, u, x, d, rg, firsttwo;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	/* Groups. */
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Group_size(world, &n);
	MPI_Group_rank(world, &r);
	CHECK(n == size && r == rank, "world group %d %d", n, r);
	{
		int ev[8], od[8], ne = 0, no = 0;
		for (i = 0; i < size; i++) {
			if (i % 2 == 0)
				ev[ne++] = i;
			else
				od[no++] = i;
		}
		MPI_Group_incl(world, ne, ev, &evens);
		MPI_Group_excl(world, ne, ev, &odds);
		MPI_Group_size(odds, &n);
		CHECK(n == no, "odds size %d want %d", n, no);
		(void)od;
	}
	{
		int ranges[1][3] = {{0, size - 1, 2}};
		MPI_Group_range_incl(world, 1, ranges, &rg);
		MPI_Group_compare(rg, evens, &res);
		CHECK(res == MPI_IDENT, "range incl vs incl: %d", res);
		MPI_Group_free(&rg);
		MPI_Group_range_excl(world, 1, ranges, &rg);
		MPI_Group_compare(rg, odds, &res);
		CHECK(res == MPI_IDENT, "range excl vs excl: %d", res);
		MPI_Group_free(&rg);
	}
	MPI_Group_union(odds, evens, &u);
	MPI_Group_compare(u, world, &res);
	CHECK(res == MPI_SIMILAR, "odds+evens vs world: %d", res);
	MPI_Group_intersection(world, evens, &x);
	MPI_Group_compare(x, evens, &res);
	CHECK(res == MPI_IDENT, "world*evens vs evens: %d", res);
	MPI_Group_difference(world, odds, &d);
	MPI_Group_compare(d, evens, &res);
	CHECK(res == MPI_IDENT, "world-odds vs evens: %d", res);
	MPI_Group_compare(odds, evens, &res);
	CHECK(res == MPI_UNEQUAL, "odds vs evens: %d", res);
	{
		int in[3] = {0, 1, MPI_PROC_NULL}, out[3];
		MPI_Group_translate_ranks(u, 3, in, world, out);
		/* u is the odds then the evens: u's rank 0 is world rank 1. */
		CHECK(out[0] == 1 && out[1] == (size > 3 ? 3 : 0) && out[2] == MPI_PROC_NULL, "translate %d %d %d", out[0], out[1], out[2]);
		MPI_Group_translate_ranks(world, 2, in, odds, out);
		CHECK(out[0] == MPI_UNDEFINED && out[1] == 0, "translate into odds %d %d", out[0], out[1]);
	}
	MPI_Group_rank(evens, &r);
	CHECK(rank % 2 == 0 ? r == rank / 2 : r == MPI_UNDEFINED, "rank in evens %d", r);

	/* Dup and compare. */
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Comm_compare(dup, MPI_COMM_WORLD, &res);
	CHECK(res == MPI_CONGRUENT, "dup vs world: %d", res);
	MPI_Comm_compare(dup, dup, &res);
	CHECK(res == MPI_IDENT, "dup vs dup: %d", res);
	CHECK(ring(dup), "ring on dup");

	/* Idup: usable once its request completes. */
	{
		MPI_Comm idc;
		MPI_Request req;
		MPI_Comm_idup(MPI_COMM_WORLD, &idc, &req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		CHECK(req == MPI_REQUEST_NULL, "idup's request freed by the wait");
		MPI_Comm_compare(idc, MPI_COMM_WORLD, &res);
		CHECK(res == MPI_CONGRUENT, "idup vs world: %d", res);
		CHECK(ring(idc), "ring on idup");
		MPI_Comm_free(&idc);
	}

	/* Split odd/even, ranks ordered by key (reversed). */
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half);
	MPI_Comm_size(half, &n);
	MPI_Comm_rank(half, &r);
	{
		int want = rank % 2 == 0 ? (size + 1) / 2 : size / 2;
		CHECK(n == want && r == n - 1 - rank / 2, "split: size %d rank %d", n, r);
	}
	MPI_Comm_compare(half, MPI_COMM_WORLD, &res);
	CHECK(res == MPI_UNEQUAL, "half vs world: %d", res);
	CHECK(ring(half), "ring on half");

	/* MPI_UNDEFINED on every rank but 0. */
	MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &none);
	CHECK(rank == 0 ? none != MPI_COMM_NULL : none == MPI_COMM_NULL, "undefined color");
	if (none != MPI_COMM_NULL) {
		MPI_Comm_size(none, &n);
		CHECK(n == 1, "lone split size %d", n);
		MPI_Comm_free(&none);
	}

	/* Create from the evens: the odds get MPI_COMM_NULL. */
	MPI_Comm_create(MPI_COMM_WORLD, evens, &made);
	if (rank % 2 == 0) {
		MPI_Comm_size(made, &n);
		MPI_Comm_rank(made, &r);
		CHECK(n == (size + 1) / 2 && r == rank / 2, "create: size %d rank %d", n, r);
		CHECK(ring(made), "ring on created");
		MPI_Comm_free(&made);
		CHECK(made == MPI_COMM_NULL, "freed");
	} else {
		CHECK(made == MPI_COMM_NULL, "odd rank outside the created comm");
	}

	/* Create_group: only the first two ranks call it. */
	{
		int two[2] = {0, 1};
		MPI_Group_incl(world, 2, two, &firsttwo);
		if (rank < 2) {
			MPI_Comm_create_group(MPI_COMM_WORLD, firsttwo, 7, &grp);
			MPI_Comm_size(grp, &n);
			MPI_Comm_rank(grp, &r);
			CHECK(n == 2 && r == rank, "create_group: size %d rank %d", n, r);
			CHECK(ring(grp), "ring on create_group");
			MPI_Comm_free(&grp);
		}
		MPI_Group_free(&firsttwo);
	}

	MPI_Comm_free(&half);
	MPI_Comm_free(&dup);
	CHECK(dup == MPI_COMM_NULL && half == MPI_COMM_NULL, "free sets MPI_COMM_NULL");
	MPI_Group_free(&u);
	MPI_Group_free(&x);
	MPI_Group_free(&d);
	MPI_Group_free(&evens);
	MPI_Group_free(&odds);
	MPI_Group_free(&world);
	CHECK(world == MPI_GROUP_NULL, "group free sets MPI_GROUP_NULL");
	MPI_Finalize();
	if (!failed)
		printf("ok comm_split rank %d\n", rank);
	return failed;
}
