/* Groups, communicators, topologies, attributes, names and Info as a
 * singleton (one rank): the calls that need no other process. */
#include <stdio.h>
#include <string.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (cond) printf("ok %s\n", #cond); else { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

/* The callbacks log what they were called for, as "c<n>" (copy) and
   "d<n>" (delete) with n the attribute's value. */
static char cblog[256];
static void logcb(const char *what, void *v)
{
	char s[32];
	snprintf(s, sizeof s, "%s%ld ", what, (long)v);
	strncat(cblog, s, sizeof cblog - strlen(cblog) - 1);
}

static int copy_plus(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
	(void)old, (void)key;
	logcb("c", in);
	*(void **)out = (void *)((long)in + *(int *)extra);
	*flag = 1;
	return MPI_SUCCESS;
}

static int del_log(MPI_Comm c, int key, void *v, void *extra)
{
	(void)c, (void)key, (void)extra;
	logcb("d", v);
	return MPI_SUCCESS;
}

static int type_copy(MPI_Datatype old, int key, void *extra, void *in, void *out, int *flag)
{
	(void)old, (void)key, (void)extra;
	*(void **)out = in;
	*flag = 1;
	return MPI_SUCCESS;
}

static int type_del(MPI_Datatype t, int key, void *v, void *extra)
{
	(void)key, (void)extra;
	logcb(t == MPI_DOUBLE ? "T" : "t", v);
	return MPI_SUCCESS;
}

/* Attributes on MPI_COMM_SELF are deleted first in MPI_Finalize, in the
   reverse order they were set. */
static int self_del(MPI_Comm c, int key, void *v, void *extra)
{
	(void)key, (void)extra;
	if (c != MPI_COMM_SELF)
		printf("FAIL self_del not on MPI_COMM_SELF\n"), failed = 1;
	logcb("s", v);
	return MPI_SUCCESS;
}

