/* np: 1 2 3 5
 * User ops (MPI_Op_create): a non-commutative op whose result shows the
 * order it was applied in (digits appended in rank order), through every
 * reduction; a commutative one over many doubles; the datatype and length
 * the library passes; MPI_Op_commutative, MPI_Op_free, and an op used
 * with MPI_Reduce_local; a non-commutative op over a struct datatype
 * (MPI_Type_create_struct, padded). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (!(cond)) { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

static int rank, size;

/* A number and its count of decimal digits; a∘b appends b's digits to
   a's: associative, not commutative. */
struct digits { int v, n; };

static int badtype;

static void append(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	struct digits *a = in, *b = inout;
	int i, k, p;
	if (*dt != MPI_2INT)
		badtype = 1;
	for (i = 0; i < *len; i++) {
		for (p = 1, k = 0; k < b[i].n; k++)
			p *= 10;
		b[i].v = a[i].v * p + b[i].v;
		b[i].n = a[i].n + b[i].n;
	}
}

static void sumsq(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	double *a = in, *b = inout;
	int i;
	(void)dt;
	for (i = 0; i < *len; i++)
		b[i] = a[i] + b[i];
}

/* The digits of ranks lo..hi-1 appended in order (rank r contributes
   (r % 9) + 1, element e adds nothing: the same for every element). */
static int want(int lo, int hi)
{
	int r, v = 0;
	for (r = lo; r < hi; r++)
		v = v * 10 + r % 9 + 1;
	return v;
}

#define E 3

static void noncommutative(void)
{
	MPI_Op op;
	int commute = -1, i, root, inplace;
	struct digits s[E], d[E];
	MPI_Op_create(append, 0, &op);
	MPI_Op_commutative(op, &commute);
	CHECK(commute == 0, "Op_commutative of a non-commutative op: %d", commute);
	for (i = 0; i < E; i++) {
		s[i].v = rank % 9 + 1;
		s[i].n = 1;
	}
	for (inplace = 0; inplace < 2; inplace++) {
		if (inplace) {
			memcpy(d, s, sizeof d);
			MPI_Allreduce(MPI_IN_PLACE, d, E, MPI_2INT, op, MPI_COMM_WORLD);
		} else
			MPI_Allreduce(s, d, E, MPI_2INT, op, MPI_COMM_WORLD);
		for (i = 0; i < E; i++)
			CHECK(d[i].v == want(0, size) && d[i].n == size, "Allreduce in place %d [%d]: %d (%d digits), want %d", inplace, i, d[i].v, d[i].n, want(0, size));
	}
	for (root = 0; root < size; root++) {
		memset(d, 0, sizeof d);
		MPI_Reduce(s, d, E, MPI_2INT, op, root, MPI_COMM_WORLD);
		if (rank == root)
			for (i = 0; i < E; i++)
				CHECK(d[i].v == want(0, size), "Reduce root %d [%d]: %d, want %d", root, i, d[i].v, want(0, size));
	}
	memset(d, 0, sizeof d);
	MPI_Scan(s, d, E, MPI_2INT, op, MPI_COMM_WORLD);
	CHECK(d[0].v == want(0, rank + 1) && d[E - 1].v == want(0, rank + 1), "Scan: %d, want %d", d[0].v, want(0, rank + 1));
	memset(d, 0, sizeof d);
	MPI_Exscan(s, d, E, MPI_2INT, op, MPI_COMM_WORLD);
	if (rank > 0)
		CHECK(d[0].v == want(0, rank), "Exscan: %d, want %d", d[0].v, want(0, rank));

	/* Reduce_scatter_block: one pair per rank. */
	struct digits *all = malloc(sizeof(struct digits) * size);
	for (i = 0; i < size; i++) {
		all[i].v = rank % 9 + 1;
		all[i].n = 1;
	}
	MPI_Reduce_scatter_block(all, d, 1, MPI_2INT, op, MPI_COMM_WORLD);
	CHECK(d[0].v == want(0, size), "Reduce_scatter_block: %d", d[0].v);
	int *counts = malloc(sizeof(int) * size);
	for (i = 0; i < size; i++)
		counts[i] = 1;
	MPI_Reduce_scatter(all, d, counts, MPI_2INT, op, MPI_COMM_WORLD);
	CHECK(d[0].v == want(0, size), "Reduce_scatter: %d", d[0].v);
	free(all);
	free(counts);

	/* Reduce_local: in is the left operand. */
	struct digits a = {12, 2}, b = {345, 3};
	MPI_Reduce_local(&a, &b, 1, MPI_2INT, op);
	CHECK(b.v == 12345 && b.n == 5, "Reduce_local: %d", b.v);

	CHECK(!badtype, "the op was called with a datatype other than MPI_2INT");
	MPI_Op_free(&op);
	CHECK(op == MPI_OP_NULL, "Op_free did not set MPI_OP_NULL");
	printf("ok non-commutative user op in rank order\n");
}

