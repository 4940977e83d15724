/* np: 2 3
 * Derived datatypes through point-to-point: a column of a matrix (a
 * vector type) sent and received with every send mode, nonblocking and
 * persistent receives, Sendrecv, Sendrecv_replace and a matched receive;
 * Get_count and Get_elements of what arrived. */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (!(cond)) { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

#define N 4

static void fill(int m[N][N], int base)
{
	int i, j;
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++)
			m[i][j] = base + i * N + j;
}

/* column_is checks column c of m holds column 1 of a matrix filled from
   base, and the other columns are untouched (-1). */
static int column_is(int m[N][N], int c, int base)
{
	int i, j;
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++)
			if (m[i][j] != (j == c ? base + i * N + 1 : -1))
				return 0;
	return 1;
}

static void clear(int m[N][N])
{
	int i, j;
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++)
			m[i][j] = -1;
}

int main(int argc, char **argv)
{
	int rank, size, next, prev, n, k, flag;
	int out[N][N], in[N][N];
	MPI_Datatype col;
	MPI_Request rs[2];
	MPI_Status st;
	MPI_Message msg;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	next = (rank + 1) % size;
	prev = (rank + size - 1) % size;
	MPI_Type_vector(N, 1, N, MPI_INT, &col);
	MPI_Type_commit(&col);
	fill(out, rank * 100);

	/* Standard, synchronous, ready and buffered sends of column 1 into
	   column 2, 3, 0, 1 of the receiver. */
	for (k = 0; k < 4; k++) {
		clear(in);
		MPI_Irecv(&in[0][(k + 2) % N], 1, col, prev, k, MPI_COMM_WORLD, &rs[0]);
		MPI_Sendrecv(NULL, 0, MPI_INT, prev, 50 + k, NULL, 0, MPI_INT, next, 50 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		switch (k) {
		case 0:
			MPI_Send(&out[0][1], 1, col, next, k, MPI_COMM_WORLD);
			break;
		case 1:
			MPI_Ssend(&out[0][1], 1, col, next, k, MPI_COMM_WORLD);
			break;
		case 2:
			MPI_Rsend(&out[0][1], 1, col, next, k, MPI_COMM_WORLD);
			break;
		case 3: {
			int bsize = N * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
			void *b = malloc(bsize), *back;
			MPI_Buffer_attach(b, bsize);
			MPI_Bsend(&out[0][1], 1, col, next, k, MPI_COMM_WORLD);
			MPI_Buffer_detach(&back, &bsize);
			free(b);
			break;
		}
		}
		MPI_Wait(&rs[0], &st);
		MPI_Get_count(&st, col, &n);
		CHECK(n == 1, "mode %d: count %d", k, n);
		MPI_Get_elements(&st, col, &n);
		CHECK(n == N, "mode %d: elements %d", k, n);
		CHECK(column_is(in, (k + 2) % N, prev * 100), "mode %d: the column arrived", k);
	}

	/* Nonblocking sends of a column in each mode. */
	clear(in);
	MPI_Irecv(&in[0][0], 1, col, prev, 10, MPI_COMM_WORLD, &rs[0]);
	MPI_Issend(&out[0][1], 1, col, next, 10, MPI_COMM_WORLD, &rs[1]);
	MPI_Waitall(2, rs, MPI_STATUSES_IGNORE);
	CHECK(column_is(in, 0, prev * 100), "Issend of a column");
	clear(in);
	MPI_Irecv(&in[0][3], 1, col, prev, 11, MPI_COMM_WORLD, &rs[0]);
	MPI_Isend(&out[0][1], 1, col, next, 11, MPI_COMM_WORLD, &rs[1]);
	MPI_Waitall(2, rs, MPI_STATUSES_IGNORE);
	CHECK(column_is(in, 3, prev * 100), "Isend of a column");

	/* Persistent: the send packs what the buffer holds at each Start. */
	MPI_Recv_init(&in[0][2], 1, col, prev, 12, MPI_COMM_WORLD, &rs[0]);
	MPI_Send_init(&out[0][1], 1, col, next, 12, MPI_COMM_WORLD, &rs[1]);
	for (k = 0; k < 3; k++) {
		clear(in);
		fill(out, rank * 100 + k * 1000);
		MPI_Startall(2, rs);
		MPI_Waitall(2, rs, MPI_STATUSES_IGNORE);
		CHECK(column_is(in, 2, prev * 100 + k * 1000), "persistent round %d", k);
	}
	MPI_Request_free(&rs[0]);
	MPI_Request_free(&rs[1]);
	/* ... and in the synchronous and buffered modes. */
	{
		int bsize = N * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
		void *b = malloc(bsize), *back;
		MPI_Request ps[2];
		MPI_Buffer_attach(b, bsize);
		MPI_Ssend_init(&out[0][1], 1, col, next, 17, MPI_COMM_WORLD, &ps[0]);
		MPI_Bsend_init(&out[0][1], 1, col, next, 18, MPI_COMM_WORLD, &ps[1]);
		for (k = 0; k < 2; k++) {
			fill(out, rank * 100 + k * 1000);
			clear(in);
			MPI_Irecv(&in[0][3], 1, col, prev, 17 + k, MPI_COMM_WORLD, &rs[0]);
			MPI_Start(&ps[k]);
			MPI_Wait(&ps[k], MPI_STATUS_IGNORE);
			MPI_Wait(&rs[0], MPI_STATUS_IGNORE);
			CHECK(column_is(in, 3, prev * 100 + k * 1000), "persistent %s send of a column", k ? "buffered" : "synchronous");
		}
		MPI_Request_free(&ps[0]);
		MPI_Request_free(&ps[1]);
		MPI_Buffer_detach(&back, &bsize);
		free(b);
	}
	fill(out, rank * 100);

	/* Sendrecv: a column out, a contiguous row in; Sendrecv_replace of a
	   column. */
	{
		int row[N] = {0};
		MPI_Sendrecv(&out[0][1], 1, col, next, 13, row, N, MPI_INT, prev, 13, MPI_COMM_WORLD, &st);
		CHECK(row[0] == prev * 100 + 1 && row[N - 1] == prev * 100 + (N - 1) * N + 1, "Sendrecv column to row: %d %d", row[0], row[N - 1]);
		fill(in, rank * 100);
		MPI_Sendrecv_replace(&in[0][1], 1, col, next, 14, prev, 14, MPI_COMM_WORLD, &st);
		CHECK(in[2][1] == prev * 100 + 2 * N + 1 && in[2][0] == rank * 100 + 2 * N, "Sendrecv_replace of a column");
	}

	/* A matched receive into a column. */
	clear(in);
	MPI_Isend(&out[0][1], 1, col, next, 15, MPI_COMM_WORLD, &rs[1]);
	MPI_Mprobe(prev, 15, MPI_COMM_WORLD, &msg, &st);
	CHECK(MPI_Mrecv(&in[0][1], 1, col, &msg, &st) == MPI_SUCCESS, "Mrecv of a column");
	MPI_Wait(&rs[1], MPI_STATUS_IGNORE);
	CHECK(column_is(in, 1, prev * 100), "Mrecv's column");
	clear(in);
	MPI_Isend(&out[0][1], 1, col, next, 19, MPI_COMM_WORLD, &rs[1]);
	do {
		MPI_Improbe(prev, 19, MPI_COMM_WORLD, &flag, &msg, &st);
	} while (!flag);
	CHECK(MPI_Imrecv(&in[0][2], 1, col, &msg, &rs[0]) == MPI_SUCCESS, "Imrecv of a column");
	MPI_Waitall(2, rs, MPI_STATUSES_IGNORE);
	CHECK(column_is(in, 2, prev * 100), "Imrecv's column");

	/* Part of an element: 6 ints into two columns (a column resized to
	   one int, so the next starts one int on) is a column and 2 ints. */
	{
		MPI_Datatype col1;
		MPI_Type_create_resized(col, 0, sizeof(int), &col1);
		MPI_Type_commit(&col1);
		clear(in);
		MPI_Irecv(&in[0][0], 2, col1, prev, 16, MPI_COMM_WORLD, &rs[0]);
		MPI_Send(&out[0][0], 6, MPI_INT, next, 16, MPI_COMM_WORLD);
		MPI_Wait(&rs[0], &st);
		MPI_Get_count(&st, col1, &n);
		CHECK(n == MPI_UNDEFINED, "count of 1.5 columns: %d", n);
		MPI_Get_elements(&st, col1, &n);
		CHECK(n == 6, "elements of 1.5 columns: %d", n);
		CHECK(in[0][0] == prev * 100 && in[3][0] == prev * 100 + 3 && in[0][1] == prev * 100 + 4 && in[1][1] == prev * 100 + 5 && in[2][1] == -1,
		      "1.5 columns landed");
		MPI_Type_free(&col1);
	}

	flag = 0;
	MPI_Type_free(&col);
	MPI_Finalize();
	if (!failed)
		printf("ok p2p_dtypes rank %d\n", rank);
	return failed + flag;
}
