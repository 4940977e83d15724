/* np: 1 4 6
 * Cartesian and graph topologies: Dims_create, Cart_create/get/rank/
 * coords, Cart_shift at the edges of a non-periodic dimension and across
 * a periodic one, Cart_sub, Cart_map, a grid smaller than the world,
 * Graph_create and its queries, messages along the graph's edges. */
#include <stdio.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (!(cond)) { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

static void dims(void)
{
	int d2[2] = {0, 0}, d3[3] = {0, 0, 0}, f[3] = {0, 3, 0}, p[2] = {0, 0};
	MPI_Dims_create(6, 2, d2);
	CHECK(d2[0] == 3 && d2[1] == 2, "dims 6/2: %d %d", d2[0], d2[1]);
	MPI_Dims_create(7, 2, p);
	CHECK(p[0] == 7 && p[1] == 1, "dims 7/2: %d %d", p[0], p[1]);
	MPI_Dims_create(12, 3, d3);
	CHECK(d3[0] == 3 && d3[1] == 2 && d3[2] == 2, "dims 12/3: %d %d %d", d3[0], d3[1], d3[2]);
	MPI_Dims_create(6, 3, f);
	CHECK(f[0] == 2 && f[1] == 3 && f[2] == 1, "dims 6 with 3 fixed: %d %d %d", f[0], f[1], f[2]);
}

static void cart(int rank, int size)
{
	int d[2] = {0, 0}, periods[2] = {1, 0}, gd[2], gp[2], gc[2], c[2], n, r, i, src, dst, st;
	MPI_Comm grid, row, col;

	MPI_Dims_create(size, 2, d);
	MPI_Cart_create(MPI_COMM_WORLD, 2, d, periods, 0, &grid);
	MPI_Topo_test(grid, &st);
	CHECK(st == MPI_CART, "topo test %d", st);
	MPI_Cartdim_get(grid, &n);
	MPI_Cart_get(grid, 2, gd, gp, gc);
	MPI_Comm_rank(grid, &r);
	CHECK(n == 2 && gd[0] == d[0] && gd[1] == d[1] && gp[0] == 1 && gp[1] == 0, "cart get: %d [%d %d] [%d %d]", n, gd[0], gd[1], gp[0], gp[1]);
	CHECK(r == rank && gc[0] == r / d[1] && gc[1] == r % d[1], "my coords (%d,%d) rank %d", gc[0], gc[1], r);
	for (i = 0; i < size; i++) {
		int x[2], back;
		MPI_Cart_coords(grid, i, 2, x);
		MPI_Cart_rank(grid, x, &back);
		CHECK(x[0] == i / d[1] && x[1] == i % d[1] && back == i, "coords of %d: (%d,%d) back %d", i, x[0], x[1], back);
	}
	/* Out of range in the periodic dimension wraps around. */
	c[0] = gc[0] + d[0];
	c[1] = gc[1];
	MPI_Cart_rank(grid, c, &i);
	CHECK(i == r, "wrapped coords give %d", i);

	/* Periodic dimension 0: neighbours wrap around. */
	MPI_Cart_shift(grid, 0, 1, &src, &dst);
	CHECK(src == ((gc[0] - 1 + d[0]) % d[0]) * d[1] + gc[1] && dst == ((gc[0] + 1) % d[0]) * d[1] + gc[1], "shift 0 +1: %d %d", src, dst);
	MPI_Cart_shift(grid, 0, -1, &src, &dst);
	CHECK(dst == ((gc[0] - 1 + d[0]) % d[0]) * d[1] + gc[1], "shift 0 -1: %d %d", src, dst);
	/* Non-periodic dimension 1: MPI_PROC_NULL beyond the edges. */
	MPI_Cart_shift(grid, 1, 1, &src, &dst);
	CHECK(src == (gc[1] == 0 ? MPI_PROC_NULL : r - 1) && dst == (gc[1] == d[1] - 1 ? MPI_PROC_NULL : r + 1), "shift 1 +1: %d %d", src, dst);
	MPI_Cart_shift(grid, 1, 2, &src, &dst);
	CHECK(src == (gc[1] < 2 ? MPI_PROC_NULL : r - 2) && dst == (gc[1] + 2 >= d[1] ? MPI_PROC_NULL : r + 2), "shift 1 +2: %d %d", src, dst);

	/* Shift data along dimension 1, even columns sending first. */
	{
		int out = 100 + r, in = -1;
		MPI_Status s;
		MPI_Cart_shift(grid, 1, 1, &src, &dst);
		if (gc[1] % 2 == 0) {
			MPI_Send(&out, 1, MPI_INT, dst, 1, grid);
			MPI_Recv(&in, 1, MPI_INT, src, 1, grid, &s);
		} else {
			MPI_Recv(&in, 1, MPI_INT, src, 1, grid, &s);
			MPI_Send(&out, 1, MPI_INT, dst, 1, grid);
		}
		CHECK(src == MPI_PROC_NULL ? in == -1 && s.MPI_SOURCE == MPI_PROC_NULL : in == 100 + src, "shifted in %d from %d", in, src);
	}

	/* Rows (dimension 1 kept) and columns (dimension 0 kept). */
	{
		int keep_row[2] = {0, 1}, keep_col[2] = {1, 0}, rn, rr, cn, cr, cd;
		MPI_Cart_sub(grid, keep_row, &row);
		MPI_Cart_sub(grid, keep_col, &col);
		MPI_Comm_size(row, &rn);
		MPI_Comm_rank(row, &rr);
		MPI_Comm_size(col, &cn);
		MPI_Comm_rank(col, &cr);
		MPI_Cartdim_get(row, &cd);
		CHECK(rn == d[1] && rr == gc[1] && cn == d[0] && cr == gc[0] && cd == 1, "sub: row %d/%d col %d/%d dims %d", rr, rn, cr, cn, cd);
		MPI_Topo_test(row, &st);
		CHECK(st == MPI_CART, "a sub is a grid %d", st);
		MPI_Comm_free(&row);
		MPI_Comm_free(&col);
	}
	{
		int nr;
		MPI_Cart_map(MPI_COMM_WORLD, 2, d, periods, &nr);
		CHECK(nr >= 0 && nr < size, "cart map %d", nr);
	}
	MPI_Comm_free(&grid);

	/* A grid of one process: the others get MPI_COMM_NULL. */
	{
		int one[1] = {1}, p1[1] = {0};
		MPI_Comm small;
		MPI_Cart_create(MPI_COMM_WORLD, 1, one, p1, 0, &small);
		CHECK(rank == 0 ? small != MPI_COMM_NULL : small == MPI_COMM_NULL, "small grid");
		if (small != MPI_COMM_NULL)
			MPI_Comm_free(&small);
	}
}

