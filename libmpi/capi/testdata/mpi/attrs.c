/* np: 2 3
 * Attribute caching on every rank: copy and delete functions with
 * extra_state, the communicator they are called with, the order they run
 * in on Comm_dup and Comm_free (printed and checked), attributes that
 * follow a communicator through two dups; the predefined attributes of
 * MPI_COMM_WORLD; communicator names; Info objects. */
#include <stdio.h>
#include <string.h>
#include <mpi.h>

static int failed;
#define CHECK(cond, ...) do { if (!(cond)) { failed = 1; printf("FAIL %s: ", #cond); printf(__VA_ARGS__); printf("\n"); } } while (0)

static char cblog[512];
static MPI_Comm expect; /* the communicator the next callbacks get */

struct state {
	const char *name;
	int calls;
};

static void logcb(const char *what, struct state *s, void *v)
{
	char b[64];
	snprintf(b, sizeof b, "%s:%s=%ld ", what, s->name, (long)v);
	strncat(cblog, b, sizeof cblog - strlen(cblog) - 1);
}

static int copy_double(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
	struct state *s = extra;
	(void)key;
	if (old != expect)
		printf("FAIL copy %s got another communicator\n", s->name), failed = 1;
	s->calls++;
	logcb("copy", s, in);
	*(void **)out = (void *)(2 * (long)in);
	*flag = 1;
	return MPI_SUCCESS;
}

static int copy_skip(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
	struct state *s = extra;
	(void)old, (void)key, (void)out;
	s->calls++;
	logcb("copy", s, in);
	*flag = 0; /* the dup does not get it */
	return MPI_SUCCESS;
}

static int del(MPI_Comm c, int key, void *v, void *extra)
{
	struct state *s = extra;
	(void)key;
	if (c != expect)
		printf("FAIL delete %s got another communicator\n", s->name), failed = 1;
	s->calls++;
	logcb("del", s, v);
	return MPI_SUCCESS;
}

static void attributes(int rank)
{
	struct state sa = {"a", 0}, sb = {"b", 0}, sc = {"c", 0};
	int ka, kb, kc, flag;
	void *v;
	MPI_Comm d1, d2;

	MPI_Comm_create_keyval(copy_double, del, &ka, &sa);
	MPI_Comm_create_keyval(copy_skip, del, &kb, &sb);
	MPI_Comm_create_keyval(MPI_COMM_DUP_FN, del, &kc, &sc);

	/* Set in the order c, a, b on a duplicate of the world. */
	MPI_Comm_dup(MPI_COMM_WORLD, &d1);
	MPI_Comm_set_attr(d1, kc, (void *)(long)(10 + rank));
	MPI_Comm_set_attr(d1, ka, (void *)3L);
	MPI_Comm_set_attr(d1, kb, (void *)5L);

	cblog[0] = 0;
	expect = d1;
	MPI_Comm_dup(d1, &d2);
	printf("rank %d dup: %s\n", rank, cblog);
	/* a's and b's copy functions ran (c's is MPI_COMM_DUP_FN), a before b
	   as the keyvals were made. */
	CHECK(strcmp(cblog, "copy:a=3 copy:b=5 ") == 0, "dup log %s", cblog);
	MPI_Comm_get_attr(d2, ka, &v, &flag);
	CHECK(flag && v == (void *)6L, "a doubled: %d %ld", flag, (long)v);
	MPI_Comm_get_attr(d2, kb, &v, &flag);
	CHECK(!flag, "b not copied");
	MPI_Comm_get_attr(d2, kc, &v, &flag);
	CHECK(flag && v == (void *)(long)(10 + rank), "c as is: %d %ld", flag, (long)v);

	/* A message on the dup still goes (it is a working communicator). */
	{
		int x = rank, y = -1, n;
		MPI_Comm_size(d2, &n);
		if (rank == 0) {
			MPI_Send(&x, 1, MPI_INT, 1, 0, d2);
		} else if (rank == 1) {
			MPI_Recv(&y, 1, MPI_INT, 0, 0, d2, MPI_STATUS_IGNORE);
			CHECK(y == 0, "message on the dup %d", y);
		}
		(void)n;
	}

	cblog[0] = 0;
	expect = d1;
	MPI_Comm_free(&d1);
	printf("rank %d free: %s\n", rank, cblog);
	/* Every attribute's delete function ran once, the last set first. */
	CHECK(strstr(cblog, "del:b=5 del:a=3 del:c=") == cblog, "free log %s", cblog);

	/* Freed keyvals: the values on d2 keep their delete functions. */
	MPI_Comm_free_keyval(&ka);
	MPI_Comm_free_keyval(&kb);
	MPI_Comm_free_keyval(&kc);
	cblog[0] = 0;
	expect = d2;
	MPI_Comm_free(&d2);
	CHECK(strstr(cblog, "del:a=6") && strstr(cblog, "del:c=") && !strstr(cblog, "del:b"), "free of the dup %s", cblog);
	CHECK(sa.calls == 3 && sb.calls == 2 && sc.calls == 2, "calls a %d b %d c %d", sa.calls, sb.calls, sc.calls);
}

