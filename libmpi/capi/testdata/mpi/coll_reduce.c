/* np: 1 2 3 4
 * The reductions: every predefined op on every C type MPI allows it on,
 * checked against the result computed here; Reduce from every root,
 * Allreduce, Reduce_scatter with irregular counts, Reduce_scatter_block,
 * Scan and Exscan, in place and not; MAXLOC and MINLOC on every pair type
 * with ties (the lowest index wins); Reduce_local. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <stdbool.h>
#include <complex.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (!(cond)) { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

static int rank, size;
#define N 5

/* The value rank r contributes at i: small, so that products of 4 ranks
   fit in a signed char, and different in every bit position. */
static int v(int r, int i) { return (r * 7 + i * 3) % 5 + 1; }

static long double mul(long double a, long double b) { return a * b; }

/* One type's reductions: every op in ops, through Allreduce (out of
   place and in place) and Reduce to the last rank; the expected result is
   the same op applied here in rank order. */
#define TEST_TYPE(T, DT, NAME, ARITH, BITS, LOGIC)                                                  \
	do {                                                                                        \
		MPI_Op ops[10] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_BAND, MPI_BOR, MPI_BXOR,  \
				  MPI_LAND, MPI_LOR, MPI_LXOR};                                     \
		const char *names[10] = {"MAX", "MIN", "SUM", "PROD", "BAND", "BOR", "BXOR",        \
					 "LAND", "LOR", "LXOR"};                                    \
		int k, i, r;                                                                        \
		for (k = 0; k < 10; k++) {                                                          \
			if ((k < 4 && !(ARITH)) || (k >= 4 && k < 7 && !(BITS)) || (k >= 7 && !(LOGIC))) \
				continue;                                                           \
			T s[N], d[N], want[N];                                                      \
			for (i = 0; i < N; i++) {                                                   \
				s[i] = (T)v(rank, i);                                               \
				want[i] = (T)v(0, i);                                               \
				for (r = 1; r < size; r++) {                                        \
					T x = (T)v(r, i);                                           \
					switch (k) {                                                \
					case 0: want[i] = x > want[i] ? x : want[i]; break;         \
					case 1: want[i] = x < want[i] ? x : want[i]; break;         \
					case 2: want[i] = want[i] + x; break;                       \
					case 3: want[i] = (T)mul(want[i], x); break;                                    \
					case 4: want[i] = (T)((long long)want[i] & (long long)x); break; \
					case 5: want[i] = (T)((long long)want[i] | (long long)x); break; \
					case 6: want[i] = (T)((long long)want[i] ^ (long long)x); break; \
					case 7: want[i] = (T)(want[i] && x); break;                 \
					case 8: want[i] = (T)(want[i] || x); break;                 \
					case 9: want[i] = (T)(!want[i] != !x); break;               \
					}                                                           \
				}                                                                   \
			}                                                                           \
			memset(d, 0, sizeof d);                                                     \
			MPI_Allreduce(s, d, N, DT, ops[k], MPI_COMM_WORLD);                         \
			for (i = 0; i < N; i++)                                                     \
				CHECK(d[i] == want[i], "Allreduce %s %s [%d]", names[k], NAME, i);  \
			memcpy(d, s, sizeof d);                                                     \
			MPI_Allreduce(MPI_IN_PLACE, d, N, DT, ops[k], MPI_COMM_WORLD);              \
			for (i = 0; i < N; i++)                                                     \
				CHECK(d[i] == want[i], "Allreduce in place %s %s [%d]", names[k], NAME, i); \
			memset(d, 0, sizeof d);                                                     \
			MPI_Reduce(s, d, N, DT, ops[k], size - 1, MPI_COMM_WORLD);                 \
			if (rank == size - 1)                                                       \
				for (i = 0; i < N; i++)                                             \
					CHECK(d[i] == want[i], "Reduce %s %s [%d]", names[k], NAME, i); \
		}                                                                                   \
	} while (0)