/* A star: node 0 linked to every other node. */
static void graph(int rank, int size)
{
	int index[16], edges[32], i, ne = 0, nn, nedge, cnt, nb[16], st, gi[16], ge[32], r;
	MPI_Comm g;

	for (i = 1; i < size; i++)
		edges[ne++] = i;
	index[0] = ne;
	for (i = 1; i < size; i++) {
		edges[ne++] = 0;
		index[i] = ne;
	}
	MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g);
	MPI_Topo_test(g, &st);
	CHECK(st == MPI_GRAPH, "topo test %d", st);
	MPI_Graphdims_get(g, &nn, &nedge);
	CHECK(nn == size && nedge == ne, "graphdims %d %d", nn, nedge);
	MPI_Graph_get(g, size, ne, gi, ge);
	for (i = 0; i < size; i++)
		CHECK(gi[i] == index[i], "index %d: %d", i, gi[i]);
	for (i = 0; i < ne; i++)
		CHECK(ge[i] == edges[i], "edge %d: %d", i, ge[i]);
	MPI_Comm_rank(g, &r);
	MPI_Graph_neighbors_count(g, r, &cnt);
	MPI_Graph_neighbors(g, r, 16, nb);
	CHECK(cnt == (r == 0 ? size - 1 : 1), "neighbours count %d", cnt);
	CHECK(r == 0 ? cnt == 0 || (nb[0] == 1 && nb[cnt - 1] == size - 1) : nb[0] == 0, "neighbours %d", nb[0]);
	{
		int nr;
		MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &nr);
		CHECK(nr >= 0 && nr < size, "graph map %d", nr);
	}
	/* Messages along the edges: the hub asks, each leaf answers. */
	if (r == 0) {
		for (i = 0; i < cnt; i++) {
			int q = nb[i] * 3, a = -1;
			MPI_Send(&q, 1, MPI_INT, nb[i], 2, g);
			MPI_Recv(&a, 1, MPI_INT, nb[i], 2, g, MPI_STATUS_IGNORE);
			CHECK(a == nb[i] * 3 + 1, "answer from %d: %d", nb[i], a);
		}
	} else {
		int q = -1;
		MPI_Recv(&q, 1, MPI_INT, 0, 2, g, MPI_STATUS_IGNORE);
		q++;
		MPI_Send(&q, 1, MPI_INT, 0, 2, g);
	}
	/* A neighbour collective over the graph: each gets its neighbours'
	   ranks, in the order Graph_neighbors lists them. */
	{
		int got[16], k, ok = 1;
		for (k = 0; k < 16; k++)
			got[k] = -1;
		MPI_Neighbor_allgather(&r, 1, MPI_INT, got, 1, MPI_INT, g);
		for (k = 0; k < cnt; k++)
			ok = ok && got[k] == nb[k];
		CHECK(ok && got[cnt] == -1, "graph allgather");
	}
	MPI_Comm_free(&g);
	(void)rank;
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	dims();
	cart(rank, size);
	graph(rank, size);
	MPI_Finalize();
	if (!failed)
		printf("ok topo rank %d\n", rank);
	return failed;
}
