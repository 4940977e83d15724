/* np: 2 4
 * Derived datatypes between ranks (even ranks send, odd ranks receive):
 * a matrix column received into another column and into a contiguous
 * array, an indexed type, an array of C structs (count > 1) received into
 * a struct of another layout, scattered variables from MPI_BOTTOM with
 * MPI_Get_address, a negative lower bound, a subarray of a 2-D array into
 * a subarray of another shape, a resized type stepping over an array of
 * structs, MPI_PACKED both ways, and MPI_Get_count/MPI_Get_elements of a
 * message that ends inside a struct. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (!(cond)) { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

struct rec {
	char tag;
	double v[2];
	int n;
};

/* The same data in another order and with other padding. */
struct rec2 {
	int n;
	short pad;
	double v[2];
	char tag;
};

static MPI_Datatype commit(MPI_Datatype t)
{
	MPI_Type_commit(&t);
	return t;
}

static MPI_Datatype rec_type(void)
{
	int bl[3] = {1, 2, 1};
	MPI_Aint dl[3] = {offsetof(struct rec, tag), offsetof(struct rec, v), offsetof(struct rec, n)};
	MPI_Datatype ty[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, t;
	MPI_Type_create_struct(3, bl, dl, ty, &t);
	return commit(t);
}

/* rec2 in rec's type-map order (char, 2 doubles, int). */
static MPI_Datatype rec2_type(void)
{
	int bl[3] = {1, 2, 1};
	MPI_Aint dl[3] = {offsetof(struct rec2, tag), offsetof(struct rec2, v), offsetof(struct rec2, n)};
	MPI_Datatype ty[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, t, r;
	MPI_Type_create_struct(3, bl, dl, ty, &t);
	MPI_Type_create_resized(t, 0, sizeof(struct rec2), &r);
	MPI_Type_free(&t);
	return commit(r);
}

int main(int argc, char **argv)
{
	int rank, size, i, j, n;
	MPI_Status st;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int peer = rank ^ 1, sender = rank % 2 == 0;
	if (peer >= size) {
		MPI_Finalize();
		return 0;
	}
	MPI_Comm comm = MPI_COMM_WORLD;
	int tag = 0;

	/* 1. A column of a 4x5 double matrix. */
	{
		double m[4][5], got[4][5], flat[4];
		MPI_Datatype col;
		MPI_Type_vector(4, 1, 5, MPI_DOUBLE, &col);
		col = commit(col);
		if (sender) {
			for (i = 0; i < 4; i++)
				for (j = 0; j < 5; j++)
					m[i][j] = rank * 100 + i * 10 + j;
			MPI_Send(&m[0][1], 1, col, peer, tag, comm);
			MPI_Send(&m[0][1], 1, col, peer, tag + 1, comm);
		} else {
			memset(got, 0, sizeof got);
			MPI_Recv(&got[0][3], 1, col, peer, tag, comm, &st);
			for (i = 0; i < 4; i++)
				for (j = 0; j < 5; j++)
					CHECK(got[i][j] == (j == 3 ? peer * 100 + i * 10 + 1 : 0), "column: got[%d][%d] = %g", i, j, got[i][j]);
			MPI_Get_count(&st, col, &n);
			CHECK(n == 1, "column count %d", n);
			MPI_Get_elements(&st, col, &n);
			CHECK(n == 4, "column elements %d", n);
			MPI_Recv(flat, 4, MPI_DOUBLE, peer, tag + 1, comm, &st);
			for (i = 0; i < 4; i++)
				CHECK(flat[i] == peer * 100 + i * 10 + 1, "column as doubles: %g", flat[i]);
		}
		MPI_Type_free(&col);
		tag += 2;
		if (!failed) printf("ok %d column\n", rank);
	}

	/* 2. indexed: 2 ints at 3, 1 at 0, received as 3 ints. */
	{
		int bl[2] = {2, 1}, dl[2] = {3, 0}, a[5] = {10, 11, 12, 13, 14}, got[3];
		MPI_Datatype idx;
		MPI_Type_indexed(2, bl, dl, MPI_INT, &idx);
		idx = commit(idx);
		if (sender) {
			MPI_Send(a, 1, idx, peer, tag, comm);
		} else {
			MPI_Recv(got, 3, MPI_INT, peer, tag, comm, &st);
			CHECK(got[0] == 13 && got[1] == 14 && got[2] == 10, "indexed %d %d %d", got[0], got[1], got[2]);
		}
		MPI_Type_free(&idx);
		tag++;
		if (!failed) printf("ok %d indexed\n", rank);
	}

	/* 3. 3 structs into 3 structs of another layout. */
	{
		MPI_Datatype rt = rec_type(), r2 = rec2_type();
		struct rec out[3];
		struct rec2 in[3];
		if (sender) {
			for (i = 0; i < 3; i++) {
				out[i].tag = 'A' + i;
				out[i].v[0] = i + 0.5;
				out[i].v[1] = rank - i;
				out[i].n = 1000 * rank + i;
			}
			MPI_Send(out, 3, rt, peer, tag, comm);
		} else {
			memset(in, 0x77, sizeof in);
			MPI_Recv(in, 3, r2, peer, tag, comm, &st);
			for (i = 0; i < 3; i++) {
				CHECK(in[i].tag == 'A' + i && in[i].v[0] == i + 0.5 && in[i].v[1] == peer - i && in[i].n == 1000 * peer + i,
				      "struct %d: %c %g %g %d", i, in[i].tag, in[i].v[0], in[i].v[1], in[i].n);
				CHECK(in[i].pad == 0x7777, "struct %d: padding written", i);
			}
			MPI_Get_count(&st, r2, &n);
			CHECK(n == 3, "struct count %d", n);
			MPI_Get_elements(&st, r2, &n);
			CHECK(n == 12, "struct elements %d", n);
		}
		tag++;

		/* 3b. A message that ends inside the second struct. */
		if (sender) {
			int bl[3] = {1, 1, 1};
			MPI_Aint dl[3] = {0, sizeof(struct rec) + offsetof(struct rec, tag), sizeof(struct rec) + offsetof(struct rec, v)};
			MPI_Datatype ty[3] = {rt, MPI_CHAR, MPI_DOUBLE}, part;
			MPI_Type_create_struct(3, bl, dl, ty, &part);
			part = commit(part);
			MPI_Send(out, 1, part, peer, tag, comm);
			MPI_Type_free(&part);
		} else {
			memset(in, 0, sizeof in);
			MPI_Recv(in, 3, r2, peer, tag, comm, &st);
			MPI_Get_count(&st, r2, &n);
			CHECK(n == MPI_UNDEFINED, "partial count %d", n);
			MPI_Get_elements(&st, r2, &n);
			CHECK(n == 6, "partial elements %d", n);
			MPI_Count xn;
			MPI_Get_elements_x(&st, r2, &xn);
			CHECK(xn == 6, "partial elements (_x) %lld", (long long)xn);
			CHECK(in[1].tag == 'B' && in[1].v[0] == 1.5 && in[1].v[1] == 0 && in[1].n == 0, "partial struct");
		}
		tag++;
		MPI_Type_free(&rt);
		MPI_Type_free(&r2);
		if (!failed) printf("ok %d structs\n", rank);
	}

	/* 4. Scattered variables from MPI_BOTTOM, into other variables. */
	{
		static double x;
		int y[2];
		short z;
		int bl[3] = {1, 2, 1};
		MPI_Aint dl[3];
		MPI_Datatype ty[3] = {MPI_DOUBLE, MPI_INT, MPI_SHORT}, abs;
		MPI_Get_address(&x, &dl[0]);
		MPI_Get_address(y, &dl[1]);
		MPI_Get_address(&z, &dl[2]);
		MPI_Type_create_struct(3, bl, dl, ty, &abs);
		abs = commit(abs);
		if (sender) {
			x = 3.75, y[0] = rank, y[1] = -rank, z = 9;
			MPI_Send(MPI_BOTTOM, 1, abs, peer, tag, comm);
		} else {
			x = 0, y[0] = y[1] = 0, z = 0;
			MPI_Recv(MPI_BOTTOM, 1, abs, peer, tag, comm, &st);
			CHECK(x == 3.75 && y[0] == peer && y[1] == -peer && z == 9, "MPI_BOTTOM %g %d %d %d", x, y[0], y[1], z);
		}
		MPI_Type_free(&abs);
		tag++;
		if (!failed) printf("ok %d MPI_BOTTOM\n", rank);
	}

	/* 5. A negative lower bound: 2 elements of (int 8 bytes before,
	   int at 0), extent 16. */
	{
		int a[8], bl[2] = {1, 1};
		MPI_Aint dl[2] = {-8, 0};
		MPI_Datatype neg, t;
		MPI_Type_create_hindexed(2, bl, dl, MPI_INT, &t);
		MPI_Type_create_resized(t, -8, 16, &neg);
		MPI_Type_free(&t);
		neg = commit(neg);
		for (i = 0; i < 8; i++)
			a[i] = sender ? 50 + i : 0;
		if (sender) {
			MPI_Send(&a[2], 2, neg, peer, tag, comm);
		} else {
			MPI_Recv(&a[2], 2, neg, peer, tag, comm, &st);
			for (i = 0; i < 8; i++)
				CHECK(a[i] == (i == 0 || i == 2 || i == 4 || i == 6 ? 50 + i : 0), "negative lb: a[%d] = %d", i, a[i]);
		}
		MPI_Type_free(&neg);
		tag++;
		if (!failed) printf("ok %d negative lb\n", rank);
	}

	/* 6. A 2x3 subarray of a 4x5 array into a 2x3 subarray of 3x6. */
	{
		int a[4][5], b[3][6];
		int s1[2] = {4, 5}, ss[2] = {2, 3}, o1[2] = {1, 1};
		int s2[2] = {3, 6}, o2[2] = {1, 2};
		MPI_Datatype sub;
		if (sender) {
			for (i = 0; i < 4; i++)
				for (j = 0; j < 5; j++)
					a[i][j] = i * 5 + j;
			MPI_Type_create_subarray(2, s1, ss, o1, MPI_ORDER_C, MPI_INT, &sub);
			sub = commit(sub);
			MPI_Send(a, 1, sub, peer, tag, comm);
		} else {
			memset(b, 0, sizeof b);
			MPI_Type_create_subarray(2, s2, ss, o2, MPI_ORDER_C, MPI_INT, &sub);
			sub = commit(sub);
			MPI_Recv(b, 1, sub, peer, tag, comm, &st);
			for (i = 0; i < 3; i++)
				for (j = 0; j < 6; j++) {
					int in = i >= 1 && j >= 2 && j < 5;
					int want = in ? (i - 1 + 1) * 5 + (j - 2 + 1) : 0;
					CHECK(b[i][j] == want, "subarray b[%d][%d] = %d, want %d", i, j, b[i][j], want);
				}
		}
		MPI_Type_free(&sub);
		tag++;
		if (!failed) printf("ok %d subarray\n", rank);
	}

	/* 7. Resized: the n field of each of 4 structs, into 4 ints. */
	{
		struct rec r[4];
		int bl[1] = {1}, got[4];
		MPI_Aint dl[1] = {offsetof(struct rec, n)};
		MPI_Datatype one, field;
		MPI_Type_create_hindexed(1, bl, dl, MPI_INT, &one);
		MPI_Type_create_resized(one, 0, sizeof(struct rec), &field);
		MPI_Type_free(&one);
		field = commit(field);
		if (sender) {
			for (i = 0; i < 4; i++)
				r[i].n = 7 * i + rank;
			MPI_Send(r, 4, field, peer, tag, comm);
		} else {
			MPI_Recv(got, 4, MPI_INT, peer, tag, comm, &st);
			for (i = 0; i < 4; i++)
				CHECK(got[i] == 7 * i + peer, "resized field %d: %d", i, got[i]);
		}
		MPI_Type_free(&field);
		tag++;
		if (!failed) printf("ok %d resized\n", rank);
	}

	/* 8. MPI_PACKED: packed and sent as MPI_PACKED; a vector received as
	   MPI_PACKED and unpacked. */
	{
		unsigned char buf[64];
		int pos = 0, k = 0;
		double d = 0;
		int v[6] = {1, 2, 3, 4, 5, 6}, w[3];
		MPI_Datatype every2;
		MPI_Type_vector(3, 1, 2, MPI_INT, &every2);
		every2 = commit(every2);
		if (sender) {
			k = 31 + rank, d = 6.5;
			MPI_Pack(&k, 1, MPI_INT, buf, sizeof buf, &pos, comm);
			MPI_Pack(&d, 1, MPI_DOUBLE, buf, sizeof buf, &pos, comm);
			MPI_Send(buf, pos, MPI_PACKED, peer, tag, comm);
			MPI_Send(v, 1, every2, peer, tag + 1, comm);
		} else {
			MPI_Recv(buf, sizeof buf, MPI_PACKED, peer, tag, comm, &st);
			MPI_Get_count(&st, MPI_PACKED, &n);
			CHECK(n == 12, "packed bytes %d", n);
			MPI_Unpack(buf, n, &pos, &k, 1, MPI_INT, comm);
			MPI_Unpack(buf, n, &pos, &d, 1, MPI_DOUBLE, comm);
			CHECK(k == 31 + peer && d == 6.5, "MPI_PACKED %d %g", k, d);
			MPI_Recv(buf, sizeof buf, MPI_PACKED, peer, tag + 1, comm, &st);
			MPI_Get_count(&st, MPI_PACKED, &n);
			pos = 0;
			MPI_Unpack(buf, n, &pos, w, 3, MPI_INT, comm);
			CHECK(n == 12 && w[0] == 1 && w[1] == 3 && w[2] == 5, "vector as MPI_PACKED: %d bytes %d %d %d", n, w[0], w[1], w[2]);
		}
		MPI_Type_free(&every2);
		tag += 2;
		if (!failed) printf("ok %d MPI_PACKED\n", rank);
	}

	MPI_Finalize();
	return failed;
}
