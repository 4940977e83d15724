/* np: 2 4 5
 * Distributed graphs (Dist_graph_create, Dist_graph_create_adjacent and
 * their queries, weighted and MPI_UNWEIGHTED) and the neighbour
 * collectives on them and on rings with and without wrap-around, with
 * contiguous and derived datatypes. */
#include <stdio.h>
#include <mpi.h>

static int failed;
/* The special weight arrays, read at run time: GCC's -Wstringop-overread
   takes the constants for arrays of no size. */
static int *volatile unweighted, *volatile weights_empty;

#define CHECK(cond, ...) do { if (!(cond)) { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

static void rings(int rank, int size)
{
	int d[1], p[1], i, left, right;
	MPI_Comm ring, line;

	d[0] = size;
	p[0] = 1;
	MPI_Cart_create(MPI_COMM_WORLD, 1, d, p, 0, &ring);
	left = (rank + size - 1) % size;
	right = (rank + 1) % size;
	{
		/* allgather: the blocks of the neighbour back, then forward. */
		int in[2] = {-1, -1};
		MPI_Neighbor_allgather(&rank, 1, MPI_INT, in, 1, MPI_INT, ring);
		CHECK(in[0] == left && in[1] == right, "ring allgather %d %d", in[0], in[1]);
	}
	{
		/* alltoall: block 0 goes back, block 1 forward. */
		int out[2] = {rank * 10, rank * 10 + 1}, in[2] = {-1, -1};
		MPI_Neighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, ring);
		CHECK(in[0] == left * 10 + 1 && in[1] == right * 10, "ring alltoall %d %d", in[0], in[1]);
	}
	MPI_Comm_free(&ring);

	/* Without wrap-around the ends have MPI_PROC_NULL neighbours, whose
	   blocks are left alone. */
	p[0] = 0;
	MPI_Cart_create(MPI_COMM_WORLD, 1, d, p, 0, &line);
	{
		double out[4] = {rank + 0.5, rank + 0.25, rank + 0.75, rank + 0.125}, in[4] = {-1, -1, -1, -1};
		MPI_Neighbor_alltoall(out, 2, MPI_DOUBLE, in, 2, MPI_DOUBLE, line);
		if (rank == 0)
			CHECK(in[0] == -1 && in[1] == -1, "left end untouched %g %g", in[0], in[1]);
		else
			CHECK(in[0] == rank - 0.25 && in[1] == rank - 0.875, "from the left %g %g", in[0], in[1]);
		if (rank == size - 1)
			CHECK(in[2] == -1 && in[3] == -1, "right end untouched %g %g", in[2], in[3]);
		else
			CHECK(in[2] == rank + 1.5 && in[3] == rank + 1.25, "from the right %g %g", in[2], in[3]);
	}
	MPI_Comm_free(&line);
	(void)i;
}

