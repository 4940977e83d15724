/* np: 2 3 4
 * The C fast path of small collectives on MPI_COMM_WORLD (fastcoll.c)
 * against the Go path: every collective it runs (Barrier, Bcast, Gather,
 * Scatter, Allgather, Alltoall, Reduce, Allreduce), each many times so
 * that the C path runs the calls after the first, at 0, 1, 8 and 64 bytes
 * and at one size above its one round, every root, MPI_IN_PLACE, integer
 * ops that wrap, float sums whose bits depend on the order (also past the
 * one round, against the Go path on a duplicate communicator), ops and types
 * C leaves to Go (MAX of double, MAXLOC); results checked against values
 * computed here; a Bcast, a Gather and an Allreduce whose counts differ
 * between the processes after the C path has learnt the right call (the
 * processes that receive data of another call get the error, every
 * process with a second argument "check2", for coll_base_check=2, and of
 * the Allreduce; the communicator goes on). With an argument, "fast" or
 * "slow", it also checks whether the C path ran collectives
 * (lamgo_fcoll_calls, not in mpi.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

extern unsigned long long lamgo_fcoll_calls(void);

static int failed;
#define CHECK(cond, ...) do { if (!(cond)) { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

enum { reps = 4, maxn = 4096 };

/* Each call twice in a row, the second with other values: the C path
 * learns a call in Go and runs the next one with its arguments (the
 * table holds only so many). */
#define TWICE(call) do { for (int k_ = 0; k_ < 2; k_++) { int r = 2 * r0 + k_; call; } } while (0)

static int rank, size;

/* A value every process can compute: process p's element i in round r. */
static int val(int p, int i, int r) { return (p + 1) * 1000003 + i * 7919 + r * 31; }

static void bcast(int count, int root, int r)
{
	int buf[maxn];
	for (int i = 0; i < count; i++)
		buf[i] = rank == root ? val(root, i, r) : -1;
	CHECK(MPI_Bcast(buf, count, MPI_INT, root, MPI_COMM_WORLD) == MPI_SUCCESS, "bcast %d root %d", count, root);
	for (int i = 0; i < count; i++)
		CHECK(buf[i] == val(root, i, r), "bcast %d root %d: [%d] = %d", count, root, i, buf[i]);
}

static void gather(int count, int root, int r, int inplace)
{
	int send[maxn], recv[maxn * 4];
	for (int i = 0; i < count; i++)
		send[i] = val(rank, i, r);
	for (int i = 0; i < count * size; i++)
		recv[i] = -1;
	if (inplace && rank == root)
		memcpy(recv + root * count, send, count * sizeof(int));
	const void *s = inplace && rank == root ? MPI_IN_PLACE : send;
	CHECK(MPI_Gather(s, count, MPI_INT, recv, count, MPI_INT, root, MPI_COMM_WORLD) == MPI_SUCCESS, "gather");
	if (rank == root)
		for (int p = 0; p < size; p++)
			for (int i = 0; i < count; i++)
				CHECK(recv[p * count + i] == val(p, i, r), "gather %d root %d in place %d: [%d][%d] = %d", count, root, inplace, p, i, recv[p * count + i]);
}

static void scatter(int count, int root, int r, int inplace)
{
	int send[maxn * 4], recv[maxn];
	for (int p = 0; p < size; p++)
		for (int i = 0; i < count; i++)
			send[p * count + i] = val(p, i, r);
	for (int i = 0; i < count; i++)
		recv[i] = -1;
	void *rb = inplace && rank == root ? MPI_IN_PLACE : recv;
	CHECK(MPI_Scatter(send, count, MPI_INT, rb, count, MPI_INT, root, MPI_COMM_WORLD) == MPI_SUCCESS, "scatter");
	if (!(inplace && rank == root))
		for (int i = 0; i < count; i++)
			CHECK(recv[i] == val(rank, i, r), "scatter %d root %d: [%d] = %d", count, root, i, recv[i]);
}

