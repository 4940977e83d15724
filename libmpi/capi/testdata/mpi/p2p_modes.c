/* np: 2 4
 * Every send mode around a ring: standard, synchronous, ready, buffered
 * (blocking, nonblocking and persistent), Sendrecv and
 * Sendrecv_replace. */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (!(cond)) { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

int main(int argc, char **argv)
{
	int rank, size, next, prev, i, flag, n;
	int out[8], in[8];
	MPI_Request rs[4];
	MPI_Status st, sts[4];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	next = (rank + 1) % size;
	prev = (rank + size - 1) % size;
	for (i = 0; i < 8; i++)
		out[i] = rank * 100 + i;

	/* Synchronous: even ranks send first, odd ones receive first. */
	if (rank % 2 == 0) {
		CHECK(MPI_Ssend(out, 8, MPI_INT, next, 1, MPI_COMM_WORLD) == MPI_SUCCESS, "Ssend");
		MPI_Recv(in, 8, MPI_INT, prev, 1, MPI_COMM_WORLD, &st);
	} else {
		MPI_Recv(in, 8, MPI_INT, prev, 1, MPI_COMM_WORLD, &st);
		CHECK(MPI_Ssend(out, 8, MPI_INT, next, 1, MPI_COMM_WORLD) == MPI_SUCCESS, "Ssend");
	}
	CHECK(in[7] == prev * 100 + 7 && st.MPI_SOURCE == prev && st.MPI_TAG == 1, "Ssend ring: %d from %d", in[7], st.MPI_SOURCE);

	/* Issend completes only once matched. */
	MPI_Irecv(in, 8, MPI_INT, prev, 2, MPI_COMM_WORLD, &rs[0]);
	MPI_Issend(out, 8, MPI_INT, next, 2, MPI_COMM_WORLD, &rs[1]);
	CHECK(MPI_Waitall(2, rs, sts) == MPI_SUCCESS && in[3] == prev * 100 + 3, "Issend ring");

	/* Ready: the receiver posts, then tells the sender. */
	MPI_Irecv(in, 8, MPI_INT, prev, 3, MPI_COMM_WORLD, &rs[0]);
	MPI_Send(NULL, 0, MPI_INT, prev, 4, MPI_COMM_WORLD);
	MPI_Recv(NULL, 0, MPI_INT, next, 4, MPI_COMM_WORLD, &st);
	CHECK(MPI_Rsend(out, 8, MPI_INT, next, 3, MPI_COMM_WORLD) == MPI_SUCCESS, "Rsend");
	MPI_Wait(&rs[0], &st);
	CHECK(in[5] == prev * 100 + 5, "Rsend ring");
	MPI_Irecv(in, 8, MPI_INT, prev, 5, MPI_COMM_WORLD, &rs[0]);
	MPI_Sendrecv(NULL, 0, MPI_INT, prev, 6, NULL, 0, MPI_INT, next, 6, MPI_COMM_WORLD, &st);
	MPI_Irsend(out, 8, MPI_INT, next, 5, MPI_COMM_WORLD, &rs[1]);
	CHECK(MPI_Waitall(2, rs, MPI_STATUSES_IGNORE) == MPI_SUCCESS && in[2] == prev * 100 + 2, "Irsend ring");

	/* Buffered, with an attached buffer. */
	{
		int bsize = 4 * (8 * (int)sizeof(int) + MPI_BSEND_OVERHEAD), dsize;
		void *buf = malloc(bsize), *back;
		MPI_Buffer_attach(buf, bsize);
		CHECK(MPI_Bsend(out, 8, MPI_INT, next, 7, MPI_COMM_WORLD) == MPI_SUCCESS, "Bsend");
		CHECK(MPI_Ibsend(out, 8, MPI_INT, next, 8, MPI_COMM_WORLD, &rs[0]) == MPI_SUCCESS, "Ibsend");
		MPI_Wait(&rs[0], MPI_STATUS_IGNORE);
		MPI_Bsend_init(out, 8, MPI_INT, next, 9, MPI_COMM_WORLD, &rs[1]);
		MPI_Start(&rs[1]);
		MPI_Wait(&rs[1], MPI_STATUS_IGNORE);
		MPI_Recv(in, 8, MPI_INT, prev, 8, MPI_COMM_WORLD, &st);
		CHECK(in[1] == prev * 100 + 1, "Ibsend arrived");
		MPI_Recv(in, 8, MPI_INT, prev, 7, MPI_COMM_WORLD, &st);
		CHECK(in[1] == prev * 100 + 1, "Bsend arrived");
		MPI_Recv(in, 8, MPI_INT, prev, 9, MPI_COMM_WORLD, &st);
		CHECK(in[1] == prev * 100 + 1, "Bsend_init arrived");
		MPI_Request_free(&rs[1]);
		CHECK(MPI_Buffer_detach(&back, &dsize) == MPI_SUCCESS && back == buf && dsize == bsize, "Buffer_detach");
		free(buf);
	}

	/* Persistent sends and receives in every mode but ready, restarted. */
	MPI_Recv_init(in, 8, MPI_INT, prev, 10, MPI_COMM_WORLD, &rs[0]);
	MPI_Send_init(out, 8, MPI_INT, next, 10, MPI_COMM_WORLD, &rs[1]);
	MPI_Recv_init(in + 4, 4, MPI_INT, prev, 11, MPI_COMM_WORLD, &rs[2]);
	MPI_Ssend_init(out, 4, MPI_INT, next, 11, MPI_COMM_WORLD, &rs[3]);
	for (i = 0; i < 5; i++) {
		out[0] = rank * 100 + i;
		CHECK(MPI_Startall(2, rs) == MPI_SUCCESS, "Startall");
		CHECK(MPI_Waitall(2, rs, sts) == MPI_SUCCESS && in[0] == prev * 100 + i, "persistent round %d: %d", i, in[0]);
		CHECK(MPI_Startall(2, rs + 2) == MPI_SUCCESS, "Startall sync");
		do {
			MPI_Testall(2, rs + 2, &flag, sts);
		} while (!flag);
		CHECK(in[4] == prev * 100 + i && rs[2] != MPI_REQUEST_NULL, "persistent sync round %d", i);
	}
	for (i = 0; i < 4; i++)
		MPI_Request_free(&rs[i]);
	out[0] = rank * 100;

	/* Sendrecv and Sendrecv_replace shift the ring. */
	CHECK(MPI_Sendrecv(out, 8, MPI_INT, next, 12, in, 8, MPI_INT, prev, 12, MPI_COMM_WORLD, &st) == MPI_SUCCESS, "Sendrecv");
	MPI_Get_count(&st, MPI_INT, &n);
	CHECK(in[6] == prev * 100 + 6 && st.MPI_SOURCE == prev && n == 8, "Sendrecv status");
	for (i = 0; i < 8; i++)
		in[i] = rank;
	for (i = 0; i < size; i++)
		MPI_Sendrecv_replace(in, 8, MPI_INT, next, 13, MPI_ANY_SOURCE, 13, MPI_COMM_WORLD, &st);
	CHECK(in[0] == rank && in[7] == rank && st.MPI_SOURCE == prev, "Sendrecv_replace around the ring: %d", in[0]);
	MPI_Sendrecv(out, 1, MPI_INT, MPI_PROC_NULL, 0, in, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
	CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "Sendrecv with PROC_NULL");

	MPI_Finalize();
	if (!failed)
		printf("ok p2p_modes rank %d\n", rank);
	return failed;
}