static void dist(int rank, int size)
{
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	int indeg, outdeg, weighted, src[4], sw[4], dst[4], dw[4];
	MPI_Comm adj, all, unw;

	/* Each process gives its own edges: from left, to right. */
	{
		int s[1] = {left}, w1[1] = {left + 1}, t[1] = {right}, w2[1] = {rank + 1};
		MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, s, w1, 1, t, w2, MPI_INFO_NULL, 0, &adj);
	}
	{
		int st;
		MPI_Topo_test(adj, &st);
		CHECK(st == MPI_DIST_GRAPH, "topo test %d", st);
	}
	MPI_Dist_graph_neighbors_count(adj, &indeg, &outdeg, &weighted);
	CHECK(indeg == 1 && outdeg == 1 && weighted, "adjacent counts %d %d %d", indeg, outdeg, weighted);
	MPI_Dist_graph_neighbors(adj, 4, src, sw, 4, dst, dw);
	CHECK(src[0] == left && sw[0] == left + 1 && dst[0] == right && dw[0] == rank + 1, "adjacent neighbours %d/%d %d/%d", src[0], sw[0], dst[0], dw[0]);
	{
		/* allgatherv: one block of rank+1 ints from the left neighbour. */
		int out[8], in[10], counts[1] = {left + 1}, displs[1] = {2}, i;
		for (i = 0; i < rank + 1; i++)
			out[i] = rank * 100 + i;
		for (i = 0; i < 10; i++)
			in[i] = -1;
		MPI_Neighbor_allgatherv(out, rank + 1, MPI_INT, in, counts, displs, MPI_INT, adj);
		CHECK(in[0] == -1 && in[1] == -1 && in[2] == left * 100 && in[2 + left] == left * 100 + left && in[3 + left] == -1, "allgatherv %d %d %d", in[1], in[2], in[2 + left]);
	}

	/* Rank 0 gives every edge i -> i+1 with weight i. */
	if (rank == 0) {
		int s[8], deg[8], t[8], w[8], i;
		for (i = 0; i < size; i++)
			s[i] = i, deg[i] = 1, t[i] = (i + 1) % size, w[i] = i;
		MPI_Dist_graph_create(MPI_COMM_WORLD, size, s, deg, t, w, MPI_INFO_NULL, 0, &all);
	} else {
		MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, weights_empty, MPI_INFO_NULL, 0, &all);
	}
	MPI_Dist_graph_neighbors_count(all, &indeg, &outdeg, &weighted);
	CHECK(indeg == 1 && outdeg == 1 && weighted, "counts %d %d %d", indeg, outdeg, weighted);
	MPI_Dist_graph_neighbors(all, 1, src, sw, 1, dst, dw);
	CHECK(src[0] == left && sw[0] == left && dst[0] == right && dw[0] == rank, "neighbours %d/%d %d/%d", src[0], sw[0], dst[0], dw[0]);
	{
		/* alltoallv: rank+1 ints to the right, left+1 from the left. */
		int out[8], in[8], sc[1] = {rank + 1}, sd[1] = {1}, rc[1] = {left + 1}, rd[1] = {0}, i, ok = 1;
		for (i = 0; i < rank + 1; i++)
			out[1 + i] = rank * 7 + i;
		MPI_Neighbor_alltoallv(out, sc, sd, MPI_INT, in, rc, rd, MPI_INT, all);
		for (i = 0; i < left + 1; i++)
			ok = ok && in[i] == left * 7 + i;
		CHECK(ok, "alltoallv");
	}
	{
		/* alltoallw: a double at byte 8 to the right, into byte 0. */
		double out[2] = {0, rank * 1.5}, in[1] = {-1};
		int sc[1] = {1}, rc[1] = {1};
		MPI_Aint sd[1] = {sizeof(double)}, rd[1] = {0};
		MPI_Datatype st[1] = {MPI_DOUBLE}, rt[1] = {MPI_DOUBLE};
		MPI_Neighbor_alltoallw(out, sc, sd, st, in, rc, rd, rt, all);
		CHECK(in[0] == left * 1.5, "alltoallw %g", in[0]);
	}

	/* Unweighted: both ways to every other process. */
	{
		int s[8], t[8], n = 0, i, got[8], ok = 1;
		for (i = 0; i < size; i++)
			if (i != rank)
				s[n] = i, t[n] = i, n++;
		MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, n, s, unweighted, n, t, unweighted, MPI_INFO_NULL, 0, &unw);
		MPI_Dist_graph_neighbors_count(unw, &indeg, &outdeg, &weighted);
		CHECK(indeg == n && outdeg == n && !weighted, "unweighted counts %d %d %d", indeg, outdeg, weighted);
		MPI_Neighbor_allgather(&rank, 1, MPI_INT, got, 1, MPI_INT, unw);
		for (i = 0; i < n; i++)
			ok = ok && got[i] == s[i];
		CHECK(ok, "allgather over all others");
	}
	MPI_Comm_free(&unw);
	MPI_Comm_free(&all);
	MPI_Comm_free(&adj);
}

/* Non-contiguous datatypes: every other int of a vector type. */
static void derived(int rank, int size)
{
	int d[1] = {size}, p[1] = {1}, i, left = (rank + size - 1) % size, right = (rank + 1) % size;
	MPI_Comm ring;
	MPI_Datatype every2;

	MPI_Cart_create(MPI_COMM_WORLD, 1, d, p, 0, &ring);
	MPI_Type_vector(2, 1, 2, MPI_INT, &every2);
	MPI_Type_commit(&every2);
	{
		int out[4] = {rank, -7, rank * 10, -7}, in[4] = {-1, -1, -1, -1};
		MPI_Neighbor_allgather(out, 1, every2, in, 2, MPI_INT, ring);
		CHECK(in[0] == left && in[1] == left * 10 && in[2] == right && in[3] == right * 10, "allgather vector to ints %d %d %d %d", in[0], in[1], in[2], in[3]);
	}
	{
		/* Each block lands in every other int, blocks an extent (3 ints) apart. */
		int out[4] = {rank, rank + 100, rank + 200, rank + 300}, in[8];
		for (i = 0; i < 8; i++)
			in[i] = -1;
		MPI_Neighbor_alltoall(out, 2, MPI_INT, in, 1, every2, ring);
		CHECK(in[0] == left + 200 && in[1] == -1 && in[2] == left + 300 && in[3] == right && in[5] == right + 100, "alltoall ints to vector %d %d %d %d %d", in[0], in[1], in[2], in[3], in[5]);
	}
	{
		int out[4] = {rank, -7, rank * 10, -7}, in[6], counts[2] = {1, 1}, displs[2] = {0, 1};
		for (i = 0; i < 6; i++)
			in[i] = -1;
		MPI_Neighbor_allgatherv(out, 1, every2, in, counts, displs, every2, ring);
		CHECK(in[0] == left && in[2] == left * 10 && in[3] == right && in[5] == right * 10, "allgatherv of vectors %d %d %d %d", in[0], in[2], in[3], in[5]);
	}
	MPI_Type_free(&every2);
	MPI_Comm_free(&ring);
}

int main(int argc, char **argv)
{
	int rank, size;
	unweighted = MPI_UNWEIGHTED;
	weights_empty = MPI_WEIGHTS_EMPTY;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	rings(rank, size);
	dist(rank, size);
	derived(rank, size);
	MPI_Finalize();
	if (!failed)
		printf("ok neighbor rank %d\n", rank);
	return failed;
}