static void allgather(int count, int r, int inplace)
{
	int send[maxn], recv[maxn * 4];
	for (int i = 0; i < count; i++)
		send[i] = val(rank, i, r);
	for (int i = 0; i < count * size; i++)
		recv[i] = -1;
	if (inplace)
		memcpy(recv + rank * count, send, count * sizeof(int));
	CHECK(MPI_Allgather(inplace ? MPI_IN_PLACE : send, count, MPI_INT, recv, count, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS, "allgather");
	for (int p = 0; p < size; p++)
		for (int i = 0; i < count; i++)
			CHECK(recv[p * count + i] == val(p, i, r), "allgather %d in place %d: [%d][%d] = %d", count, inplace, p, i, recv[p * count + i]);
}

static void alltoall(int count, int r, int inplace)
{
	int send[maxn * 4], recv[maxn * 4];
	/* Block q of process p: val(p*size+q, i, r). */
	for (int q = 0; q < size; q++)
		for (int i = 0; i < count; i++)
			send[q * count + i] = val(rank * size + q, i, r);
	if (inplace)
		memcpy(recv, send, count * size * sizeof(int));
	else
		for (int i = 0; i < count * size; i++)
			recv[i] = -1;
	CHECK(MPI_Alltoall(inplace ? MPI_IN_PLACE : send, count, MPI_INT, recv, count, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS, "alltoall");
	for (int p = 0; p < size; p++)
		for (int i = 0; i < count; i++)
			CHECK(recv[p * count + i] == val(p * size + rank, i, r), "alltoall %d in place %d: [%d][%d] = %d", count, inplace, p, i, recv[p * count + i]);
}

/* Integer ops, which wrap: the sum and product of large values. */
static void reduce_int(int count, int root, int r, int all, int inplace, MPI_Op op)
{
	int send[maxn], recv[maxn], want[maxn];
	for (int i = 0; i < count; i++) {
		send[i] = (int)((unsigned)val(rank, i, r) * 65537u);
		unsigned acc = (unsigned)val(0, i, r) * 65537u;
		for (int p = 1; p < size; p++) {
			unsigned x = (unsigned)val(p, i, r) * 65537u;
			if (op == MPI_SUM) acc += x;
			else if (op == MPI_PROD) acc *= x;
			else if (op == MPI_BXOR) acc ^= x;
			else if (op == MPI_MIN) acc = (int)x < (int)acc ? x : acc;
			else if (op == MPI_LXOR) acc = (acc != 0) != (x != 0);
		}
		want[i] = (int)acc;
		recv[i] = inplace && (all || rank == root) ? send[i] : -1;
	}
	const void *s = inplace && (all || rank == root) ? MPI_IN_PLACE : send;
	int rc = all ? MPI_Allreduce(s, recv, count, MPI_INT, op, MPI_COMM_WORLD) : MPI_Reduce(s, recv, count, MPI_INT, op, root, MPI_COMM_WORLD);
	CHECK(rc == MPI_SUCCESS, "reduce");
	if (all || rank == root)
		for (int i = 0; i < count; i++)
			CHECK(recv[i] == want[i], "%s %d op %d root %d in place %d: [%d] = %d, want %d", all ? "allreduce" : "reduce", count, op, root, inplace, i, recv[i], want[i]);
}

/* A float sum whose bits depend on the grouping: x0 + (x1 + (… + xn-1)),
 * the order every module keeps for small sums on up to 4 processes
 * (coll_base_crossover). */
static void reduce_float(int count, int all, MPI_Datatype t, int r)
{
	double send[maxn], recv[maxn], want[maxn];
	float fs[maxn], fr[maxn], fw[maxn];
	for (int i = 0; i < count; i++) {
		double v[4] = {0};
		for (int p = 0; p < size; p++)
			v[p] = p == 0 ? 1e16 + i + r : p == 1 ? -1e16 : 1.0 + p * 0.1 + i;
		double w = v[size - 1];
		float fw1 = (float)v[size - 1];
		for (int p = size - 2; p >= 0; p--) {
			w = v[p] + w;
			fw1 = (float)v[p] + fw1;
		}
		send[i] = v[rank], want[i] = w, recv[i] = 0;
		fs[i] = (float)v[rank], fw[i] = fw1, fr[i] = 0;
	}
	int rc;
	if (t == MPI_DOUBLE)
		rc = all ? MPI_Allreduce(send, recv, count, t, MPI_SUM, MPI_COMM_WORLD) : MPI_Reduce(send, recv, count, t, MPI_SUM, 0, MPI_COMM_WORLD);
	else
		rc = all ? MPI_Allreduce(fs, fr, count, t, MPI_SUM, MPI_COMM_WORLD) : MPI_Reduce(fs, fr, count, t, MPI_SUM, 0, MPI_COMM_WORLD);
	CHECK(rc == MPI_SUCCESS, "float reduce");
	if (all || rank == 0)
		for (int i = 0; i < count; i++) {
			if (t == MPI_DOUBLE)
				CHECK(memcmp(&recv[i], &want[i], sizeof(double)) == 0, "double sum %d [%d] = %.17g, want %.17g", count, i, recv[i], want[i]);
			else
				CHECK(memcmp(&fr[i], &fw[i], sizeof(float)) == 0, "float sum %d [%d] = %.9g, want %.9g", count, i, fr[i], fw[i]);
		}
}

/* Sums and products of floats past the one round (grouped in rank order
 * or by recursive halving, in one round or several of the area's
 * chunk, or left to lam_basic above shmem_large_size) on MPI_COMM_WORLD,
 * where the C path runs them once learnt, against the same call on a
 * duplicate of it, which the Go path runs: the same bits. fast: whether
 * the C path must have run the second call on MPI_COMM_WORLD. */
static MPI_Comm dup;
static float fa[32768], fb[32768], fc[32768];
static void reduce_ref(int count, int all, MPI_Datatype t, MPI_Op op, int fast)
{
	int es = t == MPI_DOUBLE ? 8 : 4;
	for (int k = 0; k < 2; k++) {
		/* Element i: +big on one process, -big on another (which two
		 * varies with i), small values elsewhere: a sum's bits depend
		 * on which meet first. */
		double *da = (double *)fa;
		for (int i = 0; i < count; i++) {
			int a = (i + k) % size, b = (a + 1 + i / size % (size - 1)) % size;
			double v = rank == a ? 1e17 : rank == b ? -1e17 : 1.5 + 0.25 * rank + i % 3;
			if (op == MPI_PROD)
				v = rank == a ? 1e30 : rank == b ? 1e-30 : 1.0 + 1e-7 * (rank + 1) * (i % 7 + 1);
			if (es == 8)
				da[i] = v;
			else
				fa[i] = (float)(v == 1e17 ? 1e8 : v == -1e17 ? -1e8 : v);
		}
		memset(fb, 0, sizeof fb);
		memset(fc, 0, sizeof fc);
		unsigned long long before = lamgo_fcoll_calls();
		int rc = all ? MPI_Allreduce(fa, fb, count, t, op, MPI_COMM_WORLD) : MPI_Reduce(fa, fb, count, t, op, size - 1, MPI_COMM_WORLD);
		int inC = lamgo_fcoll_calls() > before;
		int rc2 = all ? MPI_Allreduce(fa, fc, count, t, op, dup) : MPI_Reduce(fa, fc, count, t, op, size - 1, dup);
		CHECK(rc == MPI_SUCCESS && rc2 == MPI_SUCCESS, "float reduce %d", count);
		if (all || rank == size - 1)
			CHECK(memcmp(fb, fc, (size_t)count * es) == 0, "%s of %d %s (%s): World's result differs from the duplicate's",
			      all ? "allreduce" : "reduce", count, es == 8 ? "doubles" : "floats", op == MPI_SUM ? "sum" : "product");
		if (k == 1 && fast)
			CHECK(inC, "%s of %d %s did not run in C", all ? "allreduce" : "reduce", count, es == 8 ? "doubles" : "floats");
	}
}

/* Ops and types C leaves to Go: MAX of double, MAXLOC of MPI_2INT. */
static void reduce_go(int r)
{
	double d = rank + r * 0.5, dmax = 0;
	CHECK(MPI_Allreduce(&d, &dmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD) == MPI_SUCCESS, "max double");
	CHECK(dmax == size - 1 + r * 0.5, "max double = %g", dmax);
	struct { int v, i; } in = {rank % 2, rank}, out;
	CHECK(MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD) == MPI_SUCCESS, "maxloc");
	CHECK(out.v == (size > 1) && out.i == 1, "maxloc = %d at %d", out.v, out.i);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	/* Ints: 0, 1, 8 and 64 bytes, and 4 KiB (above the one round of
	 * every collective but Bcast, Gather, Allgather), and 6 KiB (with
	 * buffers of 4 KiB a span: a Bcast's and a Gather's round that the C
	 * path must leave to Go). */
	int counts[] = {0, 1, 2, 16, 1024, 1536};
	for (int r0 = 0; r0 < reps; r0++) {
		int r = r0;
		CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "barrier");
		for (unsigned c = 0; c < sizeof counts / sizeof counts[0]; c++) {
			int n = counts[c];
			for (int root = 0; root < size; root++) {
				TWICE(bcast(n, root, r));
				TWICE(gather(n, root, r, 0));
				TWICE(gather(n, root, r, 1));
				TWICE(scatter(n, root, r, 0));
				TWICE(scatter(n, root, r, 1));
				TWICE(reduce_int(n, root, r, 0, 0, MPI_SUM));
				TWICE(reduce_int(n, root, r, 0, 1, MPI_PROD));
			}
			TWICE(allgather(n, r, 0));
			TWICE(allgather(n, r, 1));
			TWICE(alltoall(n, r, 0));
			TWICE(alltoall(n, r, 1));
			TWICE(reduce_int(n, 0, r, 1, 0, MPI_SUM));
			TWICE(reduce_int(n, 0, r, 1, 1, MPI_BXOR));
			TWICE(reduce_int(n, 0, r, 1, 0, MPI_MIN));
			TWICE(reduce_int(n, 0, r, 1, 0, MPI_LXOR));
			if (n <= 16) { /* larger ones reduce-scatter (another grouping) */
				TWICE(reduce_float(n, 1, MPI_DOUBLE, r));
				TWICE(reduce_float(n, 0, MPI_DOUBLE, r));
				TWICE(reduce_float(n, 1, MPI_FLOAT, r));
			}
		}
		reduce_go(r);
	}
	int fast = argc > 1 && strcmp(argv[1], "fast") == 0;
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	/* 300 floats: one round, halving; 1024: one round sliced; 6000
	 * floats: two rounds; 10000 doubles: lam_basic (above coll_base_shmem_copy_size). */
	int fcounts[] = {300, 1024, 6000};
	for (unsigned c = 0; c < sizeof fcounts / sizeof fcounts[0]; c++)
		for (int all = 0; all < 2; all++) {
			reduce_ref(fcounts[c], all, MPI_FLOAT, MPI_SUM, fast);
			reduce_ref(fcounts[c], all, MPI_FLOAT, MPI_PROD, fast);
			reduce_ref(fcounts[c] / 2, all, MPI_DOUBLE, MPI_SUM, fast);
		}
	reduce_ref(10000, 1, MPI_DOUBLE, MPI_SUM, 0);
	MPI_Comm_free(&dup);
	/* A Bcast whose counts differ, once the right call was learnt: at
	 * coll_base_check=1 the processes that receive the root's data of
	 * another call get an error (the last, whose call is new, in Go; then
	 * every one but the root, in C: the root's call is the new one), at 2
	 * every process; then the communicator goes on. */
	int check2 = argc > 2 && strcmp(argv[2], "check2") == 0;
	int buf[8] = {0};
	for (int r = 0; r < 3; r++)
		CHECK(MPI_Bcast(buf, 4, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS, "bcast before");
	int rc = MPI_Bcast(buf, rank == size - 1 ? 5 : 4, MPI_INT, 0, MPI_COMM_WORLD);
	if (check2 || rank == size - 1)
		CHECK(rc == MPI_ERR_COUNT, "a Bcast whose counts differ gave %d on rank %d", rc, rank);
	else
		CHECK(rc == MPI_SUCCESS, "a Bcast whose count was the root's failed on rank %d: %d", rank, rc);
	for (int r = 0; r < 3; r++)
		bcast(4, 0, r);
	unsigned long long before = lamgo_fcoll_calls();
	buf[0] = rank == 0 ? 77 : -1;
	rc = MPI_Bcast(buf, rank == 0 ? 5 : 4, MPI_INT, 0, MPI_COMM_WORLD);
	if (check2 || rank != 0)
		CHECK(rc == MPI_ERR_COUNT, "a Bcast whose root's count differs gave %d on rank %d", rc, rank);
	else
		CHECK(rc == MPI_SUCCESS, "the root of a Bcast whose root's count differs failed: %d", rc);
	if (rank != 0 && !check2)
		CHECK(buf[0] == -1, "a Bcast of another call wrote the buffer on rank %d: %d", rank, buf[0]);
	if (argc > 1 && strcmp(argv[1], "fast") == 0 && rank != 0)
		CHECK(lamgo_fcoll_calls() > before, "the Bcast of a learnt call did not run in C on rank %d", rank);
	for (int r = 0; r < 3; r++) {
		bcast(4, 0, r);
		reduce_int(2, 0, r, 1, 0, MPI_SUM);
	}
	/* A Gather whose counts differ: its root (in C, its call learnt) gets
	 * the error, and the blocks of the calls that agree. */
	int gs[3] = {rank, rank, rank}, gr[8 * 2];
	for (int r = 0; r < 3; r++)
		CHECK(MPI_Gather(gs, 2, MPI_INT, gr, 2, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS, "gather before");
	for (int i = 0; i < 2 * size; i++)
		gr[i] = -1;
	before = lamgo_fcoll_calls();
	rc = MPI_Gather(gs, rank == size - 1 ? 3 : 2, MPI_INT, gr, 2, MPI_INT, 0, MPI_COMM_WORLD);
	if (check2 || rank == 0)
		CHECK(rc == MPI_ERR_COUNT, "a Gather whose counts differ gave %d on rank %d", rc, rank);
	else
		CHECK(rc == MPI_SUCCESS, "a sender of a Gather whose counts differ failed on rank %d: %d", rank, rc);
	if (rank == 0 && !check2) {
		for (int p = 0; p < size - 1; p++)
			CHECK(gr[2 * p] == p && gr[2 * p + 1] == p, "gather with one count wrong: block %d is %d %d", p, gr[2 * p], gr[2 * p + 1]);
		CHECK(gr[2 * (size - 1)] == -1, "gather with one count wrong: the block of another call was written");
		if (argc > 1 && strcmp(argv[1], "fast") == 0)
			CHECK(lamgo_fcoll_calls() > before, "the Gather of a learnt call did not run in C at its root");
	}
	for (int r = 0; r < 3; r++) {
		gather(2, 0, r, 0);
		reduce_int(2, 0, r, 1, 0, MPI_SUM);
	}
	/* And an Allreduce past the one round (its check a round of its own). */
	static int ia[1024], ib[1024];
	for (int r = 0; r < 3; r++)
		CHECK(MPI_Allreduce(ia, ib, 1024, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS, "allreduce before");
	rc = MPI_Allreduce(ia, ib, rank == 0 ? 1000 : 1024, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	CHECK(rc != MPI_SUCCESS, "an Allreduce whose counts differ succeeded on rank %d", rank);
	for (int r = 0; r < 3; r++)
		reduce_int(1024, 0, r, 1, 0, MPI_SUM);
	CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "barrier after");
	unsigned long long calls = lamgo_fcoll_calls();
	if (argc > 1 && strcmp(argv[1], "fast") == 0)
		CHECK(calls > 0, "the C path ran no collective");
	if (argc > 1 && strcmp(argv[1], "slow") == 0)
		CHECK(calls == 0, "the C path ran %llu collectives", calls);
	if (!failed)
		printf("ok coll_fast rank %d (%llu in C)\n", rank, calls);
	MPI_Finalize();
	return failed;
}
