/* crreq.c: requests handed to a checkpoint by a C program (TestCRLibCRequests).
 *
 *   crreq <gate file>
 *
 * Two ranks. Rank 1 posts an MPI_Irecv of four ints (tag 6) and a
 * persistent MPI_Recv_init (tag 7, not started), prints "rank 1 posted",
 * and waits outside MPI until the gate file exists; rank 0 waits for the
 * gate too, then sends both messages. At a checkpoint rank 1 saves its
 * requests (MPIL_Cr_write_request); restarted, it gets them back on new
 * buffers (MPIL_Cr_read_request), starts the persistent one, waits for
 * both and prints "rank 1 got 1 2 3 4 and 5".
 *
 * Rank 0 also sends a message of tag 8 before the gate, which rank 1
 * takes with MPI_Mprobe and does not receive before the checkpoint: saved
 * with the checkpoint, it is back at restart as an unmatched message,
 * which rank 1 receives ("rank 1 got 8 from the probe"). And both ranks
 * name a keyval (MPIL_Cr_keyval_name) before MPI_Init; rank 1 caches
 * 4242 on MPI_COMM_WORLD, whose attributes the checkpoint saves with the
 * requests on it: restarted, it prints "rank 1 attribute 4242".
 */
#include <mpi.h>
#include <mpil_cr.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int rank, restarted, got[4], one;
static MPI_Request irecv = MPI_REQUEST_NULL, persist = MPI_REQUEST_NULL;
static int keyval;

void lam_cr_self_checkpoint(void)
{
    if (MPIL_Cr_write_request(irecv) != MPI_SUCCESS || MPIL_Cr_write_request(persist) != MPI_SUCCESS)
        fprintf(stderr, "rank %d: cannot save the requests\n", rank);
}

void lam_cr_self_restart(void)
{
    restarted = 1;
    if (MPIL_Cr_read_request(got, sizeof got, &irecv) != MPI_SUCCESS ||
        MPIL_Cr_read_request(&one, sizeof one, &persist) != MPI_SUCCESS) {
        fprintf(stderr, "cannot read the requests back\n");
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
    int msg[4] = {1, 2, 3, 4}, five = 5, eight = 8, flag = 0;
    void *attr = NULL;
    MPI_Message probed;

    if (argc != 2) {
        fprintf(stderr, "usage: crreq <gate file>\n");
        return 2;
    }
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL) != MPI_SUCCESS ||
        MPIL_Cr_keyval_name(keyval, "crreq count") != MPI_SUCCESS) {
        fprintf(stderr, "cannot name the keyval\n");
        return 1;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("rank %d running\n", rank);
    fflush(stdout);
    if (rank == 0 && !restarted)
        MPI_Send(&eight, 1, MPI_INT, 1, 8, MPI_COMM_WORLD);
    if (rank == 1 && !restarted) {
        MPI_Mprobe(0, 8, MPI_COMM_WORLD, &probed, MPI_STATUS_IGNORE);
        MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, (void *)(MPI_Aint)4242);
        MPI_Irecv(got, 4, MPI_INT, 0, 6, MPI_COMM_WORLD, &irecv);
        MPI_Recv_init(&one, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &persist);
        printf("rank 1 posted\n");
        fflush(stdout);
    }
    if (!restarted)
        wait_gate(argv[1]);
    if (rank == 0) {
        MPI_Send(msg, 4, MPI_INT, 1, 6, MPI_COMM_WORLD);
        MPI_Send(&five, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    } else {
        MPI_Start(&persist);
        MPI_Wait(&irecv, MPI_STATUS_IGNORE);
        MPI_Wait(&persist, MPI_STATUS_IGNORE);
        printf("rank 1 got %d %d %d %d and %d\n", got[0], got[1], got[2], got[3], one);
        if (restarted) {
            /* The probe's handle did not survive; its message did. */
            eight = 0;
            MPI_Recv(&eight, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            printf("rank 1 got %d from the probe\n", eight);
            MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &attr, &flag);
            printf("rank 1 attribute %ld\n", flag ? (long)(MPI_Aint)attr : -1L);
        } else {
            MPI_Mrecv(&eight, 1, MPI_INT, &probed, MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&persist);
    }
    MPI_Finalize();
    return 0;
}
