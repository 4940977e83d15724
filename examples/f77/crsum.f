C     crsum.f: examples/c/crsum.c in Fortran 77, a program that can be
C     checkpointed, continued, stopped and restarted (LAM/Go's self cr
C     module) to the same answer as a run never interrupted. Every
C     iteration the ranks add up a number from each (MPI_ALLREDUCE) into
C     an accumulator; rank 0 prints it, as it was after ITERS
C     iterations, at the end. With a second argument, a file name, the
C     ranks go on iterating after ITERS until the file exists (so that a
C     checkpoint asked for later still finds them running).
C
C       mpif77 -o crsum crsum.f
C       mpirun -ssi cr self -ssi rpi crtcp -np 4 crsum 5000 gate &
C       crcheckpoint -stop <mpirun's pid>
C       touch gate; crrestart <the set it printed>
C
C     The library calls the subroutines LAM_CR_SELF_CHECKPOINT,
C     LAM_CR_SELF_CONTINUE and LAM_CR_SELF_RESTART (gfortran's names
C     lam_cr_self_checkpoint_ ..., which the library looks for too).
C     The checkpoint one runs on a thread of the library, MPI quiesced,
C     while the main program may go on outside MPI: the library holds the
C     lock of MPIL_CR_LOCK meanwhile, and the main program takes that
C     lock around its updates of the state (never across an MPI call).
      PROGRAM CRSUM
      INCLUDE 'mpif.h'
      INTEGER*8 CUR(3), PREV(3)
      INTEGER RESTRT, MYRANK
      COMMON /CRST/ CUR, PREV, RESTRT, MYRANK
      INTEGER*8 MINE(2), SUMS(2), HAVE(1), LEAST(1)
      INTEGER ITERS, I, K, IERR
      LOGICAL GATED, OPEN
      CHARACTER*256 GATE
      CHARACTER*32 ARG

      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, MYRANK, IERR)
      ITERS = 0
      IF (IARGC() .GT. 0) THEN
         CALL GETARG(1, ARG)
         READ (ARG, *, ERR=5) ITERS
      END IF
 5    IF (ITERS .LT. 1) THEN
         WRITE (*, '(A)') 'usage: crsum <iterations> [<gate file>]'
         CALL MPI_ABORT(MPI_COMM_WORLD, 2, IERR)
      END IF
      GATED = IARGC() .GT. 1
      IF (GATED) CALL GETARG(2, GATE)
      WRITE (*, '(A,I0,A)') 'rank ', MYRANK, ' running'
      CALL FLUSH(6)
      I = 0
      IF (RESTRT .NE. 0) THEN
C        Back to the last iteration every rank completed (they are at
C        most one apart: each iteration ends with the MPI_ALLREDUCE).
         HAVE(1) = CUR(1)
         CALL MPI_ALLREDUCE(HAVE, LEAST, 1, MPI_INTEGER8, MPI_MIN,
     &                      MPI_COMM_WORLD, IERR)
         IF (LEAST(1) .EQ. PREV(1)) THEN
            DO 7 K = 1, 3
               CUR(K) = PREV(K)
 7          CONTINUE
         ELSE IF (LEAST(1) .NE. CUR(1)) THEN
            WRITE (*, '(A,I0,A)') 'rank ', MYRANK, ': no such iteration'
            CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
         END IF
         I = INT(CUR(1))
         WRITE (*, '(A,I0,A,I0)') 'rank ', MYRANK,
     &        ' restarted at iteration ', I
         CALL FLUSH(6)
      END IF
C     One iteration; the ranks stop together once one of them, past
C     ITERS, sees the gate open (or there is no gate).
 10   MINE(1) = MOD(INT(MYRANK + 1, 8) * INT(I + 1, 8) + CUR(2) / 7,
     &              1000003_8)
      MINE(2) = 0
      IF (I + 1 .GE. ITERS) THEN
         OPEN = .TRUE.
         IF (GATED) INQUIRE (FILE=GATE, EXIST=OPEN)
         IF (OPEN) MINE(2) = 1
      END IF
      CALL MPI_ALLREDUCE(MINE, SUMS, 2, MPI_INTEGER8, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      CALL MPIL_CR_LOCK(IERR)
      DO 20 K = 1, 3
         PREV(K) = CUR(K)
 20   CONTINUE
      CUR(1) = I + 1
      CUR(2) = MOD(CUR(2) * 31 + SUMS(1), 1000000007_8)
      IF (I + 1 .EQ. ITERS) CUR(3) = CUR(2)
      CALL MPIL_CR_UNLOCK(IERR)
      I = I + 1
      IF (SUMS(2) .EQ. 0) GOTO 10
      IF (MYRANK .EQ. 0) WRITE (*, '(A,I0)') 'result ', CUR(3)
      CALL MPI_FINALIZE(IERR)
      END

      BLOCK DATA CRINIT
      INTEGER*8 CUR(3), PREV(3)
      INTEGER RESTRT, MYRANK
      COMMON /CRST/ CUR, PREV, RESTRT, MYRANK
      DATA CUR, PREV, RESTRT, MYRANK /6*0, 0, 0/
      END

C     At a checkpoint (MPI quiesced, the library holding MPIL_CR_LOCK's
C     lock): save the state after the last two iterations. No MPI calls.
      SUBROUTINE LAM_CR_SELF_CHECKPOINT
      INTEGER*8 CUR(3), PREV(3)
      INTEGER RESTRT, MYRANK
      COMMON /CRST/ CUR, PREV, RESTRT, MYRANK
      INTEGER IERR
      CALL MPIL_CR_WRITE(PREV, 24, IERR)
      IF (IERR .EQ. 0) CALL MPIL_CR_WRITE(CUR, 24, IERR)
      IF (IERR .NE. 0) WRITE (*, '(A,I0,A)') 'rank ', MYRANK,
     &     ': cannot save the state'
      WRITE (*, '(A,I0,A,I0)') 'rank ', MYRANK,
     &     ' checkpoint at iteration ', CUR(1)
      CALL FLUSH(6)
      END

C     After a checkpoint the job survives.
      SUBROUTINE LAM_CR_SELF_CONTINUE
      INTEGER*8 CUR(3), PREV(3)
      INTEGER RESTRT, MYRANK
      COMMON /CRST/ CUR, PREV, RESTRT, MYRANK
      WRITE (*, '(A,I0,A)') 'rank ', MYRANK, ' continued'
      CALL FLUSH(6)
      END

C     Inside MPI_INIT of a rank restarted from a checkpoint: read the
C     state back; the ranks resume from the iteration they all completed
C     and send again what followed, so the saved messages are dropped.
      SUBROUTINE LAM_CR_SELF_RESTART
      INTEGER*8 CUR(3), PREV(3)
      INTEGER RESTRT, MYRANK
      COMMON /CRST/ CUR, PREV, RESTRT, MYRANK
      INTEGER IERR
      CALL MPIL_CR_READ(PREV, 24, IERR)
      IF (IERR .EQ. 0) CALL MPIL_CR_READ(CUR, 24, IERR)
      IF (IERR .NE. 0) THEN
         WRITE (*, '(A)') 'cannot read the saved state'
         STOP 1
      END IF
      RESTRT = 1
      CALL MPIL_CR_DISCARD_MESSAGES(IERR)
      END