static void attributes(void)
{
	int k1, k2, k3, k4, flag, plus = 100, *ip;
	void *v;
	MPI_Comm a, b;

	cblog[0] = 0;
	CHECK(MPI_Comm_create_keyval(copy_plus, del_log, &k1, &plus) == MPI_SUCCESS, "create keyval");
	MPI_Comm_create_keyval(MPI_COMM_DUP_FN, del_log, &k2, NULL);
	MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_log, &k3, NULL);
	MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &k4, NULL);
	CHECK(k1 != k2 && k2 != k3 && k3 != k4 && k1 != MPI_KEYVAL_INVALID, "keyvals %d %d %d %d", k1, k2, k3, k4);

	MPI_Comm_dup(MPI_COMM_SELF, &a);
	MPI_Comm_get_attr(a, k1, &v, &flag);
	CHECK(flag == 0, "unset attribute: flag %d", flag);
	MPI_Comm_set_attr(a, k3, (void *)3);
	MPI_Comm_set_attr(a, k1, (void *)1);
	MPI_Comm_set_attr(a, k2, (void *)2);
	MPI_Attr_put(a, k4, (void *)4);
	MPI_Comm_get_attr(a, k2, &v, &flag);
	CHECK(flag == 1 && v == (void *)2, "get k2: flag %d value %p", flag, v);
	MPI_Attr_get(a, k4, &v, &flag);
	CHECK(flag == 1 && v == (void *)4, "MPI-1 get k4: flag %d value %p", flag, v);

	/* Replacing a value deletes the old one first. */
	MPI_Comm_set_attr(a, k2, (void *)22);
	CHECK(strcmp(cblog, "d2 ") == 0, "replace runs delete: %s", cblog);
	cblog[0] = 0;

	/* Dup: the copy functions run in keyval creation order (k1 logs,
	   MPI_COMM_DUP_FN copies as is, MPI_COMM_NULL_COPY_FN drops k3). */
	CHECK(MPI_Comm_dup(a, &b) == MPI_SUCCESS, "dup with attributes");
	CHECK(strcmp(cblog, "c1 ") == 0, "copy log: %s", cblog);
	MPI_Comm_get_attr(b, k1, &v, &flag);
	CHECK(flag == 1 && v == (void *)101, "copied k1: flag %d value %p", flag, v);
	MPI_Comm_get_attr(b, k2, &v, &flag);
	CHECK(flag == 1 && v == (void *)22, "MPI_COMM_DUP_FN k2: flag %d value %p", flag, v);
	MPI_Comm_get_attr(b, k3, &v, &flag);
	CHECK(flag == 0, "MPI_COMM_NULL_COPY_FN k3 not copied: flag %d", flag);
	MPI_Comm_get_attr(b, k4, &v, &flag);
	CHECK(flag == 1 && v == (void *)4, "MPI_DUP_FN k4: flag %d value %p", flag, v);
	cblog[0] = 0;

	/* Delete runs the delete function. */
	MPI_Comm_delete_attr(b, k1);
	CHECK(strcmp(cblog, "d101 ") == 0, "delete log: %s", cblog);
	MPI_Comm_get_attr(b, k1, &v, &flag);
	CHECK(flag == 0, "deleted: flag %d", flag);
	cblog[0] = 0;

	/* A freed keyval's values keep their delete function. */
	CHECK(MPI_Comm_free_keyval(&k3) == MPI_SUCCESS && k3 == MPI_KEYVAL_INVALID, "free keyval: %d", k3);
	MPI_Comm_free(&b);
	CHECK(b == MPI_COMM_NULL, "free sets MPI_COMM_NULL");
	CHECK(strcmp(cblog, "d22 ") == 0, "free of the dup deletes k2: %s", cblog);
	cblog[0] = 0;
	MPI_Comm_free(&a);
	/* Every attribute's delete function ran once (k4 has none), the
	   last set (k2, replaced) first. */
	CHECK(strcmp(cblog, "d22 d1 d3 ") == 0, "free deletes all: %s", cblog);

	MPI_Comm_free_keyval(&k1);
	MPI_Comm_free_keyval(&k2);
	MPI_Keyval_free(&k4);
	CHECK(k1 == MPI_KEYVAL_INVALID && k4 == MPI_KEYVAL_INVALID, "keyvals freed");

	/* Predefined attributes: pointers to ints. */
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ip, &flag);
	CHECK(flag && *ip >= 32767, "MPI_TAG_UB %d", flag ? *ip : -1);
	MPI_Attr_get(MPI_COMM_WORLD, MPI_HOST, &ip, &flag);
	CHECK(flag && (*ip == MPI_PROC_NULL || (*ip >= 0 && *ip < 1)), "MPI_HOST %d", flag ? *ip : -1);
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &ip, &flag);
	CHECK(flag && (*ip == MPI_ANY_SOURCE || *ip == MPI_PROC_NULL || *ip == 0), "MPI_IO %d", flag ? *ip : -99);
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &ip, &flag);
	CHECK(!flag || *ip == 0 || *ip == 1, "MPI_WTIME_IS_GLOBAL %d", flag ? *ip : -1);
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &ip, &flag);
	CHECK(!flag || *ip >= 1, "MPI_UNIVERSE_SIZE %d", flag ? *ip : -1);
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &ip, &flag);
	CHECK(flag && *ip >= MPI_ERR_LASTCODE - 1, "MPI_LASTUSEDCODE %d", flag ? *ip : -1);
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &ip, &flag);
	CHECK(!flag || *ip == 0, "MPI_APPNUM %d", flag ? *ip : -1);
	/* A duplicate of the world holds them too (as in Open MPI). */
	MPI_Comm_dup(MPI_COMM_WORLD, &a);
	MPI_Comm_dup(a, &b);
	MPI_Comm_get_attr(b, MPI_TAG_UB, &ip, &flag);
	CHECK(flag && *ip >= 32767, "MPI_TAG_UB on a dup of a dup: %d", flag);
	MPI_Comm_free(&b);
	MPI_Comm_free(&a);

	/* Datatype attributes. */
	{
		int kt;
		cblog[0] = 0;
		MPI_Type_create_keyval(type_copy, type_del, &kt, NULL);
		MPI_Type_set_attr(MPI_DOUBLE, kt, (void *)7);
		MPI_Type_get_attr(MPI_DOUBLE, kt, &v, &flag);
		CHECK(flag && v == (void *)7, "type attribute: flag %d value %p", flag, v);
		MPI_Type_delete_attr(MPI_DOUBLE, kt);
		CHECK(strcmp(cblog, "T7 ") == 0, "type delete log: %s", cblog);
		MPI_Type_get_attr(MPI_DOUBLE, kt, &v, &flag);
		CHECK(flag == 0, "type attribute deleted: flag %d", flag);
		MPI_Type_free_keyval(&kt);
		CHECK(kt == MPI_KEYVAL_INVALID, "type keyval freed");
	}
}

