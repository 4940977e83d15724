/* MPI_Pack and MPI_Unpack of derived types against hand-packed bytes: an
 * array of C structs (count > 1, padding left alone), a matrix column,
 * mixed packing with a moving position, a type with a negative lower
 * bound, scattered variables from MPI_BOTTOM with MPI_Get_address, and
 * the external32 forms (big-endian). */
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

static MPI_Datatype rec_type(void)
{
	int bl[3] = {1, 2, 1};
	MPI_Aint dl[3] = {offsetof(struct rec, tag), offsetof(struct rec, v), offsetof(struct rec, n)};
	MPI_Datatype ty[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, t;
	MPI_Type_create_struct(3, bl, dl, ty, &t);
	MPI_Type_commit(&t);
	return t;
}

int main(int argc, char **argv)
{
	unsigned char packed[512], want[512];
	int pos, size, i, j;

	MPI_Init(&argc, &argv);

	/* An array of 3 structs: each packs as tag, v[0], v[1], n. */
	{
		struct rec in[3], out[3];
		MPI_Datatype rt = rec_type();
		int w = 0;
		memset(in, 0x11, sizeof in);
		for (i = 0; i < 3; i++) {
			in[i].tag = 'a' + i;
			in[i].v[0] = i + 0.25;
			in[i].v[1] = -i * 1.5;
			in[i].n = 100 * i + 7;
			memcpy(want + w, &in[i].tag, 1), w += 1;
			memcpy(want + w, in[i].v, 16), w += 16;
			memcpy(want + w, &in[i].n, 4), w += 4;
		}
		MPI_Pack_size(3, rt, MPI_COMM_WORLD, &size);
		CHECK(size >= 63, "Pack_size %d", size);
		pos = 0;
		MPI_Pack(in, 3, rt, packed, sizeof packed, &pos, MPI_COMM_WORLD);
		CHECK(pos == 63 && memcmp(packed, want, 63) == 0, "struct array packed: position %d", pos);
		memset(out, 0x5a, sizeof out);
		pos = 0;
		MPI_Unpack(packed, 63, &pos, out, 3, rt, MPI_COMM_WORLD);
		CHECK(pos == 63, "unpack position %d", pos);
		for (i = 0; i < 3; i++) {
			CHECK(out[i].tag == in[i].tag && out[i].v[0] == in[i].v[0] && out[i].v[1] == in[i].v[1] && out[i].n == in[i].n, "struct %d unpacked", i);
			CHECK(((unsigned char *)&out[i])[1] == 0x5a, "padding after tag of struct %d was written", i);
		}
		MPI_Type_free(&rt);
		printf("ok struct array\n");
	}

	/* Column 2 of a 4x5 int matrix, then mixed packing. */
	{
		int m[4][5], col[4];
		double d = 2.5, d2;
		int k = 0, n2;
		MPI_Datatype column;
		for (i = 0; i < 4; i++)
			for (j = 0; j < 5; j++)
				m[i][j] = 10 * i + j;
		MPI_Type_vector(4, 1, 5, MPI_INT, &column);
		MPI_Type_commit(&column);
		pos = 0;
		MPI_Pack(&m[0][2], 1, column, packed, sizeof packed, &pos, MPI_COMM_WORLD);
		MPI_Pack(&d, 1, MPI_DOUBLE, packed, sizeof packed, &pos, MPI_COMM_WORLD);
		k = 42;
		MPI_Pack(&k, 1, MPI_INT, packed, sizeof packed, &pos, MPI_COMM_WORLD);
		CHECK(pos == 16 + 8 + 4, "mixed position %d", pos);
		memcpy(col, packed, 16);
		for (i = 0; i < 4; i++)
			CHECK(col[i] == 10 * i + 2, "column %d: %d", i, col[i]);
		pos = 16;
		MPI_Unpack(packed, 28, &pos, &d2, 1, MPI_DOUBLE, MPI_COMM_WORLD);
		MPI_Unpack(packed, 28, &pos, &n2, 1, MPI_INT, MPI_COMM_WORLD);
		CHECK(d2 == 2.5 && n2 == 42 && pos == 28, "mixed unpack %g %d %d", d2, n2, pos);
		/* Unpack the column into row 3 of another matrix with a
		   different type: 4 contiguous ints. */
		int r[5] = {0, 0, 0, 0, -1};
		pos = 0;
		MPI_Unpack(packed, 28, &pos, r, 4, MPI_INT, MPI_COMM_WORLD);
		CHECK(r[0] == 2 && r[1] == 12 && r[2] == 22 && r[3] == 32 && r[4] == -1, "column into a row");
		MPI_Type_free(&column);
		printf("ok column and mixed packing\n");
	}

	/* A negative lower bound: the int 8 bytes before buf. */
	{
		int a[4] = {1, 2, 3, 4}, got = 0;
		int bl[1] = {1};
		MPI_Aint dl[1] = {-8};
		MPI_Datatype before;
		MPI_Type_create_hindexed(1, bl, dl, MPI_INT, &before);
		MPI_Type_commit(&before);
		pos = 0;
		MPI_Pack(&a[2], 1, before, packed, sizeof packed, &pos, MPI_COMM_WORLD);
		memcpy(&got, packed, 4);
		CHECK(pos == 4 && got == 1, "negative lb packed %d", got);
		pos = 0;
		MPI_Unpack(packed, 4, &pos, &a[3], 1, before, MPI_COMM_WORLD);
		CHECK(a[1] == 1 && a[0] == 1 && a[2] == 3, "negative lb unpacked %d %d %d", a[0], a[1], a[2]);
		MPI_Type_free(&before);
		printf("ok negative lb\n");
	}

	/* Scattered variables from MPI_BOTTOM. */
	{
		static double x = 1.25;
		int y = -7;
		short z = 3;
		int bl[3] = {1, 1, 1};
		MPI_Aint dl[3];
		MPI_Datatype ty[3] = {MPI_DOUBLE, MPI_INT, MPI_SHORT}, abs;
		MPI_Get_address(&x, &dl[0]);
		MPI_Get_address(&y, &dl[1]);
		MPI_Get_address(&z, &dl[2]);
		MPI_Type_create_struct(3, bl, dl, ty, &abs);
		MPI_Type_commit(&abs);
		pos = 0;
		MPI_Pack(MPI_BOTTOM, 1, abs, packed, sizeof packed, &pos, MPI_COMM_WORLD);
		memcpy(want, &x, 8);
		memcpy(want + 8, &y, 4);
		memcpy(want + 12, &z, 2);
		CHECK(pos == 14 && memcmp(packed, want, 14) == 0, "MPI_BOTTOM pack: position %d", pos);
		x = 0, y = 0, z = 0;
		pos = 0;
		MPI_Unpack(packed, 14, &pos, MPI_BOTTOM, 1, abs, MPI_COMM_WORLD);
		CHECK(x == 1.25 && y == -7 && z == 3, "MPI_BOTTOM unpack %g %d %d", x, y, z);
		MPI_Type_free(&abs);
		printf("ok MPI_BOTTOM\n");
	}

	/* external32: big-endian whatever the host. */
	{
		struct rec in = {'q', {1.0, -2.0}, 0x01020304}, out;
		MPI_Datatype rt = rec_type();
		unsigned char be[21] = {'q', 0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4};
		MPI_Aint esize, epos = 0;
		int iv[2] = {1, -2};
		unsigned char ibe[8] = {0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe};
		MPI_Pack_external_size("external32", 1, rt, &esize);
		CHECK(esize == 21, "Pack_external_size %ld", (long)esize);
		MPI_Pack_external("external32", &in, 1, rt, packed, sizeof packed, &epos);
		CHECK(epos == 21 && memcmp(packed, be, 21) == 0, "struct external32: position %ld", (long)epos);
		memset(&out, 0, sizeof out);
		epos = 0;
		MPI_Unpack_external("external32", packed, 21, &epos, &out, 1, rt);
		CHECK(epos == 21 && out.tag == 'q' && out.v[0] == 1.0 && out.v[1] == -2.0 && out.n == 0x01020304, "struct from external32");
		epos = 0;
		MPI_Pack_external("external32", iv, 2, MPI_INT, packed, sizeof packed, &epos);
		CHECK(epos == 8 && memcmp(packed, ibe, 8) == 0, "ints external32");
		iv[0] = iv[1] = 0;
		epos = 0;
		MPI_Unpack_external("external32", packed, 8, &epos, iv, 2, MPI_INT);
		CHECK(iv[0] == 1 && iv[1] == -2, "ints from external32 %d %d", iv[0], iv[1]);
		MPI_Type_free(&rt);
		printf("ok external32\n");
	}

	MPI_Finalize();
	return failed;
}
