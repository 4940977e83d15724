/* np: 2 3 4
 * An intercommunicator between the even and the odd ranks of
 * MPI_COMM_WORLD (Intercomm_create), point-to-point messages over it and
 * over its duplicate, its remote group, and Intercomm_merge. */
#include <stdio.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (!(cond)) { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

/* Each local rank i below the remote size swaps an int with remote rank
   i; the even side sends first. */
static void swap(MPI_Comm inter, int even, int tag)
{
	int r, rsize, out, in = -1;
	MPI_Status st;
	MPI_Comm_rank(inter, &r);
	MPI_Comm_remote_size(inter, &rsize);
	if (r >= rsize)
		return;
	out = 1000 * even + r;
	if (even) {
		MPI_Send(&out, 1, MPI_INT, r, tag, inter);
		MPI_Recv(&in, 1, MPI_INT, r, tag, inter, &st);
	} else {
		MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, tag, inter, &st);
		MPI_Send(&out, 1, MPI_INT, r, tag, inter);
	}
	CHECK(in == 1000 * !even + r && st.MPI_SOURCE == r && st.MPI_TAG == tag, "swap: got %d from %d tag %d", in, st.MPI_SOURCE, st.MPI_TAG);
}

int main(int argc, char **argv)
{
	int rank, size, even, flag, n, r, res, nevens;
	MPI_Comm local, inter, dup, merged;
	MPI_Group remote, wg, rg2;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	even = rank % 2 == 0;
	nevens = (size + 1) / 2;

	MPI_Comm_split(MPI_COMM_WORLD, !even, rank, &local);
	MPI_Comm_test_inter(local, &flag);
	CHECK(flag == 0, "an intracommunicator: %d", flag);
	/* Leaders: local rank 0 (world 0 for the evens, world 1 for the odds). */
	CHECK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, even ? 1 : 0, 99, &inter) == MPI_SUCCESS, "intercomm create");
	MPI_Comm_test_inter(inter, &flag);
	CHECK(flag == 1, "an intercommunicator: %d", flag);
	MPI_Comm_size(inter, &n);
	MPI_Comm_rank(inter, &r);
	CHECK(n == (even ? nevens : size - nevens) && r == rank / 2, "local size %d rank %d", n, r);
	MPI_Comm_remote_size(inter, &n);
	CHECK(n == (even ? size - nevens : nevens), "remote size %d", n);

	/* The remote group is the other half of the world. */
	MPI_Comm_remote_group(inter, &remote);
	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	{
		int ranges[1][3] = {{even ? 1 : 0, size - 1, 2}};
		MPI_Group_range_incl(wg, 1, ranges, &rg2);
	}
	MPI_Group_compare(remote, rg2, &res);
	CHECK(res == MPI_IDENT, "remote group: %d", res);

	swap(inter, even, 3);
	MPI_Comm_dup(inter, &dup);
	MPI_Comm_test_inter(dup, &flag);
	MPI_Comm_compare(inter, dup, &res);
	CHECK(flag == 1 && res == MPI_CONGRUENT, "dup of an intercommunicator: inter %d compare %d", flag, res);
	swap(dup, even, 4);

	/* Merge: the evens (high = 0) first. */
	MPI_Intercomm_merge(inter, !even, &merged);
	MPI_Comm_size(merged, &n);
	MPI_Comm_rank(merged, &r);
	CHECK(n == size && r == (even ? rank / 2 : nevens + rank / 2), "merged size %d rank %d", n, r);
	MPI_Comm_test_inter(merged, &flag);
	CHECK(flag == 0, "merged is an intracommunicator");
	{
		/* A ring over the merged communicator. */
		int tok = 0;
		if (r == 0) {
			MPI_Send(&tok, 1, MPI_INT, 1, 8, merged);
			MPI_Recv(&tok, 1, MPI_INT, n - 1, 8, merged, MPI_STATUS_IGNORE);
			CHECK(tok == n - 1, "ring over merged: %d", tok);
		} else {
			MPI_Recv(&tok, 1, MPI_INT, r - 1, 8, merged, MPI_STATUS_IGNORE);
			tok++;
			MPI_Send(&tok, 1, MPI_INT, (r + 1) % n, 8, merged);
		}
	}

	MPI_Comm_free(&merged);
	MPI_Comm_free(&dup);
	MPI_Comm_free(&inter);
	MPI_Comm_free(&local);
	CHECK(inter == MPI_COMM_NULL, "freed");
	MPI_Group_free(&remote);
	MPI_Group_free(&rg2);
	MPI_Group_free(&wg);
	MPI_Finalize();
	if (!failed)
		printf("ok intercomm rank %d\n", rank);
	return failed;
}
