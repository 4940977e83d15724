C     fortran.f: the Fortran 77 bindings: MPI_INIT and the ierror
C     argument, statuses as INTEGER arrays of MPI_STATUS_SIZE indexed by
C     MPI_SOURCE and MPI_TAG, MPI_GET_COUNT, MPI_STATUS_IGNORE and
C     MPI_STATUSES_IGNORE, nonblocking calls and MPI_WAITALL, MPI_BCAST,
C     MPI_ALLREDUCE with MPI_IN_PLACE, MPI_COMM_SPLIT, MPI_WTIME, and an
C     error returned (not fatal) under MPI_ERRORS_RETURN.
C     Prints PASS/FAIL lines as the C suite does and stops with status 1
C     when a check failed.
C     Ranks: at least 2 (the suite runs it on 3).
C     It passes INTEGER and DOUBLE PRECISION buffers to one routine, as
C     Fortran 77 MPI programs do: gfortran 10 and later want
C       mpif77 -fallow-argument-mismatch -o fortran fortran.f
      PROGRAM FORTRN
      INCLUDE 'mpif.h'
      INTEGER RANK, SIZE, IERR, NEXT, PREV, I, COUNT, FAILS, ALL
      INTEGER STATUS(MPI_STATUS_SIZE), STATS(MPI_STATUS_SIZE, 2)
      INTEGER REQS(2), SBUF(10), RBUF(10), V, SUB, SROOT, ICLASS
      DOUBLE PRECISION D, T0
      COMMON /CHECKS/ FAILS
      FAILS = 0

      CALL MPI_INIT(IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'MPI_INIT ierror')
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, SIZE, IERR)
      NEXT = MOD(RANK + 1, SIZE)
      PREV = MOD(RANK + SIZE - 1, SIZE)

C     Blocking, with a status array.
      DO 10 I = 1, 10
         SBUF(I) = RANK * 100 + I
 10   CONTINUE
      CALL MPI_SENDRECV(SBUF, 10, MPI_INTEGER, NEXT, 7, RBUF, 10,
     &     MPI_INTEGER, PREV, 7, MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'MPI_SENDRECV ierror')
      CALL CHECK(STATUS(MPI_SOURCE) .EQ. PREV, 'status MPI_SOURCE')
      CALL CHECK(STATUS(MPI_TAG) .EQ. 7, 'status MPI_TAG')
      CALL MPI_GET_COUNT(STATUS, MPI_INTEGER, COUNT, IERR)
      CALL CHECK(COUNT .EQ. 10, 'MPI_GET_COUNT')
      CALL CHECK(RBUF(10) .EQ. PREV * 100 + 10, 'received data')
      IF (RANK .EQ. 0) THEN
         CALL MPI_SEND(SBUF, 3, MPI_INTEGER, 1, 8, MPI_COMM_WORLD,
     &        IERR)
      ELSE IF (RANK .EQ. 1) THEN
         CALL MPI_RECV(RBUF, 10, MPI_INTEGER, 0, 8, MPI_COMM_WORLD,
     &        MPI_STATUS_IGNORE, IERR)
         CALL CHECK(RBUF(3) .EQ. 3, 'MPI_STATUS_IGNORE receive')
      END IF
      CALL SECTN('p2p')

C     Nonblocking.
      CALL MPI_IRECV(RBUF, 10, MPI_INTEGER, PREV, 9, MPI_COMM_WORLD,
     &     REQS(1), IERR)
      CALL MPI_ISEND(SBUF, 10, MPI_INTEGER, NEXT, 9, MPI_COMM_WORLD,
     &     REQS(2), IERR)
      CALL MPI_WAITALL(2, REQS, STATS, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'MPI_WAITALL ierror')
      CALL CHECK(STATS(MPI_SOURCE, 1) .EQ. PREV, 'WAITALL status 1')
      CALL CHECK(STATS(MPI_TAG, 1) .EQ. 9, 'WAITALL tag 1')
      CALL CHECK(REQS(1) .EQ. MPI_REQUEST_NULL, 'request freed')
      CALL MPI_IRECV(RBUF, 10, MPI_INTEGER, PREV, 10, MPI_COMM_WORLD,
     &     REQS(1), IERR)
      CALL MPI_ISEND(SBUF, 10, MPI_INTEGER, NEXT, 10, MPI_COMM_WORLD,
     &     REQS(2), IERR)
      CALL MPI_WAITALL(2, REQS, MPI_STATUSES_IGNORE, IERR)
      CALL CHECK(RBUF(1) .EQ. PREV * 100 + 1, 'STATUSES_IGNORE data')
      CALL SECTN('nonblocking')

