/* crcomm.c: communicators a C program made, handed to a checkpoint with
 * MPIL_Cr_write_comm and back at restart with MPIL_Cr_read_comm
 * (TestCRLibCComms).
 *
 *   crcomm <gate file>
 *
 * Two ranks (or more), started with MPI_Init_thread, inside which a
 * restarted rank comes back. Each names a keyval before it, then makes a
 * duplicate of MPI_COMM_WORLD, names it "crcomm dup" and caches 100+rank
 * on it; a split of MPI_COMM_WORLD with the ranks in reverse order; a
 * periodic ring (MPI_Cart_create). Rank 1 prints "rank 1 posted" and
 * every rank waits outside MPI for the gate file. At a checkpoint each
 * saves the three, the duplicate again, MPI_COMM_NULL and MPI_COMM_WORLD;
 * restarted, it reads them back (the duplicate twice as one handle, the
 * others as themselves), checks them — ranks, names, the attribute, the
 * topology — uses them, and prints
 * "rank R got split S name <name> attr A right D sum N".
 */
#include <mpi.h>
#include <mpil_cr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, restarted, keyval;
static MPI_Comm dup_c = MPI_COMM_NULL, split_c = MPI_COMM_NULL, ring_c = MPI_COMM_NULL;

void lam_cr_self_checkpoint(void)
{
    if (MPIL_Cr_write_comm(dup_c) != MPI_SUCCESS || MPIL_Cr_write_comm(split_c) != MPI_SUCCESS ||
        MPIL_Cr_write_comm(ring_c) != MPI_SUCCESS || MPIL_Cr_write_comm(dup_c) != MPI_SUCCESS ||
        MPIL_Cr_write_comm(MPI_COMM_NULL) != MPI_SUCCESS || MPIL_Cr_write_comm(MPI_COMM_WORLD) != MPI_SUCCESS)
        fprintf(stderr, "rank %d: cannot save the communicators\n", rank);
}

void lam_cr_self_restart(void)
{
    MPI_Comm again, none, world;

    restarted = 1;
    if (MPIL_Cr_read_comm(&dup_c) != MPI_SUCCESS || MPIL_Cr_read_comm(&split_c) != MPI_SUCCESS ||
        MPIL_Cr_read_comm(&ring_c) != MPI_SUCCESS || MPIL_Cr_read_comm(&again) != MPI_SUCCESS ||
        MPIL_Cr_read_comm(&none) != MPI_SUCCESS || MPIL_Cr_read_comm(&world) != MPI_SUCCESS) {
        fprintf(stderr, "cannot read the communicators back\n");
        exit(1);
    }
    if (again != dup_c || none != MPI_COMM_NULL || world != MPI_COMM_WORLD) {
        fprintf(stderr, "handles back: dup %d and %d, null %d, world %d\n", dup_c, again, none, world);
        exit(1);
    }
}

static void wait_gate(const char *gate)
{
    int i;

    for (i = 0; i < 60000 && access(gate, F_OK) != 0; i++)
        usleep(2000);
}

int main(int argc, char **argv)
{
    int size, srank, sum = 0, flag = 0, len = 0, topo = MPI_UNDEFINED, left, right, dims = 0, periods = 0;
    int coords = -1, name_empty, provided = -1;
    char name[MPI_MAX_OBJECT_NAME];
    void *attr = NULL;

    if (argc != 2) {
        fprintf(stderr, "usage: crcomm <gate file>\n");
        return 2;
    }
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL) != MPI_SUCCESS ||
        MPIL_Cr_keyval_name(keyval, "crcomm value") != MPI_SUCCESS) {
        fprintf(stderr, "cannot name the keyval\n");
        return 1;
    }
    /* MPI_Init_thread: a restarted rank comes back inside it as inside
       MPI_Init. */
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS || provided < MPI_THREAD_FUNNELED) {
        fprintf(stderr, "MPI_Init_thread: provided %d\n", provided);
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("rank %d running\n", rank);
    fflush(stdout);
    if (!restarted) {
        MPI_Comm d, s, r;

        dims = size;
        periods = 1;
        MPI_Comm_dup(MPI_COMM_WORLD, &d);
        MPI_Comm_set_name(d, "crcomm dup");
        MPI_Comm_set_attr(d, keyval, (void *)(MPI_Aint)(100 + rank));
        MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &s);
        MPI_Cart_create(MPI_COMM_WORLD, 1, &dims, &periods, 0, &r);
        /* The state the checkpoint function reads changes under its
           lock, with no MPI call inside. */
        MPIL_Cr_lock();
        dup_c = d;
        split_c = s;
        ring_c = r;
        MPIL_Cr_unlock();
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            printf("rank 1 posted\n");
            fflush(stdout);
        }
        wait_gate(argv[1]);
    }
    MPI_Comm_rank(split_c, &srank);
    MPI_Comm_get_name(dup_c, name, &len);
    MPI_Comm_get_attr(dup_c, keyval, &attr, &flag);
    MPI_Topo_test(ring_c, &topo);
    MPI_Cart_get(ring_c, 1, &dims, &periods, &coords);
    MPI_Cart_shift(ring_c, 0, 1, &left, &right);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, split_c);
    /* An unnamed communicator of the program's has an empty name. */
    len = 0;
    {
        char sname[MPI_MAX_OBJECT_NAME];
        MPI_Comm_get_name(split_c, sname, &len);
        name_empty = len == 0;
    }
    if (srank != size - 1 - rank || !flag || topo != MPI_CART || dims != size || !periods || coords != rank ||
        !name_empty) {
        fprintf(stderr, "rank %d: split rank %d, attribute %d, topology %d, dims %d periods %d coords %d, split's name empty %d\n",
                rank, srank, flag, topo, dims, periods, coords, name_empty);
        return 1;
    }
    if (restarted)
        printf("rank %d got split %d name %s attr %ld right %d sum %d\n", rank, srank, name, (long)(MPI_Aint)attr,
               right, sum);
    fflush(stdout);
    MPI_Comm_free(&dup_c);
    MPI_Comm_free(&split_c);
    MPI_Comm_free(&ring_c);
    MPI_Finalize();
    return 0;
}
