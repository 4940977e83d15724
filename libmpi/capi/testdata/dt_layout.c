/* Datatype constructors checked against hand-computed layouts of real C
 * structs and arrays (offsetof, sizeof): sizes, bounds, true bounds, the
 * MPI-1 queries, envelopes and contents, MPI_Get_address, Type_dup and
 * Type_free. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (!(cond)) { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

struct particle {
	char kind;
	double pos[3];
	int id;
	short flags;
};

/* bounds checks lb, extent, true lb, true extent and size of t. */
static void bounds(const char *name, MPI_Datatype t, MPI_Aint lb, MPI_Aint extent, MPI_Aint tlb, MPI_Aint textent, int size)
{
	MPI_Aint l, e, tl, te;
	int s;
	MPI_Type_get_extent(t, &l, &e);
	MPI_Type_get_true_extent(t, &tl, &te);
	MPI_Type_size(t, &s);
	CHECK(l == lb && e == extent, "%s: lb %ld extent %ld, want %ld %ld", name, (long)l, (long)e, (long)lb, (long)extent);
	CHECK(tl == tlb && te == textent, "%s: true lb %ld extent %ld, want %ld %ld", name, (long)tl, (long)te, (long)tlb, (long)textent);
	CHECK(s == size, "%s: size %d, want %d", name, s, size);
	MPI_Count xl, xe, xtl, xte, xs;
	MPI_Type_get_extent_x(t, &xl, &xe);
	MPI_Type_get_true_extent_x(t, &xtl, &xte);
	MPI_Type_size_x(t, &xs);
	CHECK(xl == lb && xe == extent && xtl == tlb && xte == textent && xs == size, "%s: the _x forms differ", name);
	printf("ok %s bounds\n", name);
}

/* envelope checks the envelope of t. */
static void envelope(const char *name, MPI_Datatype t, int ni, int na, int nt, int comb)
{
	int i, a, d, c;
	MPI_Type_get_envelope(t, &i, &a, &d, &c);
	CHECK(i == ni && a == na && d == nt && c == comb, "%s: envelope %d %d %d combiner %d, want %d %d %d %d",
	      name, i, a, d, c, ni, na, nt, comb);
}

