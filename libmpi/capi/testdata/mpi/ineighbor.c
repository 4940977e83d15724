/* np: 3 4
 * The nonblocking neighbour collectives (MPI_Ineighbor_allgather,
 * _allgatherv, _alltoall, _alltoallv, _alltoallw) on a periodic ring,
 * with contiguous and derived datatypes, completed by MPI_Wait, MPI_Test
 * and MPI_Waitall, several under way at once; and the error of one on a
 * communicator without a topology. Three ranks or more: on a periodic
 * ring of two, both neighbours are one process, and Open MPI matches the
 * blocks of different sizes the other way round. */
#include <stdio.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (!(cond)) { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

int main(int argc, char **argv)
{
	int rank, size, d[1], p[1] = {1}, left, right, flag = 0, rc, class, all;
	MPI_Comm ring;
	MPI_Request r, rs[3];
	MPI_Datatype vec;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	d[0] = size;
	MPI_Cart_create(MPI_COMM_WORLD, 1, d, p, 0, &ring);
	left = (rank + size - 1) % size;
	right = (rank + 1) % size;
	/* Two ints, one apart: not contiguous. */
	MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
	MPI_Type_commit(&vec);

	{
		/* allgather, completed by a Test loop. */
		int in[2] = {-1, -1};
		CHECK(MPI_Ineighbor_allgather(&rank, 1, MPI_INT, in, 1, MPI_INT, ring, &r) == MPI_SUCCESS, "start allgather");
		while (!flag)
			MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
		CHECK(r == MPI_REQUEST_NULL, "request not freed");
		CHECK(in[0] == left && in[1] == right, "allgather %d %d", in[0], in[1]);
	}
	{
		/* allgatherv (blocks in reverse order, a gap between), alltoall and
		   alltoallv, all under way at once. */
		int two[2] = {rank, -rank}, gv[6] = {-1, -1, -1, -1, -1, -1}, counts[2] = {2, 2}, displs[2] = {3, 0};
		int out[2] = {rank * 10, rank * 10 + 1}, in[2] = {-1, -1};
		int vout[3] = {rank * 100, rank * 100 + 1, rank * 100 + 2}, vin[3] = {-1, -1, -1};
		int sc[2] = {1, 2}, sd[2] = {0, 1}, rcs[2] = {2, 1}, rd[2] = {1, 0};
		MPI_Ineighbor_allgatherv(two, 2, MPI_INT, gv, counts, displs, MPI_INT, ring, &rs[0]);
		MPI_Ineighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, ring, &rs[1]);
		MPI_Ineighbor_alltoallv(vout, sc, sd, MPI_INT, vin, rcs, rd, MPI_INT, ring, &rs[2]);
		CHECK(MPI_Waitall(3, rs, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "waitall");
		CHECK(gv[3] == left && gv[4] == -left && gv[0] == right && gv[1] == -right && gv[2] == -1 && gv[5] == -1,
		      "allgatherv %d %d %d %d %d %d", gv[0], gv[1], gv[2], gv[3], gv[4], gv[5]);
		CHECK(in[0] == left * 10 + 1 && in[1] == right * 10, "alltoall %d %d", in[0], in[1]);
		CHECK(vin[1] == left * 100 + 1 && vin[2] == left * 100 + 2 && vin[0] == right * 100, "alltoallv %d %d %d", vin[0], vin[1], vin[2]);
	}
	{
		/* alltoall of a derived type: block i is two ints one apart, at
		   i times the type's extent (3 ints). */
		int out[6], in[4] = {-1, -1, -1, -1}, i;
		for (i = 0; i < 6; i++)
			out[i] = rank * 10 + i;
		MPI_Ineighbor_alltoall(out, 1, vec, in, 2, MPI_INT, ring, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		CHECK(in[0] == left * 10 + 3 && in[1] == left * 10 + 5 && in[2] == right * 10 && in[3] == right * 10 + 2,
		      "derived alltoall %d %d %d %d", in[0], in[1], in[2], in[3]);
	}
	{
		/* alltoallw: one int back, a vector forward; received as ints. */
		int out[4] = {rank, rank + 1000, -2, rank + 2000}, in[3] = {-1, -1, -1};
		int sc[2] = {1, 1}, rcs[2] = {2, 1};
		MPI_Aint sd[2] = {0, sizeof(int)}, rd[2] = {0, 2 * sizeof(int)};
		MPI_Datatype st[2] = {MPI_INT, vec}, rt[2] = {MPI_INT, MPI_INT};
		MPI_Ineighbor_alltoallw(out, sc, sd, st, in, rcs, rd, rt, ring, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		CHECK(in[0] == left + 1000 && in[1] == left + 2000 && in[2] == right, "alltoallw %d %d %d", in[0], in[1], in[2]);
	}

	/* No topology: MPI_ERR_TOPOLOGY under MPI_ERRORS_RETURN. */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	{
		int in[2];
		rc = MPI_Ineighbor_allgather(&rank, 1, MPI_INT, in, 1, MPI_INT, MPI_COMM_WORLD, &r);
		MPI_Error_class(rc, &class);
#ifdef OPEN_MPI
		/* Open MPI says MPI_ERR_ARG here; LAM/Go MPI_ERR_TOPOLOGY, as for the blocking forms. */
		CHECK(class == MPI_ERR_ARG, "no topology: class %d", class);
#else
		CHECK(class == MPI_ERR_TOPOLOGY, "no topology: class %d", class);
#endif
	}

	MPI_Type_free(&vec);
	MPI_Comm_free(&ring);
	MPI_Allreduce(&failed, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (rank == 0 && !all)
		printf("ok ineighbor on %d ranks\n", size);
	MPI_Finalize();
	return failed;
}