/* SUM and PROD on a complex type. */
#define TEST_COMPLEX(T, DT, NAME)                                                                 \
	do {                                                                                      \
		int k, i, r;                                                                      \
		for (k = 0; k < 2; k++) {                                                         \
			T s[N], d[N], want[N];                                                    \
			for (i = 0; i < N; i++) {                                                 \
				s[i] = v(rank, i) + v(rank, i + 1) * I;                           \
				want[i] = v(0, i) + v(0, i + 1) * I;                              \
				for (r = 1; r < size; r++) {                                      \
					T x = v(r, i) + v(r, i + 1) * I;                          \
					want[i] = k ? want[i] * x : want[i] + x;                  \
				}                                                                 \
			}                                                                         \
			MPI_Allreduce(s, d, N, DT, k ? MPI_PROD : MPI_SUM, MPI_COMM_WORLD);      \
			for (i = 0; i < N; i++)                                                   \
				CHECK(d[i] == want[i], "Allreduce %s %s [%d]", k ? "PROD" : "SUM", NAME, i); \
		}                                                                                 \
	} while (0)

static void predefined(void)
{
	TEST_TYPE(signed char, MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", 1, 1, 1);
	TEST_TYPE(unsigned char, MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", 1, 1, 1);
	TEST_TYPE(short, MPI_SHORT, "MPI_SHORT", 1, 1, 1);
	TEST_TYPE(unsigned short, MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", 1, 1, 1);
	TEST_TYPE(int, MPI_INT, "MPI_INT", 1, 1, 1);
	TEST_TYPE(unsigned, MPI_UNSIGNED, "MPI_UNSIGNED", 1, 1, 1);
	TEST_TYPE(long, MPI_LONG, "MPI_LONG", 1, 1, 1);
	TEST_TYPE(unsigned long, MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", 1, 1, 1);
	TEST_TYPE(long long, MPI_LONG_LONG, "MPI_LONG_LONG", 1, 1, 1);
	TEST_TYPE(unsigned long long, MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", 1, 1, 1);
	TEST_TYPE(int8_t, MPI_INT8_T, "MPI_INT8_T", 1, 1, 1);
	TEST_TYPE(int16_t, MPI_INT16_T, "MPI_INT16_T", 1, 1, 1);
	TEST_TYPE(int32_t, MPI_INT32_T, "MPI_INT32_T", 1, 1, 1);
	TEST_TYPE(int64_t, MPI_INT64_T, "MPI_INT64_T", 1, 1, 1);
	TEST_TYPE(uint8_t, MPI_UINT8_T, "MPI_UINT8_T", 1, 1, 1);
	TEST_TYPE(uint16_t, MPI_UINT16_T, "MPI_UINT16_T", 1, 1, 1);
	TEST_TYPE(uint32_t, MPI_UINT32_T, "MPI_UINT32_T", 1, 1, 1);
	TEST_TYPE(uint64_t, MPI_UINT64_T, "MPI_UINT64_T", 1, 1, 1);
	TEST_TYPE(MPI_Aint, MPI_AINT, "MPI_AINT", 1, 1, 1);
	TEST_TYPE(float, MPI_FLOAT, "MPI_FLOAT", 1, 0, 0);
	TEST_TYPE(double, MPI_DOUBLE, "MPI_DOUBLE", 1, 0, 0);
	TEST_COMPLEX(float _Complex, MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX");
	TEST_COMPLEX(double _Complex, MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX");
	TEST_TYPE(bool, MPI_C_BOOL, "MPI_C_BOOL", 0, 0, 1);
	TEST_TYPE(unsigned char, MPI_BYTE, "MPI_BYTE", 0, 1, 0);
	printf("ok every predefined op on every type it allows\n");
}

struct fi { float v; int i; };
struct di { double v; int i; };
struct li { long v; int i; };
struct si { short v; int i; };
struct ii { int v; int i; };
struct ff { float v, i; };
struct dd { double v, i; };

/* MAXLOC and MINLOC: rank r's value at element e is (r + e) % 2, so the
   maximum 1 is shared by every rank of the other parity and the lowest of
   them must win; the index is the rank. */
#define TEST_LOC(S, DT, NAME)                                                                      \
	do {                                                                                       \
		S s[3], d[3];                                                                      \
		int e, k;                                                                          \
		for (e = 0; e < 3; e++) {                                                          \
			s[e].v = (rank + e) % 2;                                                   \
			s[e].i = rank;                                                             \
		}                                                                                  \
		for (k = 0; k < 2; k++) {                                                          \
			memset(d, 0, sizeof d);                                                    \
			MPI_Allreduce(s, d, 3, DT, k ? MPI_MINLOC : MPI_MAXLOC, MPI_COMM_WORLD);  \
			for (e = 0; e < 3; e++) {                                                  \
				/* the lowest rank with value 1 (max) or 0 (min) */                \
				int want = k ? (e % 2) : (1 + e) % 2, wantv = k ? 0 : 1;           \
				if (size == 1) {                                                   \
					want = 0;                                                  \
					wantv = e % 2;                                             \
				}                                                                  \
				CHECK(d[e].v == wantv && d[e].i == want, "%s %s [%d]: (%g, %g), want (%d, %d)", \
				      k ? "MINLOC" : "MAXLOC", NAME, e, (double)d[e].v, (double)d[e].i, wantv, want); \
			}                                                                          \
		}                                                                                  \
	} while (0)

static void loc(void)
{
	CHECK(sizeof(struct di) == 16 && sizeof(struct fi) == 8, "the pair structs' sizes");
	TEST_LOC(struct fi, MPI_FLOAT_INT, "MPI_FLOAT_INT");
	TEST_LOC(struct di, MPI_DOUBLE_INT, "MPI_DOUBLE_INT");
	TEST_LOC(struct li, MPI_LONG_INT, "MPI_LONG_INT");
	TEST_LOC(struct si, MPI_SHORT_INT, "MPI_SHORT_INT");
	TEST_LOC(struct ii, MPI_2INT, "MPI_2INT");
	TEST_LOC(struct ii, MPI_2INTEGER, "MPI_2INTEGER");
	TEST_LOC(struct ff, MPI_2REAL, "MPI_2REAL");
	TEST_LOC(struct dd, MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION");
	printf("ok maxloc minloc with ties\n");
}

static void rooted(void)
{
	int root, i, inplace;
	for (root = 0; root < size; root++)
		for (inplace = 0; inplace < 2; inplace++) {
			double s[N], d[N];
			for (i = 0; i < N; i++) {
				s[i] = rank + i * 0.5;
				d[i] = -1;
			}
			if (inplace && rank == root) {
				memcpy(d, s, sizeof d);
				MPI_Reduce(MPI_IN_PLACE, d, N, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
			} else
				MPI_Reduce(s, d, N, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
			if (rank == root)
				for (i = 0; i < N; i++)
					CHECK(d[i] == size * (size - 1) / 2.0 + size * i * 0.5, "Reduce root %d in place %d [%d] = %g", root, inplace, i, d[i]);
			else
				CHECK(d[0] == -1, "Reduce wrote a non-root's recvbuf");
		}
	printf("ok reduce from every root\n");
}

static void scatters(void)
{
	int i, r, inplace, total = 0;
	int *counts = malloc(sizeof(int) * size);
	for (r = 0; r < size; r++) {
		counts[r] = r % 3; /* 0, 1, 2, 0, …: irregular, some none */
		total += counts[r];
	}
	int *s = malloc(sizeof(int) * (total + 1)), *d = malloc(sizeof(int) * (total + 1));
	int off = 0;
	for (r = 0; r < rank; r++)
		off += counts[r];
	for (inplace = 0; inplace < 2; inplace++) {
		for (i = 0; i < total; i++)
			s[i] = rank * 1000 + i;
		for (i = 0; i <= total; i++)
			d[i] = -1;
		if (inplace) {
			memcpy(d, s, sizeof(int) * total);
			MPI_Reduce_scatter(MPI_IN_PLACE, d, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		} else
			MPI_Reduce_scatter(s, d, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		for (i = 0; i < counts[rank]; i++)
			CHECK(d[i] == 1000 * size * (size - 1) / 2 + size * (off + i), "Reduce_scatter in place %d [%d] = %d", inplace, i, d[i]);
		if (!inplace)
			CHECK(d[counts[rank]] == -1, "Reduce_scatter wrote past its block");
	}
	free(s);
	free(d);
	free(counts);

	/* Reduce_scatter_block: 3 per rank. */
	s = malloc(sizeof(int) * 3 * size);
	d = malloc(sizeof(int) * 3 * size);
	for (inplace = 0; inplace < 2; inplace++) {
		for (i = 0; i < 3 * size; i++)
			s[i] = (rank + 1) * (i + 1);
		if (inplace) {
			memcpy(d, s, sizeof(int) * 3 * size);
			MPI_Reduce_scatter_block(MPI_IN_PLACE, d, 3, MPI_INT, MPI_PROD, MPI_COMM_WORLD);
		} else
			MPI_Reduce_scatter_block(s, d, 3, MPI_INT, MPI_PROD, MPI_COMM_WORLD);
		for (i = 0; i < 3; i++) {
			int want = 1, x = 3 * rank + i + 1;
			for (r = 0; r < size; r++)
				want *= (r + 1) * x;
			CHECK(d[i] == want, "Reduce_scatter_block in place %d [%d] = %d, want %d", inplace, i, d[i], want);
		}
	}
	free(s);
	free(d);
	printf("ok reduce_scatter reduce_scatter_block\n");
}

static void scans(void)
{
	int inplace;
	for (inplace = 0; inplace < 2; inplace++) {
		long s[2] = {rank + 1, 1L << rank}, d[2] = {-1, -1};
		if (inplace) {
			memcpy(d, s, sizeof d);
			MPI_Scan(MPI_IN_PLACE, d, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
		} else
			MPI_Scan(s, d, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
		CHECK(d[0] == (long)(rank + 1) * (rank + 2) / 2 && d[1] == (1L << (rank + 1)) - 1, "Scan in place %d: %ld %ld", inplace, d[0], d[1]);

		d[0] = d[1] = -1;
		if (inplace) {
			memcpy(d, s, sizeof d);
			MPI_Exscan(MPI_IN_PLACE, d, 2, MPI_LONG, MPI_BOR, MPI_COMM_WORLD);
		} else
			MPI_Exscan(s, d, 2, MPI_LONG, MPI_BOR, MPI_COMM_WORLD);
		if (rank > 0) {
			long w0 = 0;
			int r;
			for (r = 0; r < rank; r++)
				w0 |= r + 1;
			CHECK(d[0] == w0 && d[1] == (1L << rank) - 1, "Exscan in place %d: %ld %ld", inplace, d[0], d[1]);
		} else if (!inplace)
			CHECK(d[0] == -1 && d[1] == -1, "Exscan changed rank 0's recvbuf");
	}
	printf("ok scan exscan\n");
}

static void local(void)
{
	int a[3] = {1, 5, 3}, b[3] = {4, 2, 3};
	double x[2] = {1.5, 2}, y[2] = {2, 0.25};
	MPI_Reduce_local(a, b, 3, MPI_INT, MPI_MAX);
	CHECK(b[0] == 4 && b[1] == 5 && b[2] == 3, "Reduce_local MAX: %d %d %d", b[0], b[1], b[2]);
	MPI_Reduce_local(x, y, 2, MPI_DOUBLE, MPI_PROD);
	CHECK(y[0] == 3 && y[1] == 0.5, "Reduce_local PROD: %g %g", y[0], y[1]);
	printf("ok reduce_local\n");
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	predefined();
	loc();
	rooted();
	scatters();
	scans();
	local();
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0 && !failed)
		printf("ok coll_reduce\n");
	MPI_Finalize();
	return failed;
}