int main(int argc, char **argv)
{
	MPI_Datatype vec, idx, hvec, res, lbub, sub, dar, part, dup, cont, hidx, iblk, hblk, got[4];
	int ints[32];
	MPI_Aint addrs[8];
	int i;

	MPI_Init(&argc, &argv);

	/* A C struct at its offsetof displacements: the extent is sizeof. */
	{
		int bl[4] = {1, 3, 1, 1};
		MPI_Aint dl[4] = {offsetof(struct particle, kind), offsetof(struct particle, pos),
				  offsetof(struct particle, id), offsetof(struct particle, flags)};
		MPI_Datatype ty[4] = {MPI_CHAR, MPI_DOUBLE, MPI_INT, MPI_SHORT};
		MPI_Type_create_struct(4, bl, dl, ty, &part);
		bounds("struct particle", part, 0, sizeof(struct particle), 0,
		       offsetof(struct particle, flags) + sizeof(short), 1 + 3 * 8 + 4 + 2);
		envelope("struct particle", part, 5, 4, 4, MPI_COMBINER_STRUCT);
		MPI_Type_get_contents(part, 32, 8, 4, ints, addrs, got);
		CHECK(ints[0] == 4 && ints[1] == 1 && ints[2] == 3 && ints[3] == 1 && ints[4] == 1, "struct ints %d %d %d %d %d", ints[0], ints[1], ints[2], ints[3], ints[4]);
		for (i = 0; i < 4; i++) {
			CHECK(addrs[i] == dl[i], "struct addr %d: %ld want %ld", i, (long)addrs[i], (long)dl[i]);
			CHECK(got[i] == ty[i], "struct type %d: not the predefined handle", i);
		}
		/* Get_address of the fields of a real struct gives the same
		   displacements. */
		struct particle p;
		MPI_Aint base, f;
		MPI_Get_address(&p, &base);
		MPI_Get_address(&p.id, &f);
		CHECK(f - base == (MPI_Aint)offsetof(struct particle, id), "Get_address: %ld", (long)(f - base));
		MPI_Address(&p.flags, &f);
		CHECK(f - base == (MPI_Aint)offsetof(struct particle, flags), "Address: %ld", (long)(f - base));
		printf("ok struct contents, Get_address\n");
	}

	/* long double pads a struct as C does. */
	{
		struct ld { char c; long double x; };
		int bl[2] = {1, 1};
		MPI_Aint dl[2] = {offsetof(struct ld, c), offsetof(struct ld, x)};
		MPI_Datatype ty[2] = {MPI_CHAR, MPI_LONG_DOUBLE}, ldt;
		MPI_Type_create_struct(2, bl, dl, ty, &ldt);
		bounds("struct with long double", ldt, 0, sizeof(struct ld), 0, sizeof(struct ld), 1 + sizeof(long double));
		MPI_Type_free(&ldt);
	}

	/* vector(3, 2, 4) of int: blocks at 0, 16, 32 bytes. */
	MPI_Type_vector(3, 2, 4, MPI_INT, &vec);
	bounds("vector", vec, 0, 40, 0, 40, 24);
	envelope("vector", vec, 3, 0, 1, MPI_COMBINER_VECTOR);
	MPI_Type_get_contents(vec, 3, 0, 1, ints, addrs, got);
	CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 4 && got[0] == MPI_INT, "vector contents %d %d %d", ints[0], ints[1], ints[2]);

	/* indexed: 2 ints at 3, 1 at 0. */
	{
		int bl[2] = {2, 1}, dl[2] = {3, 0};
		MPI_Type_indexed(2, bl, dl, MPI_INT, &idx);
		bounds("indexed", idx, 0, 20, 0, 20, 12);
		envelope("indexed", idx, 5, 0, 1, MPI_COMBINER_INDEXED);
		MPI_Type_get_contents(idx, 5, 0, 1, ints, addrs, got);
		CHECK(ints[0] == 2 && ints[1] == 2 && ints[2] == 1 && ints[3] == 3 && ints[4] == 0, "indexed contents");
	}

	/* hvector with a negative stride: elements at 0, -8, -16. */
	MPI_Type_create_hvector(3, 1, -8, MPI_DOUBLE, &hvec);
	bounds("hvector(-8)", hvec, -16, 24, -16, 24, 24);
	envelope("hvector", hvec, 2, 1, 1, MPI_COMBINER_HVECTOR);
	MPI_Type_get_contents(hvec, 2, 1, 1, ints, addrs, got);
	CHECK(ints[0] == 3 && ints[1] == 1 && addrs[0] == -8 && got[0] == MPI_DOUBLE, "hvector contents");
	MPI_Type_free(&hvec);
	MPI_Type_hvector(2, 1, 12, MPI_INT, &hvec);
	bounds("MPI-1 hvector", hvec, 0, 16, 0, 16, 8);
	envelope("MPI-1 hvector", hvec, 2, 1, 1, MPI_COMBINER_HVECTOR);

	/* resized with a negative lower bound. */
	MPI_Type_create_resized(MPI_INT, -4, 16, &res);
	bounds("resized", res, -4, 16, 0, 4, 4);
	envelope("resized", res, 0, 2, 1, MPI_COMBINER_RESIZED);
	MPI_Type_get_contents(res, 0, 2, 1, ints, addrs, got);
	CHECK(addrs[0] == -4 && addrs[1] == 16 && got[0] == MPI_INT, "resized contents");

	/* MPI-1 bound markers in Type_struct. */
	{
		int bl[3] = {1, 1, 1};
		MPI_Aint dl[3] = {-8, 0, 12};
		MPI_Datatype ty[3] = {MPI_LB, MPI_INT, MPI_UB};
		MPI_Aint l, u, e;
		MPI_Type_struct(3, bl, dl, ty, &lbub);
		bounds("LB/UB struct", lbub, -8, 20, 0, 4, 4);
		MPI_Type_lb(lbub, &l);
		MPI_Type_ub(lbub, &u);
		MPI_Type_extent(lbub, &e);
		CHECK(l == -8 && u == 12 && e == 20, "MPI-1 queries: lb %ld ub %ld extent %ld", (long)l, (long)u, (long)e);
		MPI_Type_get_contents(lbub, 4, 3, 3, ints, addrs, got);
		CHECK(got[0] == MPI_LB && got[1] == MPI_INT && got[2] == MPI_UB, "markers in contents");
		envelope("MPI_LB", MPI_LB, 0, 0, 0, MPI_COMBINER_NAMED);
	}

	/* A 2x3 subarray from (1,1) of a 4x5 double array, C order. */
	{
		double a[4][5];
		int sizes[2] = {4, 5}, subs[2] = {2, 3}, starts[2] = {1, 1};
		MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_DOUBLE, &sub);
		bounds("subarray", sub, 0, sizeof a, (char *)&a[1][1] - (char *)a,
		       (char *)&a[2][4] - (char *)&a[1][1], 6 * 8);
		envelope("subarray", sub, 3 * 2 + 2, 0, 1, MPI_COMBINER_SUBARRAY);
		MPI_Type_get_contents(sub, 8, 0, 1, ints, addrs, got);
		CHECK(ints[0] == 2 && ints[1] == 4 && ints[3] == 2 && ints[5] == 1 && ints[7] == MPI_ORDER_C, "subarray contents");
		/* The same in Fortran order: a(4,5), the first index fastest;
		   the data runs from a(2,2) (offset 1+1*4) to a(3,4) (2+3*4). */
		MPI_Datatype fsub;
		MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INT, &fsub);
		bounds("Fortran subarray", fsub, 0, 4 * 5 * 4, (1 + 1 * 4) * 4, (2 + 3 * 4 + 1 - (1 + 1 * 4)) * 4, 6 * 4);
		MPI_Type_free(&fsub);
	}

	/* darray: rank 1 of a 2x2 grid holds rows 0-1 (block) and columns
	   1, 3, 5 (cyclic) of a 4x6 int array. */
	{
		int a[4][6];
		int gs[2] = {4, 6}, ds[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
		    da[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, ps[2] = {2, 2};
		MPI_Type_create_darray(4, 1, 2, gs, ds, da, ps, MPI_ORDER_C, MPI_INT, &dar);
		bounds("darray", dar, 0, sizeof a, (char *)&a[0][1] - (char *)a, (char *)&a[1][6] - (char *)&a[0][1], 6 * 4);
		envelope("darray", dar, 4 * 2 + 4, 0, 1, MPI_COMBINER_DARRAY);
		MPI_Type_get_contents(dar, 12, 0, 1, ints, addrs, got);
		CHECK(ints[0] == 4 && ints[1] == 1 && ints[2] == 2 && ints[5] == MPI_DISTRIBUTE_BLOCK && ints[6] == MPI_DISTRIBUTE_CYCLIC &&
		      ints[7] == MPI_DISTRIBUTE_DFLT_DARG && ints[11] == MPI_ORDER_C, "darray contents: %d %d %d %d %d %d %d", ints[0], ints[1], ints[2], ints[5], ints[6], ints[7], ints[11]);
	}

	/* contiguous, hindexed, indexed_block, hindexed_block, dup. */
	MPI_Type_contiguous(3, part, &cont);
	bounds("contiguous of struct", cont, 0, 3 * sizeof(struct particle), 0,
	       2 * sizeof(struct particle) + offsetof(struct particle, flags) + 2, 3 * 31);
	envelope("contiguous", cont, 1, 0, 1, MPI_COMBINER_CONTIGUOUS);
	MPI_Type_get_contents(cont, 1, 0, 1, ints, addrs, got);
	CHECK(ints[0] == 3 && got[0] != part && got[0] != MPI_DATATYPE_NULL, "derived constituent: not a new handle");
	envelope("constituent", got[0], 5, 4, 4, MPI_COMBINER_STRUCT);
	{
		MPI_Aint e;
		MPI_Type_extent(got[0], &e);
		CHECK(e == sizeof(struct particle), "constituent extent %ld", (long)e);
		MPI_Type_free(&got[0]);
		CHECK(got[0] == MPI_DATATYPE_NULL, "Type_free sets MPI_DATATYPE_NULL");
		/* The original is still whole. */
		MPI_Type_extent(part, &e);
		CHECK(e == sizeof(struct particle), "original after freeing the constituent: %ld", (long)e);
	}
	{
		int bl[2] = {1, 2};
		MPI_Aint dl[2] = {24, -8};
		int il[3] = {4, 0, 2};
		MPI_Aint hl[2] = {0, 96};
		MPI_Type_create_hindexed(2, bl, dl, MPI_SHORT, &hidx);
		bounds("hindexed", hidx, -8, 34, -8, 34, 6);
		envelope("hindexed", hidx, 3, 2, 1, MPI_COMBINER_HINDEXED);
		/* MPI-1's MPI_Type_hindexed: the same type, and its errors. */
		{
			MPI_Datatype h1;
			int rc, class, neg[2] = {1, -1};
			MPI_Type_hindexed(2, bl, dl, MPI_SHORT, &h1);
			bounds("MPI-1 hindexed", h1, -8, 34, -8, 34, 6);
			envelope("MPI-1 hindexed", h1, 3, 2, 1, MPI_COMBINER_HINDEXED);
			MPI_Type_free(&h1);
			MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
			rc = MPI_Type_hindexed(-1, bl, dl, MPI_SHORT, &h1);
			MPI_Error_class(rc, &class);
			CHECK(class == MPI_ERR_COUNT, "hindexed count -1: class %d", class);
			rc = MPI_Type_hindexed(2, neg, dl, MPI_SHORT, &h1);
			MPI_Error_class(rc, &class);
			/* MPI names no class; ours is MPI_ERR_COUNT for every
			   constructor's negative block length (Open MPI's is
			   MPI_ERR_ARG). */
			CHECK(class == MPI_ERR_COUNT, "hindexed blocklength -1: class %d", class);
			rc = MPI_Type_hindexed(2, bl, dl, MPI_DATATYPE_NULL, &h1);
			MPI_Error_class(rc, &class);
			CHECK(class == MPI_ERR_TYPE, "hindexed of MPI_DATATYPE_NULL: class %d", class);
			MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
			printf("ok MPI-1 hindexed\n");
		}
		MPI_Type_create_indexed_block(3, 2, il, MPI_FLOAT, &iblk);
		bounds("indexed_block", iblk, 0, 24, 0, 24, 24);
		envelope("indexed_block", iblk, 5, 0, 1, MPI_COMBINER_INDEXED_BLOCK);
		MPI_Type_create_hindexed_block(2, 1, hl, MPI_DOUBLE, &hblk);
		bounds("hindexed_block", hblk, 0, 104, 0, 104, 16);
		envelope("hindexed_block", hblk, 2, 2, 1, MPI_COMBINER_HINDEXED_BLOCK);
	}
	MPI_Type_commit(&vec);
	MPI_Type_dup(vec, &dup);
	bounds("dup", dup, 0, 40, 0, 40, 24);
	envelope("dup", dup, 0, 0, 1, MPI_COMBINER_DUP);
	MPI_Type_get_contents(dup, 0, 0, 1, ints, addrs, got);
	CHECK(got[0] != vec && got[0] != MPI_DATATYPE_NULL, "dup contents: a new handle");
	MPI_Type_free(&got[0]);
	envelope("MPI_INT", MPI_INT, 0, 0, 0, MPI_COMBINER_NAMED);
	printf("ok envelopes and contents\n");

	MPI_Datatype all[] = {vec, idx, hvec, res, lbub, sub, dar, part, dup, cont, hidx, iblk, hblk};
	for (i = 0; i < (int)(sizeof all / sizeof all[0]); i++) {
		MPI_Type_free(&all[i]);
		CHECK(all[i] == MPI_DATATYPE_NULL, "free %d", i);
	}
	printf("ok Type_free\n");
	MPI_Finalize();
	return failed;
}
