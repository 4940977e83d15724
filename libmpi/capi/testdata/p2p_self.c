/* Point-to-point, requests, probes and buffered mode as a singleton:
   every message goes from rank 0 to itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (cond) printf("ok %s\n", #cond); else { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

static void *other_thread(void *arg)
{
	MPI_Is_thread_main((int *)arg);
	return NULL;
}

static int is_empty(const MPI_Status *st)
{
	int n = -1;
	MPI_Get_count(st, MPI_INT, &n);
	return st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && n == 0;
}

int main(int argc, char **argv)
{
	int provided = -1, flag = -1, idx = -1, n = -1, i, rc;
	int out[4] = {1, 2, 3, 4}, in[4] = {0}, in2[4] = {0};
	MPI_Request r = MPI_REQUEST_NULL, rs[4];
	MPI_Status st, sts[4];
	MPI_Message msg;
	char ver[MPI_MAX_LIBRARY_VERSION_STRING];

	CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) == MPI_SUCCESS, "Init_thread");
	CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE, "provided %d", provided);
	MPI_Query_thread(&flag);
	CHECK(flag == provided, "Query_thread %d, provided %d", flag, provided);
	MPI_Is_thread_main(&flag);
	CHECK(flag == 1, "Is_thread_main %d", flag);
	{
		pthread_t th;
		flag = -1;
		if (provided == MPI_THREAD_MULTIPLE && pthread_create(&th, NULL, other_thread, &flag) == 0) {
			pthread_join(th, NULL);
			CHECK(flag == 0, "Is_thread_main in another thread %d", flag);
		}
	}
	CHECK(MPI_Get_library_version(ver, &n) == MPI_SUCCESS && n >= (int)strlen(ver) && n > 0, "library version %s", ver);
	CHECK(MPI_Pcontrol(2) == MPI_SUCCESS && MPI_Pcontrol(1, "extra", 3) == MPI_SUCCESS, "Pcontrol");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

	/* MPI_REQUEST_NULL: empty statuses, MPI_UNDEFINED indices. */
	memset(&st, 0x5a, sizeof st);
	CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS && is_empty(&st) && r == MPI_REQUEST_NULL, "Wait on REQUEST_NULL");
	flag = 0;
	CHECK(MPI_Test(&r, &flag, &st) == MPI_SUCCESS && flag == 1 && is_empty(&st), "Test on REQUEST_NULL");
	rs[0] = rs[1] = MPI_REQUEST_NULL;
	CHECK(MPI_Waitany(2, rs, &idx, &st) == MPI_SUCCESS && idx == MPI_UNDEFINED && is_empty(&st), "Waitany of nulls: %d", idx);
	CHECK(MPI_Testany(2, rs, &idx, &flag, &st) == MPI_SUCCESS && idx == MPI_UNDEFINED && flag == 1, "Testany of nulls: %d %d", idx, flag);
	CHECK(MPI_Waitsome(2, rs, &n, &idx, sts) == MPI_SUCCESS && n == MPI_UNDEFINED, "Waitsome of nulls: %d", n);
	CHECK(MPI_Testsome(2, rs, &n, &idx, sts) == MPI_SUCCESS && n == MPI_UNDEFINED, "Testsome of nulls: %d", n);
	CHECK(MPI_Waitall(2, rs, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "Waitall of nulls");
	CHECK(MPI_Testall(2, rs, &flag, sts) == MPI_SUCCESS && flag == 1 && is_empty(&sts[0]), "Testall of nulls");

	/* Isend/Irecv to self; completed requests become MPI_REQUEST_NULL. */
	MPI_Irecv(in, 4, MPI_INT, 0, 7, MPI_COMM_WORLD, &rs[0]);
	MPI_Isend(out, 4, MPI_INT, 0, 7, MPI_COMM_WORLD, &rs[1]);
	CHECK(rs[0] != MPI_REQUEST_NULL && rs[1] != MPI_REQUEST_NULL && rs[0] != rs[1], "two distinct handles");
	CHECK(MPI_Waitall(2, rs, sts) == MPI_SUCCESS, "Waitall");
	MPI_Get_count(&sts[0], MPI_INT, &n);
	CHECK(rs[0] == MPI_REQUEST_NULL && rs[1] == MPI_REQUEST_NULL, "Waitall nulls the handles");
	CHECK(sts[0].MPI_SOURCE == 0 && sts[0].MPI_TAG == 7 && n == 4 && in[3] == 4, "recv status %d %d %d", sts[0].MPI_SOURCE, sts[0].MPI_TAG, n);
	MPI_Get_elements(&sts[0], MPI_SHORT, &n);
	CHECK(n == 8, "Get_elements as shorts %d", n);

	/* Waitany, Testsome over a send and a receive. */
	memset(in, 0, sizeof in);
	MPI_Irecv(in, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rs[0]);
	rs[1] = MPI_REQUEST_NULL;
	MPI_Isend(out, 2, MPI_INT, 0, 9, MPI_COMM_WORLD, &rs[2]);
	{
		int seen = 0, k, ix[3];
		while (seen < 2) {
			rc = MPI_Waitsome(3, rs, &n, ix, sts);
			if (rc != MPI_SUCCESS || n == MPI_UNDEFINED || n < 1)
				break;
			for (k = 0; k < n; k++)
				CHECK(rs[ix[k]] == MPI_REQUEST_NULL, "Waitsome nulls index %d", ix[k]);
			seen += n;
		}
		CHECK(seen == 2 && in[1] == 2, "Waitsome saw %d", seen);
	}
	MPI_Irecv(in, 4, MPI_INT, 0, 11, MPI_COMM_WORLD, &rs[0]);
	MPI_Isend(out, 1, MPI_INT, 0, 11, MPI_COMM_WORLD, &rs[1]);
	for (i = 0; i < 2; i++) {
		rc = MPI_Waitany(2, rs, &idx, &st);
		CHECK(rc == MPI_SUCCESS && idx >= 0 && idx < 2 && rs[idx] == MPI_REQUEST_NULL, "Waitany %d -> %d", i, idx);
	}
	CHECK(MPI_Waitany(2, rs, &idx, &st) == MPI_SUCCESS && idx == MPI_UNDEFINED, "Waitany done: %d", idx);

	/* (MPI_ERR_IN_STATUS from a truncated message: mpi/errhandlers.c,
	   between two ranks; Open MPI misses a truncation sent to oneself.) */

	/* Persistent requests keep their handles. */
	MPI_Recv_init(in, 4, MPI_INT, 0, 13, MPI_COMM_WORLD, &rs[0]);
	MPI_Send_init(out, 4, MPI_INT, 0, 13, MPI_COMM_WORLD, &rs[1]);
	for (i = 0; i < 3; i++) {
		memset(in, 0, sizeof in);
		out[0] = 100 + i;
		CHECK(MPI_Startall(2, rs) == MPI_SUCCESS, "Startall %d", i);
		CHECK(MPI_Waitall(2, rs, sts) == MPI_SUCCESS && in[0] == 100 + i, "persistent round %d: %d", i, in[0]);
		CHECK(rs[0] != MPI_REQUEST_NULL && rs[1] != MPI_REQUEST_NULL, "persistent handles stay");
	}
	CHECK(MPI_Wait(&rs[0], &st) == MPI_SUCCESS && is_empty(&st), "Wait on an inactive persistent request");
	CHECK(MPI_Start(&rs[0]) == MPI_SUCCESS, "Start");
	MPI_Ssend_init(out, 1, MPI_INT, 0, 13, MPI_COMM_WORLD, &rs[2]);
	MPI_Start(&rs[2]);
	MPI_Waitall(1, &rs[0], MPI_STATUSES_IGNORE);
	MPI_Wait(&rs[2], MPI_STATUS_IGNORE);
	CHECK(MPI_Request_free(&rs[0]) == MPI_SUCCESS && rs[0] == MPI_REQUEST_NULL, "Request_free");
	MPI_Request_free(&rs[1]);
	MPI_Request_free(&rs[2]);
	out[0] = 1;

	/* Request_get_status leaves the request; Cancel a receive. */
	MPI_Irecv(in, 4, MPI_INT, 0, 14, MPI_COMM_WORLD, &r);
	flag = -1;
	CHECK(MPI_Request_get_status(r, &flag, &st) == MPI_SUCCESS && flag == 0, "get_status of a pending receive: %d", flag);
	CHECK(MPI_Cancel(&r) == MPI_SUCCESS, "Cancel");
	CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS && r == MPI_REQUEST_NULL, "Wait for a cancelled receive");
	MPI_Test_cancelled(&st, &flag);
	CHECK(flag == 1, "Test_cancelled %d", flag);
	MPI_Isend(out, 1, MPI_INT, 0, 15, MPI_COMM_WORLD, &rs[0]);
	MPI_Irecv(in, 1, MPI_INT, 0, 15, MPI_COMM_WORLD, &r);
	do {
		MPI_Request_get_status(r, &flag, &st);
	} while (!flag);
	CHECK(r != MPI_REQUEST_NULL && st.MPI_TAG == 15, "get_status keeps the handle");
	MPI_Test_cancelled(&st, &flag);
	CHECK(flag == 0, "not cancelled");
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Wait(&rs[0], MPI_STATUS_IGNORE);

	/* Bsend, Ibsend and buffer detach. */
	{
		int size = 3 * (4 * (int)sizeof(int) + MPI_BSEND_OVERHEAD), dsize = 0;
		char *buf = malloc(size), *back = NULL;
		CHECK(MPI_Buffer_attach(buf, size) == MPI_SUCCESS, "Buffer_attach");
		CHECK(MPI_Bsend(out, 4, MPI_INT, 0, 16, MPI_COMM_WORLD) == MPI_SUCCESS, "Bsend to self");
		CHECK(MPI_Ibsend(out, 4, MPI_INT, 0, 17, MPI_COMM_WORLD, &r) == MPI_SUCCESS && r != MPI_REQUEST_NULL, "Ibsend");
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		CHECK(r == MPI_REQUEST_NULL, "Ibsend's request completes");
		CHECK(MPI_Ibsend(out, 1, MPI_INT, 0, 22, MPI_COMM_WORLD, &r) == MPI_SUCCESS && MPI_Request_free(&r) == MPI_SUCCESS, "Ibsend then Request_free");
		MPI_Recv(in, 1, MPI_INT, 0, 22, MPI_COMM_WORLD, &st);
		MPI_Recv(in, 4, MPI_INT, 0, 17, MPI_COMM_WORLD, &st);
		MPI_Recv(in2, 4, MPI_INT, 0, 16, MPI_COMM_WORLD, &st);
		CHECK(in[2] == 3 && in2[3] == 4, "buffered messages arrived");
		CHECK(MPI_Buffer_detach(&back, &dsize) == MPI_SUCCESS && back == buf && dsize == size, "Buffer_detach %p %d", (void *)back, dsize);
		free(buf);
	}

	/* Probes and matched receives. */
	MPI_Isend(out, 3, MPI_INT, 0, 18, MPI_COMM_WORLD, &r);
	CHECK(MPI_Probe(0, 18, MPI_COMM_WORLD, &st) == MPI_SUCCESS && st.MPI_TAG == 18, "Probe");
	MPI_Get_count(&st, MPI_INT, &n);
	CHECK(n == 3, "probed count %d", n);
	CHECK(MPI_Iprobe(0, 99, MPI_COMM_WORLD, &flag, &st) == MPI_SUCCESS && flag == 0, "Iprobe of nothing");
	CHECK(MPI_Mprobe(0, 18, MPI_COMM_WORLD, &msg, &st) == MPI_SUCCESS && msg != MPI_MESSAGE_NULL, "Mprobe");
	CHECK(MPI_Iprobe(0, 18, MPI_COMM_WORLD, &flag, &st) == MPI_SUCCESS && flag == 0, "a matched message is gone from the queue");
	CHECK(MPI_Mrecv(in, 4, MPI_INT, &msg, &st) == MPI_SUCCESS && msg == MPI_MESSAGE_NULL && in[2] == 3, "Mrecv");
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Send(out, 2, MPI_INT, 0, 19, MPI_COMM_WORLD); /* small: buffered eagerly */
	do {
		MPI_Improbe(0, 19, MPI_COMM_WORLD, &flag, &msg, &st);
	} while (!flag);
	CHECK(MPI_Imrecv(in, 4, MPI_INT, &msg, &r) == MPI_SUCCESS && msg == MPI_MESSAGE_NULL, "Imrecv");
	CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS && st.MPI_TAG == 19, "Imrecv done");
	CHECK(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st) == MPI_SUCCESS && msg == MPI_MESSAGE_NO_PROC, "Mprobe of PROC_NULL");
	CHECK(MPI_Mrecv(in, 4, MPI_INT, &msg, &st) == MPI_SUCCESS && st.MPI_SOURCE == MPI_PROC_NULL, "Mrecv of NO_PROC");

	/* Sendrecv and Sendrecv_replace. */
	memset(in, 0, sizeof in);
	CHECK(MPI_Sendrecv(out, 4, MPI_INT, 0, 20, in, 4, MPI_INT, 0, 20, MPI_COMM_WORLD, &st) == MPI_SUCCESS && in[3] == 4, "Sendrecv");
	memcpy(in, out, sizeof in);
	CHECK(MPI_Sendrecv_replace(in, 4, MPI_INT, 0, 21, 0, 21, MPI_COMM_WORLD, &st) == MPI_SUCCESS && in[1] == 2 && st.MPI_TAG == 21, "Sendrecv_replace");

	/* Bad handles. */
#ifdef LAMGO_MPI
	/* What a garbage handle does is the implementation's business: LAM/Go's
	   handles are table indexes, checked. */
	r = MPI_Request_f2c(12345);
	CHECK(MPI_Wait(&r, &st) == MPI_ERR_REQUEST, "Wait on a bad handle");
#endif
	CHECK(MPI_Isend(out, 1, MPI_INT, 5, 0, MPI_COMM_WORLD, &r) == MPI_ERR_RANK && r == MPI_REQUEST_NULL, "Isend to a bad rank");
	CHECK(MPI_Irecv(in, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r) == MPI_ERR_COUNT, "Irecv of a negative count");

	CHECK(MPI_Finalize() == MPI_SUCCESS, "Finalize");
	return failed;
}
