/*
 * comm.c: groups and communicators: MPI_Comm_group, the group
 * operations (incl, excl, range_incl, union, intersection, difference,
 * translate_ranks, compare, size, rank), MPI_Comm_split (with a key that
 * reverses the order, and MPI_UNDEFINED), MPI_Comm_dup, MPI_Comm_create,
 * MPI_Comm_compare, and intercommunicators (MPI_Intercomm_create,
 * MPI_Comm_test_inter, MPI_Comm_remote_size, traffic across, and
 * MPI_Intercomm_merge).
 * Ranks: at least 4 (the suite runs it on 4).
 */
#include "ctest.h"

int main(int argc, char **argv)
{
    int rank, size, r, s, i, result, flag;
    MPI_Group world, even, odd, g, u;
    MPI_Comm dup, split, rev, evens, local, inter, merged;

    ct_init(&argc, &argv, "comm", 4);
    rank = ct_rank;
    size = ct_size;

    /* Groups. */
    OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    OK(MPI_Group_size(world, &s));
    OK(MPI_Group_rank(world, &r));
    CHECK(s == size && r == rank, "world group: size %d rank %d", s, r);
    {
        int evens_r[64], n = 0, range[1][3] = {{0, size - 1, 2}};
        for (i = 0; i < size; i += 2)
            evens_r[n++] = i;
        OK(MPI_Group_incl(world, n, evens_r, &even));
        OK(MPI_Group_range_incl(world, 1, range, &g));
        OK(MPI_Group_compare(even, g, &result));
        CHECK(result == MPI_IDENT, "incl and range_incl differ: %d", result);
        OK(MPI_Group_free(&g));
        OK(MPI_Group_excl(world, n, evens_r, &odd));
        OK(MPI_Group_size(odd, &s));
        CHECK(s == size / 2, "excl: size %d", s);
        OK(MPI_Group_rank(even, &r));
        CHECK(r == (rank % 2 ? MPI_UNDEFINED : rank / 2), "rank in the even group: %d", r);
        OK(MPI_Group_union(odd, even, &u));
        OK(MPI_Group_size(u, &s));
        CHECK(s == size, "union size %d", s);
        OK(MPI_Group_compare(u, world, &result));
        CHECK(result == MPI_SIMILAR, "odd+even vs world: %d, want MPI_SIMILAR", result);
        OK(MPI_Group_free(&u));
        OK(MPI_Group_intersection(odd, even, &g));
        OK(MPI_Group_size(g, &s));
        CHECK(s == 0, "intersection size %d", s);
        OK(MPI_Group_compare(g, MPI_GROUP_EMPTY, &result));
        CHECK(result == MPI_IDENT, "empty intersection vs MPI_GROUP_EMPTY: %d", result);
        OK(MPI_Group_free(&g));
        OK(MPI_Group_difference(world, odd, &g));
        OK(MPI_Group_compare(g, even, &result));
        CHECK(result == MPI_IDENT, "world - odd vs even: %d", result);
        OK(MPI_Group_free(&g));
        {
            int from[2] = {0, 1}, to[2];
            OK(MPI_Group_translate_ranks(odd, 2, from, world, to));
            CHECK(to[0] == 1 && to[1] == 3, "translate odd 0,1 -> %d,%d", to[0], to[1]);
            OK(MPI_Group_translate_ranks(world, 2, from, even, to));
            CHECK(to[0] == 0 && to[1] == MPI_UNDEFINED, "translate world 0,1 -> even %d,%d", to[0], to[1]);
        }
    }
    SECTION("groups");

    /* Dup: same group, new context. */
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    OK(MPI_Comm_compare(dup, MPI_COMM_WORLD, &result));
    CHECK(result == MPI_CONGRUENT, "dup vs world: %d", result);
    OK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &result));
    CHECK(result == MPI_IDENT, "world vs world: %d", result);
    /* Messages on dup do not match receives on world. */
    if (rank == 0) {
        int v = 1, w = 2;
        OK(MPI_Send(&v, 1, MPI_INT, 1, 0, dup));
        OK(MPI_Send(&w, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
    } else if (rank == 1) {
        int v = 0, w = 0;
        OK(MPI_Recv(&w, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        OK(MPI_Recv(&v, 1, MPI_INT, 0, 0, dup, MPI_STATUS_IGNORE));
        CHECK(v == 1 && w == 2, "contexts mixed: dup got %d, world got %d", v, w);
    }
    SECTION("dup");

    /* Split by parity; the key reverses the order. */
    OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &split));
    OK(MPI_Comm_size(split, &s));
    OK(MPI_Comm_rank(split, &r));
    {
        int mine = rank % 2 ? size / 2 : (size + 1) / 2;
        CHECK(s == mine && r == mine - 1 - rank / 2, "split: size %d rank %d", s, r);
    }
    {
        int sum = 0;
        OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, split));
        int want = 0;
        for (i = rank % 2; i < size; i += 2)
            want += i;
        CHECK(sum == want, "Allreduce on the split: %d, want %d", sum, want);
    }
    OK(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, 0, &rev));
    CHECK((rank == 0) == (rev == MPI_COMM_NULL), "MPI_UNDEFINED color: %s", rev == MPI_COMM_NULL ? "null" : "a communicator");
    if (rev != MPI_COMM_NULL) {
        OK(MPI_Comm_size(rev, &s));
        CHECK(s == size - 1, "split without rank 0: size %d", s);
        OK(MPI_Comm_free(&rev));
    }
    SECTION("split");

    /* Create from the even group: odd ranks get MPI_COMM_NULL. */
    OK(MPI_Comm_create(MPI_COMM_WORLD, even, &evens));
    CHECK((rank % 2 == 0) == (evens != MPI_COMM_NULL), "Comm_create membership");
    if (evens != MPI_COMM_NULL) {
        OK(MPI_Comm_rank(evens, &r));
        CHECK(r == rank / 2, "rank in the created communicator: %d", r);
        OK(MPI_Barrier(evens));
        OK(MPI_Comm_free(&evens));
        CHECK(evens == MPI_COMM_NULL, "Comm_free left the handle");
    }
    SECTION("create");

    /* Intercommunicator between the parity halves of split. */
    OK(MPI_Comm_test_inter(split, &flag));
    CHECK(!flag, "an intracommunicator says it is inter");
    local = split;
    /* Leaders: the local rank 0 of each half is world rank size-2+parity
     * (the reversed order puts the highest rank first). */
    {
        int even_leader = (size - 1) % 2 == 0 ? size - 1 : size - 2;
        int odd_leader = (size - 1) % 2 == 1 ? size - 1 : size - 2;
        int remote_leader = rank % 2 ? even_leader : odd_leader;
        OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote_leader, 99, &inter));
    }
    OK(MPI_Comm_test_inter(inter, &flag));
    CHECK(flag, "Intercomm_create made an intracommunicator");
    OK(MPI_Comm_remote_size(inter, &s));
    CHECK(s == (rank % 2 ? (size + 1) / 2 : size / 2), "remote size %d", s);
    OK(MPI_Comm_rank(inter, &r));
    /* Local rank r sends to remote rank 0; the remote leaders receive from every remote rank. */
    {
        int v = rank, got, n;
        OK(MPI_Comm_remote_size(inter, &n));
        OK(MPI_Send(&v, 1, MPI_INT, 0, 5, inter));
        if (r == 0) {
            int sum = 0, want = 0;
            MPI_Status st;
            OK(MPI_Comm_remote_size(inter, &n));
            for (i = 0; i < n; i++) {
                OK(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 5, inter, &st));
                CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < n, "intercomm source %d", st.MPI_SOURCE);
                sum += got;
            }
            for (i = 1 - rank % 2; i < size; i += 2)
                want += i;
            CHECK(sum == want, "sum over the remote group %d, want %d", sum, want);
        }
    }
    /* Merge: the odd half first (high = 1 for evens). */
    OK(MPI_Intercomm_merge(inter, rank % 2 == 0, &merged));
    OK(MPI_Comm_size(merged, &s));
    OK(MPI_Comm_rank(merged, &r));
    CHECK(s == size, "merged size %d", s);
    if (rank % 2)
        CHECK(r < size / 2, "odd rank %d is %d in the merge, want the low half", rank, r);
    else
        CHECK(r >= size / 2, "even rank %d is %d in the merge, want the high half", rank, r);
    OK(MPI_Comm_free(&merged));
    OK(MPI_Comm_free(&inter));
    SECTION("intercomm");

    OK(MPI_Comm_free(&split));
    OK(MPI_Comm_free(&dup));
    OK(MPI_Group_free(&even));
    OK(MPI_Group_free(&odd));
    OK(MPI_Group_free(&world));
    CHECK(world == MPI_GROUP_NULL, "Group_free left the handle");
    SECTION("free");
    return ct_finish();
}
