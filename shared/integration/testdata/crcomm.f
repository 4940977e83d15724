C     crcomm.f: communicators a Fortran program made, handed to a
C     checkpoint with MPIL_CR_WRITE_COMM and back at restart with
C     MPIL_CR_READ_COMM (TestCRLibFortranComms).
C
C       crcomm <gate file>
C
C     Two ranks. Each makes a duplicate of MPI_COMM_WORLD named
C     'crcomm dup' with 100+rank cached under a keyval named before
C     MPI_INIT, a split of MPI_COMM_WORLD in reverse order and a periodic
C     ring (MPI_CART_CREATE); rank 1 prints "rank 1 posted" and every
C     rank waits outside MPI for the gate file. The checkpoint saves the
C     three; restarted, each rank reads them back, uses them and prints
C     "rank R got split S name crcomm dup attr A right D sum N".
      PROGRAM CRCOMM
      INCLUDE 'mpif.h'
      INTEGER DUPC, SPLITC, RINGC, RESTRT
      COMMON /CRST/ DUPC, SPLITC, RINGC, RESTRT
      INTEGER KV, RANK, SIZE, IERR, I, SRANK, VAL, LEFT, RIGHT, SUM
      INTEGER DIMS(1), COORDS(1), TOPO, LEN
      LOGICAL PERIOD(1), FOUND, THERE
      CHARACTER*256 GATE
      CHARACTER*(MPI_MAX_OBJECT_NAME) NAME
      CALL GETARG(1, GATE)
      CALL MPI_KEYVAL_CREATE(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, KV,
     &                       0, IERR)
      CALL MPIL_CR_KEYVAL_NAME(KV, 'crcomm value', IERR)
      IF (IERR .NE. MPI_SUCCESS) THEN
         WRITE (*, '(A)') 'cannot name the keyval'
         STOP 1
      END IF
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, SIZE, IERR)
      WRITE (*, '(A,I0,A)') 'rank ', RANK, ' running'
      CALL FLUSH(6)
      IF (RESTRT .EQ. 0) THEN
         CALL MPI_COMM_DUP(MPI_COMM_WORLD, DUPC, IERR)
         CALL MPI_COMM_SET_NAME(DUPC, 'crcomm dup', IERR)
         CALL MPI_ATTR_PUT(DUPC, KV, 100 + RANK, IERR)
         CALL MPI_COMM_SPLIT(MPI_COMM_WORLD, 0, SIZE - 1 - RANK, SPLITC,
     &                       IERR)
         DIMS(1) = SIZE
         PERIOD(1) = .TRUE.
         CALL MPI_CART_CREATE(MPI_COMM_WORLD, 1, DIMS, PERIOD, .FALSE.,
     &                        RINGC, IERR)
         CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
         IF (RANK .EQ. 1) THEN
            WRITE (*, '(A)') 'rank 1 posted'
            CALL FLUSH(6)
         END IF
         DO 10 I = 1, 60
            INQUIRE (FILE=GATE, EXIST=THERE)
            IF (THERE) GOTO 20
            CALL SLEEP(1)
 10      CONTINUE
      END IF
 20   CALL MPI_COMM_RANK(SPLITC, SRANK, IERR)
      CALL MPI_COMM_GET_NAME(DUPC, NAME, LEN, IERR)
      CALL MPI_ATTR_GET(DUPC, KV, VAL, FOUND, IERR)
      IF (.NOT. FOUND) VAL = -1
      CALL MPI_TOPO_TEST(RINGC, TOPO, IERR)
      CALL MPI_CART_GET(RINGC, 1, DIMS, PERIOD, COORDS, IERR)
      CALL MPI_CART_SHIFT(RINGC, 0, 1, LEFT, RIGHT, IERR)
      CALL MPI_ALLREDUCE(RANK, SUM, 1, MPI_INTEGER, MPI_SUM, SPLITC,
     &                   IERR)
      IF (TOPO .NE. MPI_CART .OR. COORDS(1) .NE. RANK .OR.
     &    .NOT. PERIOD(1)) THEN
         WRITE (*, '(A,I0,A,I0)') 'bad ring: topology ', TOPO,
     &        ' coordinate ', COORDS(1)
         STOP 1
      END IF
      IF (RESTRT .NE. 0) THEN
         WRITE (*, '(A,I0,A,I0,A,A,A,I0,A,I0,A,I0)') 'rank ', RANK,
     &        ' got split ', SRANK, ' name ', NAME(1:LEN), ' attr ',
     &        VAL, ' right ', RIGHT, ' sum ', SUM
         CALL FLUSH(6)
      END IF
      CALL MPI_FINALIZE(IERR)
      END

      BLOCK DATA CRINIT
      INTEGER DUPC, SPLITC, RINGC, RESTRT
      COMMON /CRST/ DUPC, SPLITC, RINGC, RESTRT
      DATA DUPC, SPLITC, RINGC, RESTRT /0, 0, 0, 0/
      END

C     At a checkpoint: save the three communicators.
      SUBROUTINE LAM_CR_SELF_CHECKPOINT
      INCLUDE 'mpif.h'
      INTEGER DUPC, SPLITC, RINGC, RESTRT
      COMMON /CRST/ DUPC, SPLITC, RINGC, RESTRT
      INTEGER IERR, E2, E3
      CALL MPIL_CR_WRITE_COMM(DUPC, IERR)
      CALL MPIL_CR_WRITE_COMM(SPLITC, E2)
      CALL MPIL_CR_WRITE_COMM(RINGC, E3)
      IF (IERR + E2 + E3 .NE. 0) THEN
         WRITE (*, '(A)') 'cannot save the communicators'
      END IF
      END

C     Inside MPI_INIT of a restarted rank: the communicators back.
      SUBROUTINE LAM_CR_SELF_RESTART
      INCLUDE 'mpif.h'
      INTEGER DUPC, SPLITC, RINGC, RESTRT
      COMMON /CRST/ DUPC, SPLITC, RINGC, RESTRT
      INTEGER IERR, E2, E3
      CALL MPIL_CR_READ_COMM(DUPC, IERR)
      CALL MPIL_CR_READ_COMM(SPLITC, E2)
      CALL MPIL_CR_READ_COMM(RINGC, E3)
      IF (IERR + E2 + E3 .NE. 0) THEN
         WRITE (*, '(A)') 'cannot read the communicators back'
         STOP 1
      END IF
      RESTRT = 1
      END