static void names(void)
{
	char name[MPI_MAX_OBJECT_NAME], big[100];
	int len;
	MPI_Comm c;

	MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
	CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world's name %s %d", name, len);
	MPI_Comm_get_name(MPI_COMM_SELF, name, &len);
	CHECK(strcmp(name, "MPI_COMM_SELF") == 0, "self's name %s", name);
	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	MPI_Comm_get_name(c, name, &len);
	CHECK(name[0] == 0 && len == 0, "an unnamed communicator's name is empty: '%s'", name);
	MPI_Comm_set_name(c, "my comm");
	MPI_Comm_get_name(c, name, &len);
	CHECK(strcmp(name, "my comm") == 0 && len == 7, "set name %s %d", name, len);
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = 0;
	MPI_Comm_set_name(c, big);
	MPI_Comm_get_name(c, name, &len);
	CHECK(len == MPI_MAX_OBJECT_NAME - 1 && (int)strlen(name) == len, "long name truncated to %d", len);
	MPI_Comm_free(&c);

	MPI_Type_get_name(MPI_INT, name, &len);
	CHECK(strcmp(name, "MPI_INT") == 0 && len == 7, "MPI_INT's name %s", name);
	MPI_Type_get_name(MPI_LONG_LONG_INT, name, &len);
	CHECK(strcmp(name, "MPI_LONG_LONG_INT") == 0 || strcmp(name, "MPI_LONG_LONG") == 0, "MPI_LONG_LONG_INT's name %s", name);
	MPI_Type_set_name(MPI_INT32_T, "int32");
	MPI_Type_get_name(MPI_INT32_T, name, &len);
	CHECK(strcmp(name, "int32") == 0, "renamed MPI_INT32_T %s", name);
	MPI_Type_get_name(MPI_INT, name, &len);
	CHECK(strcmp(name, "MPI_INT") == 0, "MPI_INT keeps its name %s", name);
}

static void info(void)
{
	MPI_Info in, d;
	int n, flag, len;
	char v[MPI_MAX_INFO_VAL + 1], k[MPI_MAX_INFO_KEY + 1];

	CHECK(MPI_Info_create(&in) == MPI_SUCCESS && in != MPI_INFO_NULL, "info create");
	MPI_Info_get_nkeys(in, &n);
	CHECK(n == 0, "empty info has %d keys", n);
	MPI_Info_set(in, "host", "n0");
	MPI_Info_set(in, "wdir", "/tmp");
	MPI_Info_set(in, "host", "n1");
	MPI_Info_get_nkeys(in, &n);
	CHECK(n == 2, "nkeys %d", n);
	MPI_Info_get(in, "host", MPI_MAX_INFO_VAL, v, &flag);
	CHECK(flag && strcmp(v, "n1") == 0, "get host: %d %s", flag, v);
	MPI_Info_get(in, "nokey", MPI_MAX_INFO_VAL, v, &flag);
	CHECK(flag == 0, "get missing key: %d", flag);
	MPI_Info_get(in, "wdir", 2, v, &flag);
	CHECK(flag && strcmp(v, "/t") == 0, "truncated get: %s", v);
	MPI_Info_get_valuelen(in, "wdir", &len, &flag);
	CHECK(flag && len == 4, "valuelen %d", len);
	MPI_Info_get_nthkey(in, 0, k);
	CHECK(strcmp(k, "host") == 0, "key 0 %s", k);
	MPI_Info_get_nthkey(in, 1, k);
	CHECK(strcmp(k, "wdir") == 0, "key 1 %s", k);
	MPI_Info_dup(in, &d);
	MPI_Info_delete(in, "host");
	MPI_Info_get_nkeys(in, &n);
	CHECK(n == 1, "after delete nkeys %d", n);
	MPI_Info_get_nkeys(d, &n);
	MPI_Info_get(d, "host", MPI_MAX_INFO_VAL, v, &flag);
	CHECK(n == 2 && flag && strcmp(v, "n1") == 0, "dup keeps both: %d %s", n, v);
	MPI_Info_free(&in);
	MPI_Info_free(&d);
	CHECK(in == MPI_INFO_NULL && d == MPI_INFO_NULL, "info free sets MPI_INFO_NULL");
}

