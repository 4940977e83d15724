/*
 * topo.c: process topologies: MPI_Dims_create, a periodic 2-D
 * MPI_Cart_create (coordinates, rank, shift across the wrap), a
 * non-periodic shift off the edge (MPI_PROC_NULL), MPI_Cart_sub,
 * MPI_Cartdim_get, MPI_Cart_get, MPI_Topo_test, and a ring as
 * MPI_Graph_create with MPI_Graphdims_get and MPI_Graph_neighbors.
 * Ranks: 4 or more (the suite runs it on 4); the grid is 2 x size/2 for
 * an even size.
 */
#include "ctest.h"

int main(int argc, char **argv)
{
    int size, i, status, r, nd;
    int dims[2] = {0, 0}, periods[2] = {1, 0}, coords[2], c2[2], p2[2];
    int src, dst;
    MPI_Comm cart, row, graph;

    ct_init(&argc, &argv, "topo", 4);
    size = ct_size;

    OK(MPI_Dims_create(size, 2, dims));
    CHECK(dims[0] * dims[1] == size && dims[0] >= dims[1], "Dims_create(%d): %d x %d", size, dims[0], dims[1]);
    {
        int d3[3] = {0, 3, 0};
        OK(MPI_Dims_create(12, 3, d3));
        CHECK(d3[1] == 3 && d3[0] * d3[2] == 4 && d3[0] >= d3[2], "Dims_create(12, {0,3,0}): %d %d %d", d3[0], d3[1], d3[2]);
    }
    SECTION("dims_create");

    OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    OK(MPI_Topo_test(cart, &status));
    CHECK(status == MPI_CART, "Topo_test: %d", status);
    OK(MPI_Topo_test(MPI_COMM_WORLD, &status));
    CHECK(status == MPI_UNDEFINED, "Topo_test on world: %d", status);
    OK(MPI_Cartdim_get(cart, &nd));
    CHECK(nd == 2, "Cartdim_get: %d", nd);
    OK(MPI_Comm_rank(cart, &r));
    OK(MPI_Cart_coords(cart, r, 2, coords));
    CHECK(coords[0] == r / dims[1] && coords[1] == r % dims[1], "coords of %d: %d %d (row-major)", r, coords[0], coords[1]);
    OK(MPI_Cart_get(cart, 2, c2, p2, coords));
    CHECK(c2[0] == dims[0] && c2[1] == dims[1] && p2[0] == 1 && p2[1] == 0, "Cart_get dims %d %d periods %d %d", c2[0], c2[1], p2[0], p2[1]);
    {
        int back;
        OK(MPI_Cart_rank(cart, coords, &back));
        CHECK(back == r, "Cart_rank(coords(%d)) = %d", r, back);
        c2[0] = coords[0] + dims[0]; /* periodic: wraps */
        c2[1] = coords[1];
        OK(MPI_Cart_rank(cart, c2, &back));
        CHECK(back == r, "Cart_rank past the periodic edge: %d", back);
    }
    /* Shift along the periodic dimension wraps. */
    OK(MPI_Cart_shift(cart, 0, 1, &src, &dst));
    CHECK(dst == ((coords[0] + 1) % dims[0]) * dims[1] + coords[1] && src == ((coords[0] + dims[0] - 1) % dims[0]) * dims[1] + coords[1],
          "shift dim 0: src %d dst %d", src, dst);
    {
        int v = r, got = -1;
        OK(MPI_Sendrecv(&v, 1, MPI_INT, dst, 0, &got, 1, MPI_INT, src, 0, cart, MPI_STATUS_IGNORE));
        CHECK(got == src, "shifted value %d, want %d", got, src);
    }
    /* The other is not periodic: the edges see MPI_PROC_NULL. */
    OK(MPI_Cart_shift(cart, 1, 1, &src, &dst));
    CHECK(dst == (coords[1] == dims[1] - 1 ? MPI_PROC_NULL : r + 1) && src == (coords[1] == 0 ? MPI_PROC_NULL : r - 1),
          "shift dim 1: src %d dst %d", src, dst);
    SECTION("cart");

    {
        int keep[2] = {0, 1}, s, rr;
        OK(MPI_Cart_sub(cart, keep, &row));
        OK(MPI_Comm_size(row, &s));
        OK(MPI_Comm_rank(row, &rr));
        CHECK(s == dims[1] && rr == coords[1], "Cart_sub row: size %d rank %d", s, rr);
        {
            int sum = 0, want = 0;
            OK(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, row));
            for (i = 0; i < dims[1]; i++)
                want += coords[0] * dims[1] + i;
            CHECK(sum == want, "sum over the row %d, want %d", sum, want);
        }
        OK(MPI_Comm_free(&row));
    }
    SECTION("cart_sub");

    /* A ring as a graph. */
    {
        int *index = malloc(sizeof(int) * size), *edges = malloc(sizeof(int) * 2 * size);
        int nnodes, nedges, nb[2], count;
        for (i = 0; i < size; i++) {
            index[i] = 2 * (i + 1);
            edges[2 * i] = (i + size - 1) % size;
            edges[2 * i + 1] = (i + 1) % size;
        }
        OK(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph));
        OK(MPI_Topo_test(graph, &status));
        CHECK(status == MPI_GRAPH, "Topo_test on the graph: %d", status);
        OK(MPI_Graphdims_get(graph, &nnodes, &nedges));
        CHECK(nnodes == size && nedges == 2 * size, "Graphdims_get: %d %d", nnodes, nedges);
        OK(MPI_Comm_rank(graph, &r));
        OK(MPI_Graph_neighbors_count(graph, r, &count));
        CHECK(count == 2, "neighbours count %d", count);
        OK(MPI_Graph_neighbors(graph, r, 2, nb));
        CHECK(nb[0] == (r + size - 1) % size && nb[1] == (r + 1) % size, "neighbours of %d: %d %d", r, nb[0], nb[1]);
        OK(MPI_Comm_free(&graph));
        free(index);
        free(edges);
    }
    SECTION("graph");

    OK(MPI_Comm_free(&cart));
    return ct_finish();
}
