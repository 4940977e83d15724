C     crattr.f: an attribute of a Fortran keyval named with
C     MPIL_CR_KEYVAL_NAME, saved with a checkpoint and back at restart
C     (TestCRLibFortranAttr).
C
C       crattr <gate file>
C
C     Two ranks; each makes a keyval and names it before MPI_INIT. Rank 1
C     caches 107 on MPI_COMM_WORLD, posts an MPI_IRECV on it (tag 6),
C     prints "rank 1 posted" and waits outside MPI for the gate file;
C     rank 0 waits for the gate, then sends 5. The checkpoint saves
C     rank 1's request, and with it MPI_COMM_WORLD's attributes;
C     restarted, rank 1 gets its request back, waits for it and prints
C     "rank 1 got 5 attribute 107".
      PROGRAM CRATTR
      INCLUDE 'mpif.h'
      INTEGER REQ, GOT, RESTRT
      COMMON /CRST/ REQ, GOT, RESTRT
      INTEGER KV, RANK, IERR, VAL, I, FIVE
      LOGICAL FOUND, THERE
      CHARACTER*256 GATE
      FIVE = 5
      CALL GETARG(1, GATE)
      CALL MPI_KEYVAL_CREATE(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, KV,
     &                       0, IERR)
      CALL MPIL_CR_KEYVAL_NAME(KV, 'crattr value', IERR)
      IF (IERR .NE. MPI_SUCCESS) THEN
         WRITE (*, '(A)') 'cannot name the keyval'
         STOP 1
      END IF
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      WRITE (*, '(A,I0,A)') 'rank ', RANK, ' running'
      CALL FLUSH(6)
      IF (RANK .EQ. 1 .AND. RESTRT .EQ. 0) THEN
         CALL MPI_ATTR_PUT(MPI_COMM_WORLD, KV, 107, IERR)
         CALL MPI_IRECV(GOT, 1, MPI_INTEGER, 0, 6, MPI_COMM_WORLD, REQ,
     &                  IERR)
         WRITE (*, '(A)') 'rank 1 posted'
         CALL FLUSH(6)
      END IF
      IF (RESTRT .EQ. 0) THEN
         DO 10 I = 1, 60
            INQUIRE (FILE=GATE, EXIST=THERE)
            IF (THERE) GOTO 20
            CALL SLEEP(1)
 10      CONTINUE
      END IF
 20   IF (RANK .EQ. 0) THEN
         CALL MPI_SEND(FIVE, 1, MPI_INTEGER, 1, 6, MPI_COMM_WORLD, IERR)
      ELSE
         CALL MPI_WAIT(REQ, MPI_STATUS_IGNORE, IERR)
         CALL MPI_ATTR_GET(MPI_COMM_WORLD, KV, VAL, FOUND, IERR)
         IF (.NOT. FOUND) VAL = -1
         WRITE (*, '(A,I0,A,I0)') 'rank 1 got ', GOT, ' attribute ', VAL
         CALL FLUSH(6)
      END IF
      CALL MPI_FINALIZE(IERR)
      END

      BLOCK DATA CRINIT
      INTEGER REQ, GOT, RESTRT
      COMMON /CRST/ REQ, GOT, RESTRT
      DATA REQ, GOT, RESTRT /0, 0, 0/
      END

C     At a checkpoint: save the request (rank 0's is MPI_REQUEST_NULL).
      SUBROUTINE LAM_CR_SELF_CHECKPOINT
      INCLUDE 'mpif.h'
      INTEGER REQ, GOT, RESTRT
      COMMON /CRST/ REQ, GOT, RESTRT
      INTEGER IERR
      CALL MPIL_CR_WRITE_REQUEST(REQ, IERR)
      IF (IERR .NE. 0) WRITE (*, '(A)') 'cannot save the request'
      END

C     Inside MPI_INIT of a restarted rank: the request back on GOT.
      SUBROUTINE LAM_CR_SELF_RESTART
      INCLUDE 'mpif.h'
      INTEGER REQ, GOT, RESTRT
      COMMON /CRST/ REQ, GOT, RESTRT
      INTEGER IERR
      CALL MPIL_CR_READ_REQUEST(GOT, 4, REQ, IERR)
      IF (IERR .NE. 0) THEN
         WRITE (*, '(A)') 'cannot read the request back'
         STOP 1
      END IF
      RESTRT = 1
      END