static void groups_and_comms(void)
{
	MPI_Group w, s, e, u;
	MPI_Comm c;
	int n, r, res, ranks[1] = {0}, out[1];

	MPI_Comm_group(MPI_COMM_WORLD, &w);
	MPI_Comm_group(MPI_COMM_SELF, &s);
	MPI_Group_size(w, &n);
	MPI_Group_rank(w, &r);
	CHECK(n == 1 && r == 0, "world group size %d rank %d", n, r);
	MPI_Group_compare(w, s, &res);
	CHECK(res == MPI_IDENT, "world and self groups: %d", res);
	MPI_Group_excl(w, 1, ranks, &e);
	MPI_Group_size(e, &n);
	MPI_Group_rank(e, &r);
	CHECK(n == 0 && r == MPI_UNDEFINED, "excl all: size %d rank %d", n, r);
	MPI_Group_compare(e, MPI_GROUP_EMPTY, &res);
	CHECK(res == MPI_IDENT, "empty compares ident to MPI_GROUP_EMPTY: %d", res);
	MPI_Group_translate_ranks(w, 1, ranks, e, out);
	CHECK(out[0] == MPI_UNDEFINED, "translate into empty: %d", out[0]);
	MPI_Group_union(e, w, &u);
	MPI_Group_compare(u, w, &res);
	CHECK(res == MPI_IDENT, "union: %d", res);
	MPI_Group_free(&u);
	MPI_Group_free(&e);
	MPI_Group_free(&s);
	CHECK(u == MPI_GROUP_NULL && s == MPI_GROUP_NULL, "group free sets MPI_GROUP_NULL");

	MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &res);
	CHECK(res == MPI_IDENT, "world vs world %d", res);
	MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &res);
	CHECK(res == MPI_CONGRUENT, "world vs self on one rank %d", res);
	MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, 0, &c);
	CHECK(c == MPI_COMM_NULL, "split undefined gives MPI_COMM_NULL");
	MPI_Comm_create(MPI_COMM_WORLD, w, &c);
	MPI_Comm_test_inter(c, &r);
	MPI_Comm_size(c, &n);
	CHECK(n == 1 && r == 0, "create: size %d inter %d", n, r);
	MPI_Comm_free(&c);
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c);
	MPI_Comm_size(c, &n);
	CHECK(n == 1, "split type shared: size %d", n);
	MPI_Comm_free(&c);
	MPI_Group_free(&w);
}

static void topologies(void)
{
	int dims[3] = {0, 0, 0}, periods[1] = {1}, d1[1] = {1}, coords[1], src, dst, status, n;
	MPI_Comm cart;

	MPI_Dims_create(12, 3, dims);
	CHECK(dims[0] == 3 && dims[1] == 2 && dims[2] == 2, "dims of 12: %d %d %d", dims[0], dims[1], dims[2]);
	dims[0] = 0, dims[1] = 3, dims[2] = 0;
	MPI_Dims_create(6, 3, dims);
	CHECK(dims[0] == 2 && dims[1] == 3 && dims[2] == 1, "dims of 6 with 3 fixed: %d %d %d", dims[0], dims[1], dims[2]);
	MPI_Cart_create(MPI_COMM_WORLD, 1, d1, periods, 0, &cart);
	MPI_Topo_test(cart, &status);
	CHECK(status == MPI_CART, "topo test %d", status);
	MPI_Topo_test(MPI_COMM_WORLD, &status);
	CHECK(status == MPI_UNDEFINED, "no topology %d", status);
	MPI_Cartdim_get(cart, &n);
	MPI_Cart_coords(cart, 0, 1, coords);
	MPI_Cart_shift(cart, 0, 1, &src, &dst);
	CHECK(n == 1 && coords[0] == 0 && src == 0 && dst == 0, "1-ring: ndims %d coords %d shift %d %d", n, coords[0], src, dst);
	MPI_Comm_free(&cart);
}

int main(int argc, char **argv)
{
	int ks;
	MPI_Init(&argc, &argv);
	attributes();
	names();
	info();
	groups_and_comms();
	topologies();

	cblog[0] = 0;
	MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_del, &ks, NULL);
	MPI_Comm_set_attr(MPI_COMM_SELF, ks, (void *)1);
	MPI_Comm_set_attr(MPI_COMM_SELF, ks, (void *)2); /* deletes 1 */
	{
		int k2;
		MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_del, &k2, NULL);
		MPI_Comm_set_attr(MPI_COMM_SELF, k2, (void *)3);
	}
	MPI_Finalize();
	/* Finalize deleted SELF's attributes, the last set first. */
	CHECK(strcmp(cblog, "s1 s3 s2 ") == 0, "self attributes at finalize: %s", cblog);
	return failed;
}
