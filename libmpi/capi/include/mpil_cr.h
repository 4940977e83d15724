/*
 * mpil_cr.h: checkpoint/restart for C programs (LAM/Go's self cr module).
 *
 * A job run with -ssi cr self calls the program's functions, found by
 * name in the process as LAM 7.1.4 found them: lam_cr_self_checkpoint,
 * lam_cr_self_continue and lam_cr_self_restart (void f(void)), or
 * <prefix>_... with -ssi cr_self_prefix <prefix>, or the names given by
 * -ssi cr_self_checkpoint/_continue/_restart (a Fortran program's
 * subroutines of those names are found too, under gfortran's names with a
 * trailing underscore). mpicc and mpif77 link with -rdynamic, so that the
 * functions can be found.
 *
 * The checkpoint function runs while MPI is quiesced, on a thread of the
 * library: it must not call MPI; it saves the program's state with
 * MPIL_Cr_write into the checkpoint set. The restart function runs inside
 * MPI_Init of a process restarted by crrestart and reads the state back,
 * in the same order, with MPIL_Cr_read. Each returns MPI_SUCCESS, or
 * MPI_ERR_OTHER when called outside the function it belongs to or when
 * the state cannot be written or read in full (an error of
 * MPIL_Cr_write makes the checkpoint fail, with the reason).
 *
 * The checkpoint function runs while the program's other threads go on
 * outside MPI, so it must read a consistent state: the library holds the
 * lock of MPIL_Cr_lock while it runs, and the program takes that lock
 * (MPIL_Cr_lock, MPIL_Cr_unlock) around its updates of the state — with
 * no MPI call while it holds it (a checkpoint waits for the lock while
 * MPI waits for the checkpoint). A program may use a lock of its own
 * instead.
 *
 * Fortran 77: MPIL_CR_WRITE(BUF, COUNT, IERR), MPIL_CR_READ(BUF, COUNT,
 * IERR), MPIL_CR_DISCARD_MESSAGES(IERR), MPIL_CR_WRITE_REQUEST(REQUEST,
 * IERR), MPIL_CR_READ_REQUEST(BUF, BYTES, REQUEST, IERR),
 * MPIL_CR_WRITE_COMM(COMM, IERR), MPIL_CR_READ_COMM(COMM, IERR), MPIL_CR_LOCK(IERR),
 * MPIL_CR_UNLOCK(IERR), MPIL_CR_KEYVAL_NAME(KEYVAL, NAME, IERR), COUNT and
 * BYTES in bytes.
 */
#ifndef LAMGO_MPIL_CR_H
#define LAMGO_MPIL_CR_H

#include "mpi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Write count bytes of the program's state (in the checkpoint function). */
int MPIL_Cr_write(const void *buf, int count);
/* Read exactly count bytes of the program's state (in the restart function). */
int MPIL_Cr_read(void *buf, int count);
/* Drop the messages the checkpoint saved (in the restart function): for a
   program that resumes from an earlier point and sends them again. */
int MPIL_Cr_discard_messages(void);
/* Save a request of a non-blocking or persistent point-to-point
   operation with the program's state (in the checkpoint function;
   MPI_REQUEST_NULL comes back as MPI_REQUEST_NULL), and get it back on
   the program's new buffer of the same size in bytes (in the restart
   function, in the same place among the reads): done if it was done
   (a receive's bytes in buf), else started again (a receive is posted
   once the restart function has returned). Requests of collectives, of
   derived datatypes that are not contiguous and generalized requests
   are refused (MPIL_Cr_write_request fails the checkpoint, with the
   reason). */
int MPIL_Cr_write_request(MPI_Request request);
int MPIL_Cr_read_request(void *buf, int bytes, MPI_Request *request);
/* Save a communicator of the program's (MPI_COMM_WORLD, MPI_COMM_SELF,
   or one it made: MPI_Comm_dup, _split, _create, MPI_Cart_create,
   MPI_Intercomm_create ...) with the program's state (in the checkpoint
   function; MPI_COMM_NULL comes back as MPI_COMM_NULL), and get it back
   (in the restart function, in the same place among the reads): made
   again by the library with its group, its name, its topology and the
   attributes of named keyvals (MPIL_Cr_keyval_name), as a handle of the
   restarted process; MPI_COMM_WORLD and MPI_COMM_SELF come back as
   themselves, and a communicator saved twice as one handle. */
int MPIL_Cr_write_comm(MPI_Comm comm);
int MPIL_Cr_read_comm(MPI_Comm *comm);
/* Make the program's keyval (MPI_Comm_create_keyval,
   MPI_Type_create_keyval, MPI_Keyval_create) restorable under name,
   unique among the program's restorable keyvals of its kind: the values
   of its attributes (integers the size of a pointer, MPI_Aint) on the
   communicators and datatypes a checkpoint saves are saved and set again
   at restart, where the program makes and names its keyval the same way
   before MPI_Init. A pointer's value is saved as a number: the restart
   function builds what it pointed to again and sets the attribute anew.
   Without a name, an attribute of the program's keyval fails the
   checkpoint, with the reason. */
int MPIL_Cr_keyval_name(int keyval, const char *name);
/* Take and release the lock the library holds while the checkpoint
   function runs (no MPI calls in between). */
int MPIL_Cr_lock(void);
int MPIL_Cr_unlock(void);

#ifdef __cplusplus
}
#endif

#endif