C     Collectives, MPI_IN_PLACE.
      V = 0
      IF (RANK .EQ. 0) V = 42
      CALL MPI_BCAST(V, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, IERR)
      CALL CHECK(V .EQ. 42, 'MPI_BCAST')
      V = RANK + 1
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, V, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECK(V .EQ. SIZE * (SIZE + 1) / 2, 'ALLREDUCE IN_PLACE')
      D = DBLE(RANK)
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, D, 1, MPI_DOUBLE_PRECISION,
     &     MPI_MAX, MPI_COMM_WORLD, IERR)
      CALL CHECK(D .EQ. DBLE(SIZE - 1), 'ALLREDUCE MAX double')
      CALL MPI_COMM_SPLIT(MPI_COMM_WORLD, MOD(RANK, 2), RANK, SUB,
     &     IERR)
      CALL MPI_COMM_SIZE(SUB, SROOT, IERR)
      CALL CHECK(SROOT .EQ. (SIZE + 1 - MOD(RANK, 2)) / 2,
     &     'MPI_COMM_SPLIT size')
      CALL MPI_COMM_FREE(SUB, IERR)
      CALL CHECK(SUB .EQ. MPI_COMM_NULL, 'MPI_COMM_FREE')
      T0 = MPI_WTIME()
      CALL CHECK(T0 .GT. 0.0D0 .OR. T0 .LE. 0.0D0, 'MPI_WTIME')
      CALL SECTN('collectives')

C     Errors come back in ierror under MPI_ERRORS_RETURN.
      CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN,
     &     IERR)
      CALL MPI_SEND(SBUF, 1, MPI_INTEGER, SIZE, 0, MPI_COMM_WORLD,
     &     IERR)
      CALL MPI_ERROR_CLASS(IERR, ICLASS, I)
      CALL CHECK(ICLASS .EQ. MPI_ERR_RANK, 'MPI_ERR_RANK in ierror')
      CALL SECTN('errors')

      CALL MPI_ALLREDUCE(FAILS, ALL, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) THEN
         IF (ALL .EQ. 0) THEN
            WRITE (*, '(A, I0, A)') 'PASS fortran: all checks on ',
     &           SIZE, ' ranks'
         ELSE
            WRITE (*, '(A, I0, A)') 'FAIL fortran: ', ALL,
     &           ' checks failed'
         END IF
      END IF
      CALL MPI_FINALIZE(IERR)
      IF (ALL .NE. 0) STOP 1
      END

C     CHECK counts a failed check and prints it.
      SUBROUTINE CHECK(OK, WHAT)
      LOGICAL OK
      CHARACTER*(*) WHAT
      INTEGER FAILS
      COMMON /CHECKS/ FAILS
      IF (.NOT. OK) THEN
         FAILS = FAILS + 1
         WRITE (*, '(A, A)') 'FAIL fortran: ', WHAT
      END IF
      END

C     SECTN prints PASS or FAIL for a section on rank 0 (collective).
      SUBROUTINE SECTN(NAME)
      INCLUDE 'mpif.h'
      CHARACTER*(*) NAME
      INTEGER FAILS, ALL, RANK, IERR, SEEN
      COMMON /CHECKS/ FAILS
      SAVE SEEN
      DATA SEEN /0/
      CALL MPI_ALLREDUCE(FAILS - SEEN, ALL, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      SEEN = FAILS
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      IF (RANK .EQ. 0) THEN
         IF (ALL .EQ. 0) THEN
            WRITE (*, '(A, A)') 'PASS fortran ', NAME
         ELSE
            WRITE (*, '(A, A)') 'FAIL fortran ', NAME
         END IF
      END IF
      END
