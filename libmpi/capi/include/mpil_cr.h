/*
 * mpil_cr.h: checkpoint/restart for C programs (LAM/Go's self cr module).
 *
 * A job run with -ssi cr self calls the program's functions, found by
 * name in the process as LAM 7.1.4 found them: lam_cr_self_checkpoint,
 * lam_cr_self_continue and lam_cr_self_restart (void f(void)), or
 * <prefix>_... with -ssi cr_self_prefix <prefix>, or the names given by
 * -ssi cr_self_checkpoint/_continue/_restart. Link the program with
 * -rdynamic so that its functions can be found.
 *
 * The checkpoint function runs while MPI is quiesced, on a thread of the
 * library: it must not call MPI; it saves the program's state with
 * MPIL_Cr_write into the checkpoint set. The restart function runs inside
 * MPI_Init of a process restarted by crrestart and reads the state back,
 * in the same order, with MPIL_Cr_read. Each returns MPI_SUCCESS, or
 * MPI_ERR_OTHER when called outside the function it belongs to or when
 * the state cannot be written or read in full (an error of
 * MPIL_Cr_write makes the checkpoint fail, with the reason).
 */
#ifndef LAMGO_MPIL_CR_H
#define LAMGO_MPIL_CR_H

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

#ifdef __cplusplus
}
#endif

#endif
