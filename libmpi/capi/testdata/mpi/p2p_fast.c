/* np: 2 3
 * The C fast path of MPI_Send and MPI_Recv (fast.c) against the Go path
 * on one link: order kept when messages of both paths interleave, a
 * receive posted before a blocking one, MPI_ANY_SOURCE and MPI_ANY_TAG
 * mixed in, a message that waits in the unexpected queue, truncation,
 * status fields, MPI_PROC_NULL, empty messages, a full ring, a long
 * ping-pong, and Sendrecv. With an argument, "fast" or "slow", it also checks whether
 * the fast path carried messages (lamgo_fast_calls, not in mpi.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

/* Messages the C fast path sent and received in this process. */
extern unsigned long long lamgo_fast_calls(void);

static int failed;
#define CHECK(cond, ...) do { if (!(cond)) { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

enum { flood = 300, pings = 5000 };

int main(int argc, char **argv)
{
	int rank, size, i, n, v, got[4];
	char big[100], small[16];
	MPI_Request rq;
	MPI_Status st;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

	if (rank == 0) {
		/* 1. Both paths on one link, one tag: small (fast), long (Go),
		 * Isend (Go), Ssend (Go), small again. */
		for (i = 0; i < 10; i++) {
			memset(big, 0, sizeof big);
			big[0] = (char)i;
			switch (i % 5) {
			case 0:
			case 4:
				MPI_Send(big, 1, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
				break;
			case 1:
				MPI_Send(big, sizeof big, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
				break;
			case 2:
				MPI_Isend(big, 2, MPI_CHAR, 1, 1, MPI_COMM_WORLD, &rq);
				MPI_Wait(&rq, MPI_STATUS_IGNORE);
				break;
			case 3:
				MPI_Ssend(big, 3, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
				break;
			}
		}
		/* 2. For an Irecv and then a Recv of the same envelope. */
		for (v = 1; v <= 2; v++)
			MPI_Send(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
		/* 3. For ANY_SOURCE and then rank 0. */
		for (v = 1; v <= 2; v++)
			MPI_Send(&v, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
		/* 4. Tags 7 and 8 for ANY_TAG; 10 before 9 for a receive of 9
		 * first (10 waits unexpected). */
		for (v = 7; v <= 8; v++)
			MPI_Send(&v, 1, MPI_INT, 1, v, MPI_COMM_WORLD);
		v = 10;
		MPI_Send(&v, 1, MPI_INT, 1, 10, MPI_COMM_WORLD);
		v = 9;
		MPI_Send(&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
		/* 5. Eight bytes for a receive of four. */
		MPI_Send(small, 8, MPI_BYTE, 1, 5, MPI_COMM_WORLD);
		/* 6. Two ints for status fields, and an empty message. */
		got[0] = 41, got[1] = 42;
		MPI_Send(got, 2, MPI_INT, 1, 6, MPI_COMM_WORLD);
		MPI_Send(NULL, 0, MPI_INT, 1, 6, MPI_COMM_WORLD);
		/* 8. A flood: the ring fills, the rest queues in Go. */
		for (v = 0; v < flood; v++)
			CHECK(MPI_Send(&v, 1, MPI_INT, 1, 8, MPI_COMM_WORLD) == MPI_SUCCESS, "flood send %d", v);
	} else if (rank == 1) {
		for (i = 0; i < 10; i++) {
			CHECK(MPI_Recv(big, sizeof big, MPI_CHAR, 0, 1, MPI_COMM_WORLD, &st) == MPI_SUCCESS, "mixed recv %d", i);
			CHECK(big[0] == i, "mixed order: message %d came as %d", big[0], i);
		}
		MPI_Irecv(&got[0], 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &rq);
		MPI_Recv(&got[1], 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &st);
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
		CHECK(got[0] == 1 && got[1] == 2, "Irecv then Recv: %d %d, want 1 2", got[0], got[1]);
		MPI_Recv(&got[0], 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &st);
		CHECK(st.MPI_SOURCE == 0, "ANY_SOURCE: source %d", st.MPI_SOURCE);
		MPI_Recv(&got[1], 1, MPI_INT, 0, 3, MPI_COMM_WORLD, &st);
		CHECK(got[0] == 1 && got[1] == 2, "ANY_SOURCE then 0: %d %d, want 1 2", got[0], got[1]);
		for (v = 7; v <= 8; v++) {
			MPI_Recv(&got[0], 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
			CHECK(got[0] == v && st.MPI_TAG == v, "ANY_TAG: %d tag %d, want %d", got[0], st.MPI_TAG, v);
		}
		MPI_Recv(&got[0], 1, MPI_INT, 0, 9, MPI_COMM_WORLD, &st);
		MPI_Recv(&got[1], 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
		CHECK(got[0] == 9 && got[1] == 10 && st.MPI_TAG == 10, "9 past 10: %d %d tag %d", got[0], got[1], st.MPI_TAG);
		n = MPI_Recv(small, 4, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &st);
		MPI_Error_class(n, &n);
		CHECK(n == MPI_ERR_TRUNCATE, "truncation: class %d", n);
		got[0] = got[1] = 0;
		CHECK(MPI_Recv(got, 4, MPI_INT, 0, 6, MPI_COMM_WORLD, &st) == MPI_SUCCESS, "recv 2 ints");
		MPI_Get_count(&st, MPI_INT, &n);
		CHECK(got[0] == 41 && got[1] == 42 && n == 2 && st.MPI_SOURCE == 0 && st.MPI_TAG == 6 && st.MPI_ERROR == MPI_SUCCESS,
		      "status: %d %d count %d source %d tag %d error %d", got[0], got[1], n, st.MPI_SOURCE, st.MPI_TAG, st.MPI_ERROR);
		CHECK(MPI_Recv(NULL, 0, MPI_INT, 0, 6, MPI_COMM_WORLD, &st) == MPI_SUCCESS, "empty recv");
		MPI_Get_count(&st, MPI_INT, &n);
		CHECK(n == 0 && st.MPI_TAG == 6, "empty: count %d tag %d", n, st.MPI_TAG);
		for (v = 0; v < flood; v++) {
			CHECK(MPI_Recv(&n, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, &st) == MPI_SUCCESS, "flood recv");
			if (n != v) {
				CHECK(n == v, "flood: message %d came as %d", n, v);
				break;
			}
		}
	}
	/* 10. Sendrecv between 0 and 1: its send on the fast path, its
	 * receive on either; then one whose receive truncates. */
	if (rank < 2) {
		int peer = 1 - rank, out[2], in[2];
		for (i = 0; i < 200; i++) {
			out[0] = rank * 1000 + i, out[1] = i;
			in[0] = in[1] = -1;
			CHECK(MPI_Sendrecv(out, 2, MPI_INT, peer, 12, in, 2, MPI_INT, peer, 12, MPI_COMM_WORLD, &st) == MPI_SUCCESS, "Sendrecv %d", i);
			MPI_Get_count(&st, MPI_INT, &n);
			if (in[0] != peer * 1000 + i || in[1] != i || n != 2 || st.MPI_SOURCE != peer || st.MPI_TAG != 12) {
				CHECK(0, "Sendrecv %d: got %d %d count %d source %d tag %d", i, in[0], in[1], n, st.MPI_SOURCE, st.MPI_TAG);
				break;
			}
		}
		n = MPI_Sendrecv(out, 2, MPI_INT, peer, 13, in, 1, MPI_INT, peer, 13, MPI_COMM_WORLD, &st);
		MPI_Error_class(n, &n);
		CHECK(n == MPI_ERR_TRUNCATE, "Sendrecv truncation: class %d", n);
	}

	/* 7. MPI_PROC_NULL. */
	CHECK(MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD) == MPI_SUCCESS, "send to PROC_NULL");
	st.MPI_SOURCE = st.MPI_TAG = 99;
	CHECK(MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st) == MPI_SUCCESS, "recv from PROC_NULL");
	MPI_Get_count(&st, MPI_INT, &n);
	CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && n == 0, "PROC_NULL status: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, n);

	/* 9. Ping-pong between neighbours, values checked: many times round
	 * the ring's slots. */
	if (size % 2 == 0 || rank < size - 1) {
		int peer = rank ^ 1;
		for (i = 0; i < pings; i++) {
			if (rank % 2 == 0) {
				MPI_Send(&i, 1, MPI_INT, peer, 11, MPI_COMM_WORLD);
				MPI_Recv(&v, 1, MPI_INT, peer, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			} else {
				MPI_Recv(&v, 1, MPI_INT, peer, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				MPI_Send(&v, 1, MPI_INT, peer, 11, MPI_COMM_WORLD);
			}
			if (v != i) {
				CHECK(v == i, "ping-pong: %d came back as %d", i, v);
				break;
			}
		}
	}
	MPI_Barrier(MPI_COMM_WORLD);

	if (argc > 1) {
		unsigned long long calls = lamgo_fast_calls();
		if (strcmp(argv[1], "fast") == 0 && rank < 2)
			CHECK(calls > pings, "the fast path carried %llu messages", calls);
		if (strcmp(argv[1], "slow") == 0)
			CHECK(calls == 0, "the fast path carried %llu messages", calls);
	}
	if (!failed)
		printf("ok p2p_fast rank %d\n", rank);
	MPI_Finalize();
	return failed;
}
