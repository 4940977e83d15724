/* np: 2 4
 * Requests from many ranks at once: Waitany, Waitsome, Testany,
 * Testsome, MPI_REQUEST_NULL in the arrays, cancel, Request_get_status;
 * probes with wildcards and matched receives. */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (!(cond)) { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

int main(int argc, char **argv)
{
	int rank, size, i, k, n, idx, flag, done;
	MPI_Status st;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	if (rank == 0) {
		/* One receive per other rank (and a null), completed by Waitany. */
		int *in = calloc(size, sizeof(int)), *seen = calloc(size, sizeof(int)), *ix = calloc(size, sizeof(int));
		MPI_Request *rs = malloc(size * sizeof(MPI_Request));
		MPI_Status *sts = malloc(size * sizeof(MPI_Status));
		rs[0] = MPI_REQUEST_NULL;
		for (i = 1; i < size; i++)
			MPI_Irecv(&in[i], 1, MPI_INT, i, 1, MPI_COMM_WORLD, &rs[i]);
		for (k = 1; k < size; k++) {
			CHECK(MPI_Waitany(size, rs, &idx, &st) == MPI_SUCCESS && idx > 0 && idx < size, "Waitany %d", idx);
			CHECK(rs[idx] == MPI_REQUEST_NULL && st.MPI_SOURCE == idx && in[idx] == idx * 10, "Waitany result %d", idx);
			seen[idx]++;
		}
		CHECK(MPI_Waitany(size, rs, &idx, &st) == MPI_SUCCESS && idx == MPI_UNDEFINED, "Waitany when all are null");

		/* Waitsome. */
		for (i = 1; i < size; i++)
			MPI_Irecv(&in[i], 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &rs[i]);
		for (done = 0; done < size - 1;) {
			CHECK(MPI_Waitsome(size, rs, &n, ix, sts) == MPI_SUCCESS && n >= 1, "Waitsome %d", n);
			if (n < 1)
				break;
			for (k = 0; k < n; k++)
				CHECK(rs[ix[k]] == MPI_REQUEST_NULL && sts[k].MPI_TAG == 2, "Waitsome result %d", ix[k]);
			done += n;
		}
		CHECK(MPI_Waitsome(size, rs, &n, ix, sts) == MPI_SUCCESS && n == MPI_UNDEFINED, "Waitsome when all are null");

		/* Testany and Testsome poll. */
		for (i = 1; i < size; i++)
			MPI_Irecv(&in[i], 1, MPI_INT, i, 3, MPI_COMM_WORLD, &rs[i]);
		for (done = 0; done < size - 1;) {
			MPI_Testany(size, rs, &idx, &flag, &st);
			if (flag && idx != MPI_UNDEFINED) {
				CHECK(st.MPI_SOURCE == idx && rs[idx] == MPI_REQUEST_NULL, "Testany result %d", idx);
				done++;
			}
		}
		MPI_Testany(size, rs, &idx, &flag, &st);
		CHECK(flag == 1 && idx == MPI_UNDEFINED, "Testany when all are null: %d %d", flag, idx);
		for (i = 1; i < size; i++)
			MPI_Irecv(&in[i], 1, MPI_INT, i, 4, MPI_COMM_WORLD, &rs[i]);
		for (done = 0; done < size - 1;) {
			CHECK(MPI_Testsome(size, rs, &n, ix, MPI_STATUSES_IGNORE) == MPI_SUCCESS && n >= 0, "Testsome %d", n);
			done += n > 0 ? n : 0;
		}
		CHECK(MPI_Testsome(size, rs, &n, ix, sts) == MPI_SUCCESS && n == MPI_UNDEFINED, "Testsome when all are null");

		/* Probes: any source, then the matched receive of each. */
		for (k = 1; k < size; k++) {
			MPI_Message m;
			int v = -1;
			CHECK(MPI_Probe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st) == MPI_SUCCESS && st.MPI_SOURCE > 0, "Probe");
			MPI_Get_count(&st, MPI_INT, &n);
			CHECK(n == 1, "probed count %d", n);
			CHECK(MPI_Mprobe(st.MPI_SOURCE, 5, MPI_COMM_WORLD, &m, &st) == MPI_SUCCESS, "Mprobe");
			CHECK(MPI_Mrecv(&v, 1, MPI_INT, &m, &st) == MPI_SUCCESS && v == st.MPI_SOURCE * 10 && m == MPI_MESSAGE_NULL, "Mrecv %d", v);
		}
		for (k = 1; k < size; k++) {
			MPI_Message m;
			MPI_Request r;
			int v = -1;
			do {
				MPI_Improbe(MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &flag, &m, &st);
			} while (!flag);
			CHECK(MPI_Imrecv(&v, 1, MPI_INT, &m, &r) == MPI_SUCCESS, "Imrecv");
			MPI_Wait(&r, &st);
			CHECK(v == st.MPI_SOURCE * 10, "Imrecv value %d", v);
		}
		/* Any tag from each rank: tag 7 comes before the ring's tag 8
		   (messages from one sender do not overtake each other). */
		for (k = 1; k < size; k++) {
			do {
				MPI_Iprobe(k, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
			} while (!flag);
			CHECK(st.MPI_TAG == 7 && st.MPI_SOURCE == k, "Iprobe tag %d from %d", st.MPI_TAG, st.MPI_SOURCE);
			MPI_Recv(&n, 1, MPI_INT, k, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		}
		free(in);
		free(seen);
		free(ix);
		free(rs);
		free(sts);
	} else {
		int v = rank * 10;
		MPI_Request r;
		for (i = 1; i <= 6; i++)
			MPI_Send(&v, 1, MPI_INT, 0, i, MPI_COMM_WORLD);
		MPI_Isend(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &r);
		do {
			MPI_Request_get_status(r, &flag, &st);
		} while (!flag);
		CHECK(r != MPI_REQUEST_NULL, "Request_get_status keeps the request");
		MPI_Wait(&r, &st);
		CHECK(r == MPI_REQUEST_NULL, "Wait frees it");
	}

	/* Cancel a receive nobody sends to. */
	{
		MPI_Request r;
		int v;
		MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &r);
		MPI_Cancel(&r);
		MPI_Wait(&r, &st);
		MPI_Test_cancelled(&st, &flag);
		CHECK(flag == 1 && r == MPI_REQUEST_NULL, "cancelled receive: %d", flag);
	}

	/* A loop of Isend and Wait: a handful of handles, reused. */
	{
		int v = rank, w;
		MPI_Request rs[2], first = MPI_REQUEST_NULL;
		int next = (rank + 1) % size, prev = (rank + size - 1) % size;
		for (i = 0; i < 200; i++) {
			MPI_Irecv(&w, 1, MPI_INT, prev, 8, MPI_COMM_WORLD, &rs[0]);
			MPI_Isend(&v, 1, MPI_INT, next, 8, MPI_COMM_WORLD, &rs[1]);
			if (i == 0)
				first = rs[0];
			MPI_Waitall(2, rs, MPI_STATUSES_IGNORE);
			CHECK(w == prev, "loop %d: %d", i, w);
		}
		(void)first;
	}

	MPI_Finalize();
	if (!failed)
		printf("ok p2p_requests rank %d\n", rank);
	return failed;
}