static void predefined(int size)
{
	int *v, flag, ub;
	MPI_Comm d;
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
	CHECK(flag && *v >= 32767, "MPI_TAG_UB");
	ub = *v;
	MPI_Comm_dup(MPI_COMM_WORLD, &d);
	MPI_Comm_get_attr(d, MPI_TAG_UB, &v, &flag);
	CHECK(flag && *v == ub, "MPI_TAG_UB on a dup");
	MPI_Comm_free(&d);
	/* A message with the largest tag. */
	{
		int rank, x = 42, y = 0;
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
		if (rank == 0)
			MPI_Send(&x, 1, MPI_INT, 1, ub, MPI_COMM_WORLD);
		else if (rank == 1) {
			MPI_Status st;
			MPI_Recv(&y, 1, MPI_INT, 0, ub, MPI_COMM_WORLD, &st);
			CHECK(y == 42 && st.MPI_TAG == ub, "tag %d", st.MPI_TAG);
		}
	}
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag);
	CHECK(!flag || *v >= 1, "MPI_UNIVERSE_SIZE %d", flag ? *v : -1);
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag);
	CHECK(!flag || *v == 0 || *v == 1, "MPI_WTIME_IS_GLOBAL");
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &v, &flag);
	CHECK(flag && (*v == MPI_PROC_NULL || (*v >= 0 && *v < size)), "MPI_HOST %d", *v);
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &v, &flag);
	CHECK(flag && (*v == MPI_ANY_SOURCE || *v == MPI_PROC_NULL || (*v >= 0 && *v < size)), "MPI_IO %d", *v);
}

static void names(int rank)
{
	char n[MPI_MAX_OBJECT_NAME];
	int len;
	MPI_Comm c;
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &c);
	MPI_Comm_set_name(c, rank % 2 ? "odd" : "even");
	MPI_Comm_get_name(c, n, &len);
	CHECK(strcmp(n, rank % 2 ? "odd" : "even") == 0 && len == (int)strlen(n), "name %s", n);
	MPI_Comm_get_name(MPI_COMM_WORLD, n, &len);
	CHECK(strcmp(n, "MPI_COMM_WORLD") == 0, "world %s", n);
	MPI_Comm_free(&c);
}

static void info(int rank)
{
	MPI_Info in;
	char v[MPI_MAX_INFO_VAL + 1], k[MPI_MAX_INFO_KEY];
	int flag, n, i;
	MPI_Info_create(&in);
	for (i = 0; i <= rank; i++) {
		snprintf(k, sizeof k, "key%d", i);
		snprintf(v, sizeof v, "value %d of rank %d", i, rank);
		MPI_Info_set(in, k, v);
	}
	MPI_Info_get_nkeys(in, &n);
	CHECK(n == rank + 1, "nkeys %d", n);
	MPI_Info_get_nthkey(in, rank, k);
	MPI_Info_get(in, k, MPI_MAX_INFO_VAL, v, &flag);
	{
		char want[64];
		snprintf(want, sizeof want, "value %d of rank %d", rank, rank);
		CHECK(flag && strcmp(v, want) == 0, "get %s: %s", k, v);
	}
	MPI_Info_free(&in);
	CHECK(in == MPI_INFO_NULL, "freed");
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	attributes(rank);
	predefined(size);
	names(rank);
	info(rank);
	MPI_Finalize();
	if (!failed)
		printf("ok attrs rank %d\n", rank);
	return failed;
}