static void commutative(void)
{
	MPI_Op op;
	int commute = -1, i, n = 100000;
	double *s = malloc(sizeof(double) * n), *d = malloc(sizeof(double) * n);
	MPI_Op_create(sumsq, 1, &op);
	MPI_Op_commutative(op, &commute);
	CHECK(commute == 1, "Op_commutative of a commutative op: %d", commute);
	MPI_Op_commutative(MPI_SUM, &commute);
	CHECK(commute == 1, "Op_commutative(MPI_SUM): %d", commute);
	for (i = 0; i < n; i++)
		s[i] = rank + i;
	MPI_Allreduce(s, d, n, MPI_DOUBLE, op, MPI_COMM_WORLD);
	for (i = 0; i < n; i++)
		if (d[i] != size * (size - 1) / 2.0 + (double)size * i) {
			CHECK(0, "commutative Allreduce [%d] = %g", i, d[i]);
			break;
		}
	MPI_Op_free(&op);
	free(s);
	free(d);
	printf("ok commutative user op over 100000 doubles\n");
}

/* A struct with padding after n: x is summed, n's digits appended. */
struct rec { int n; double x; };
static MPI_Datatype rectype;
static int badrec;

static void recop(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	struct rec *a = in, *b = inout;
	int i, k, p;
	if (*dt != rectype)
		badrec = 1;
	for (i = 0; i < *len; i++) {
		for (p = 1, k = b[i].n; k > 0; k /= 10)
			p *= 10;
		b[i].n = a[i].n * p + b[i].n;
		b[i].x = a[i].x + b[i].x;
	}
}

static void structs(void)
{
	int bl[2] = {1, 1}, i;
	MPI_Aint displs[2] = {offsetof(struct rec, n), offsetof(struct rec, x)};
	MPI_Datatype ts[2] = {MPI_INT, MPI_DOUBLE};
	MPI_Op op;
	struct rec s[2], d[2];
	MPI_Type_create_struct(2, bl, displs, ts, &rectype);
	MPI_Type_commit(&rectype);
	MPI_Op_create(recop, 0, &op);
	for (i = 0; i < 2; i++) {
		s[i].n = rank % 9 + 1;
		s[i].x = rank + i * 0.5;
	}
	MPI_Allreduce(s, d, 2, rectype, op, MPI_COMM_WORLD);
	for (i = 0; i < 2; i++)
		CHECK(d[i].n == want(0, size) && d[i].x == size * (size - 1) / 2.0 + size * i * 0.5, "Allreduce struct [%d]: %d %g", i, d[i].n, d[i].x);
	memset(d, 0, sizeof d);
	MPI_Scan(s, d, 2, rectype, op, MPI_COMM_WORLD);
	CHECK(d[1].n == want(0, rank + 1), "Scan struct: %d, want %d", d[1].n, want(0, rank + 1));
	memset(d, 0, sizeof d);
	MPI_Reduce(s, d, 2, rectype, op, 0, MPI_COMM_WORLD);
	if (rank == 0)
		CHECK(d[0].n == want(0, size), "Reduce struct: %d", d[0].n);
	CHECK(!badrec, "the struct op was called with another datatype");
	MPI_Op_free(&op);
	MPI_Type_free(&rectype);
	printf("ok non-commutative user op over a struct datatype\n");
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	noncommutative();
	commutative();
	structs();
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0 && !failed)
		printf("ok coll_userop\n");
	MPI_Finalize();
	return failed;
}
