/*
 * errh.c: error handlers and error classes: MPI_ERRORS_RETURN, the
 * classes of bad arguments (rank, tag, count, communicator, datatype,
 * root, operation, buffer), a user handler made with
 * MPI_Errhandler_create and one with MPI_Comm_create_errhandler (called
 * with the communicator and the code), MPI_Comm_get_errhandler,
 * inheritance by MPI_Comm_dup, MPI_Error_class and MPI_Error_string for
 * every class up to MPI_ERR_LASTCODE.
 * Ranks: any number (the suite runs it on 2).
 */
#include "ctest.h"

static int handled, handled_code;
static MPI_Comm handled_comm;

static void handler(MPI_Comm *comm, int *code, ...)
{
    handled++;
    handled_code = *code;
    handled_comm = *comm;
}

static int class_of(int rc)
{
    int c = -1;
    MPI_Error_class(rc, &c);
    return c;
}

int main(int argc, char **argv)
{
    int rank, size, rc, v = 0, cls, len, i, result;
    char str[MPI_MAX_ERROR_STRING];
    MPI_Errhandler eh, eh2, got;
    MPI_Comm dup;

    ct_init(&argc, &argv, "errh", 1);
    rank = ct_rank;
    size = ct_size;

    /* The default handler of MPI_COMM_WORLD is MPI_ERRORS_ARE_FATAL. */
    OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
    CHECK(got == MPI_ERRORS_ARE_FATAL, "world's default error handler is not MPI_ERRORS_ARE_FATAL");
    OK(MPI_Errhandler_free(&got));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
    CHECK(got == MPI_ERRORS_RETURN, "Comm_get_errhandler after setting MPI_ERRORS_RETURN");
    OK(MPI_Errhandler_free(&got));
    SECTION("get and set");

    rc = MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    CHECK(class_of(rc) == MPI_ERR_RANK, "send to rank %d: class %d", size, class_of(rc));
    rc = MPI_Send(&v, 1, MPI_INT, 0, -5, MPI_COMM_WORLD);
    CHECK(class_of(rc) == MPI_ERR_TAG, "negative tag: class %d", class_of(rc));
    rc = MPI_Send(&v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    CHECK(class_of(rc) == MPI_ERR_COUNT, "negative count: class %d", class_of(rc));
    rc = MPI_Send(&v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD);
    CHECK(class_of(rc) == MPI_ERR_TYPE, "null datatype: class %d", class_of(rc));
    rc = MPI_Bcast(&v, 1, MPI_INT, size + 3, MPI_COMM_WORLD);
    CHECK(class_of(rc) == MPI_ERR_ROOT, "bad root: class %d", class_of(rc));
    rc = MPI_Allreduce(&v, &i, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD);
    CHECK(class_of(rc) == MPI_ERR_OP, "null op: class %d", class_of(rc));
    rc = MPI_Barrier(MPI_COMM_NULL);
    CHECK(class_of(rc) == MPI_ERR_COMM, "MPI_COMM_NULL: class %d", class_of(rc));
    SECTION("errors return");

    /* An MPI-1 user handler, inherited by a dup. */
    OK(MPI_Errhandler_create(handler, &eh));
    OK(MPI_Errhandler_set(MPI_COMM_WORLD, eh));
    rc = MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    CHECK(handled == 1 && class_of(handled_code) == MPI_ERR_RANK && handled_comm == MPI_COMM_WORLD,
          "user handler: called %d times, class %d", handled, class_of(handled_code));
    CHECK(class_of(rc) == MPI_ERR_RANK, "the call's return after a user handler: class %d", class_of(rc));
    OK(MPI_Errhandler_get(MPI_COMM_WORLD, &got));
    CHECK(got == eh, "Errhandler_get is not the handler set");
    OK(MPI_Errhandler_free(&got));
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    rc = MPI_Send(&v, 1, MPI_INT, 0, -7, dup);
    CHECK(handled == 2 && class_of(handled_code) == MPI_ERR_TAG && handled_comm == dup, "the dup's inherited handler: %d calls", handled);
    OK(MPI_Comm_compare(dup, MPI_COMM_WORLD, &result));
    OK(MPI_Comm_free(&dup));
    OK(MPI_Errhandler_free(&eh));
    CHECK(eh == MPI_ERRHANDLER_NULL, "Errhandler_free left the handle");
    /* The communicator still holds it: it is still called. */
    rc = MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    CHECK(handled == 3, "the freed (still attached) handler was not called: %d", handled);
    SECTION("user handler");

    /* An MPI-2 one. */
    OK(MPI_Comm_create_errhandler(handler, &eh2));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh2));
    rc = MPI_Recv(&v, 1, MPI_INT, size + 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(handled == 4 && class_of(handled_code) == MPI_ERR_RANK, "Comm_create_errhandler handler: %d calls", handled);
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    OK(MPI_Errhandler_free(&eh2));
    SECTION("comm errhandler");

    /* Classes and strings. */
    CHECK(class_of(MPI_SUCCESS) == MPI_SUCCESS, "class of MPI_SUCCESS");
    for (cls = 0; cls <= MPI_ERR_LASTCODE && cls < 200; cls++) {
        if (cls > MPI_ERR_LASTCODE)
            break;
        str[0] = 0;
        rc = MPI_Error_string(cls, str, &len);
        CHECK(rc == MPI_SUCCESS && len > 0 && len < MPI_MAX_ERROR_STRING && (int)strlen(str) == len, "Error_string(%d): %d %s", cls, rc, str);
    }
    {
        int classes[] = {MPI_ERR_BUFFER, MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_TAG, MPI_ERR_COMM, MPI_ERR_RANK,
                         MPI_ERR_REQUEST, MPI_ERR_ROOT, MPI_ERR_GROUP, MPI_ERR_OP, MPI_ERR_TOPOLOGY, MPI_ERR_DIMS,
                         MPI_ERR_ARG, MPI_ERR_UNKNOWN, MPI_ERR_TRUNCATE, MPI_ERR_OTHER, MPI_ERR_INTERN,
                         MPI_ERR_IN_STATUS, MPI_ERR_PENDING};
        int n = sizeof classes / sizeof classes[0], j;
        for (i = 0; i < n; i++) {
            CHECK(classes[i] > 0 && classes[i] <= MPI_ERR_LASTCODE, "class %d out of range", classes[i]);
            CHECK(class_of(classes[i]) == classes[i], "class of class %d is %d", classes[i], class_of(classes[i]));
            for (j = 0; j < i; j++)
                CHECK(classes[i] != classes[j], "classes %d and %d are equal", i, j);
        }
    }
    (void)rank;
    SECTION("classes and strings");

    return ct_finish();
}
