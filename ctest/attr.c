/*
 * attr.c: attributes: the predefined ones of MPI_COMM_WORLD (MPI_TAG_UB,
 * MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL), keyvals with copy and delete
 * callbacks (MPI_Keyval_create and MPI_Comm_create_keyval), what
 * MPI_Comm_dup copies, MPI_NULL_COPY_FN, MPI_Attr_delete and
 * MPI_Comm_free calling the delete callback, and MPI_Keyval_free.
 * Ranks: any number (the suite runs it on 2).
 */
#include "ctest.h"

static int copies, deletes;
static void *last_deleted;

static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    (void)c;
    (void)key;
    copies++;
    CHECK(*(int *)extra == 42, "copy callback's extra state %d", *(int *)extra);
    *(int **)out = (int *)in + 1; /* the copy points one int further */
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c;
    (void)key;
    (void)extra;
    deletes++;
    last_deleted = val;
    return MPI_SUCCESS;
}

static int comm_copy(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    (void)c;
    (void)key;
    (void)extra;
    *(MPI_Aint *)out = (MPI_Aint)in * 2;
    *flag = 1;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int *tag_ub, *host, *io, *wtg, flag, key, key2, key3, extra = 42;
    int vals[4] = {10, 20, 30, 40};
    void *v;
    MPI_Comm dup, dup2;

    ct_init(&argc, &argv, "attr", 1);

    OK(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
    CHECK(flag && *tag_ub >= 32767, "MPI_TAG_UB: flag %d value %d", flag, flag ? *tag_ub : 0);
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &host, &flag));
    CHECK(flag && (*host == MPI_PROC_NULL || (*host >= 0 && *host < ct_size)), "MPI_HOST: %d", flag ? *host : -99);
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &io, &flag));
    CHECK(flag && (*io == MPI_ANY_SOURCE || *io == MPI_PROC_NULL || (*io >= 0 && *io < ct_size)), "MPI_IO: %d", flag ? *io : -99);
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &wtg, &flag));
    CHECK(!flag || *wtg == 0 || *wtg == 1, "MPI_WTIME_IS_GLOBAL: %d", *wtg);
    SECTION("predefined");

    /* MPI-1 keyval with callbacks. */
    OK(MPI_Keyval_create(copy_fn, delete_fn, &key, &extra));
    OK(MPI_Attr_get(MPI_COMM_WORLD, key, &v, &flag));
    CHECK(!flag, "an attribute nobody set");
    OK(MPI_Attr_put(MPI_COMM_WORLD, key, &vals[0]));
    OK(MPI_Attr_get(MPI_COMM_WORLD, key, &v, &flag));
    CHECK(flag && v == &vals[0], "Attr_get: flag %d value %p", flag, v);
    /* Replacing a value deletes the old one. */
    OK(MPI_Attr_put(MPI_COMM_WORLD, key, &vals[1]));
    CHECK(deletes == 1 && last_deleted == &vals[0], "replacing: %d deletes, last %p", deletes, last_deleted);
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK(copies == 1, "Comm_dup: %d copies", copies);
    OK(MPI_Attr_get(dup, key, &v, &flag));
    CHECK(flag && v == &vals[2], "the dup's value: flag %d %p, want %p", flag, v, (void *)&vals[2]);
    OK(MPI_Comm_free(&dup));
    CHECK(deletes == 2 && last_deleted == &vals[2], "Comm_free: %d deletes, last %p", deletes, last_deleted);
    OK(MPI_Attr_delete(MPI_COMM_WORLD, key));
    CHECK(deletes == 3 && last_deleted == &vals[1], "Attr_delete: %d deletes, last %p", deletes, last_deleted);
    OK(MPI_Attr_get(MPI_COMM_WORLD, key, &v, &flag));
    CHECK(!flag, "the attribute is still there after Attr_delete");
    OK(MPI_Keyval_free(&key));
    CHECK(key == MPI_KEYVAL_INVALID, "Keyval_free left the key");
    SECTION("keyval callbacks");

    /* MPI_NULL_COPY_FN: not copied. MPI-2 keyval: copied by value. */
    OK(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &key2, NULL));
    OK(MPI_Comm_create_keyval(comm_copy, MPI_COMM_NULL_DELETE_FN, &key3, NULL));
    OK(MPI_Attr_put(MPI_COMM_WORLD, key2, &vals[3]));
    OK(MPI_Comm_set_attr(MPI_COMM_WORLD, key3, (void *)(MPI_Aint)21));
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup2));
    OK(MPI_Attr_get(dup2, key2, &v, &flag));
    CHECK(!flag, "MPI_NULL_COPY_FN copied the attribute");
    OK(MPI_Comm_get_attr(dup2, key3, &v, &flag));
    CHECK(flag && (MPI_Aint)v == 42, "Comm_create_keyval copy: flag %d value %ld", flag, (long)(MPI_Aint)v);
    OK(MPI_Comm_delete_attr(dup2, key3));
    OK(MPI_Comm_get_attr(dup2, key3, &v, &flag));
    CHECK(!flag, "Comm_delete_attr left it");
    OK(MPI_Comm_free(&dup2));
    OK(MPI_Attr_delete(MPI_COMM_WORLD, key2));
    OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, key3));
    OK(MPI_Keyval_free(&key2));
    OK(MPI_Comm_free_keyval(&key3));
    SECTION("null copy and MPI-2 keyvals");

    return ct_finish();
}
