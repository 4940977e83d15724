C     np: 1 2 4
C     A ring of INTEGER and DOUBLE PRECISION messages through the
C     Fortran 77 bindings, statuses read through MPI_SOURCE/MPI_TAG.
      PROGRAM FRING
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, SIZE, NEXT, PREV, I, N, NFAIL
      INTEGER IV(4), IR(4), ST(MPI_STATUS_SIZE)
      DOUBLE PRECISION DV(2), DR(2)
      NFAIL = 0
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, SIZE, IERR)
      NEXT = MOD(RANK + 1, SIZE)
      PREV = MOD(RANK + SIZE - 1, SIZE)
      DO 10 I = 1, 3
         IV(1) = RANK
         IV(2) = I
         IV(3) = -RANK
         IV(4) = 7
         DV(1) = RANK + 0.5D0
         DV(2) = I * 2.25D0
         IF (MOD(RANK, 2) .EQ. 0) THEN
            CALL MPI_SEND(IV, 4, MPI_INTEGER, NEXT, 10+I,
     &          MPI_COMM_WORLD, IERR)
            CALL MPI_RECV(IR, 4, MPI_INTEGER, PREV, 10+I,
     &          MPI_COMM_WORLD, ST, IERR)
            CALL MPI_SEND(DV, 2, MPI_DOUBLE_PRECISION, NEXT, 20,
     &          MPI_COMM_WORLD, IERR)
            CALL MPI_RECV(DR, 2, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE,
     &          MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
         ELSE
            CALL MPI_RECV(IR, 4, MPI_INTEGER, PREV, 10+I,
     &          MPI_COMM_WORLD, ST, IERR)
            CALL MPI_SEND(IV, 4, MPI_INTEGER, NEXT, 10+I,
     &          MPI_COMM_WORLD, IERR)
            CALL MPI_RECV(DR, 2, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE,
     &          MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
            CALL MPI_SEND(DV, 2, MPI_DOUBLE_PRECISION, NEXT, 20,
     &          MPI_COMM_WORLD, IERR)
         END IF
         CALL MPI_GET_COUNT(ST, MPI_INTEGER, N, IERR)
         IF (ST(MPI_SOURCE) .NE. PREV .OR. ST(MPI_TAG) .NE. 10+I
     &       .OR. N .NE. 4) THEN
            PRINT *, 'FAIL status', ST(MPI_SOURCE), ST(MPI_TAG), N
            NFAIL = NFAIL + 1
         END IF
         IF (IR(1) .NE. PREV .OR. IR(2) .NE. I .OR. IR(3) .NE. -PREV
     &       .OR. IR(4) .NE. 7) THEN
            PRINT *, 'FAIL ints', IR
            NFAIL = NFAIL + 1
         END IF
         IF (DR(1) .NE. PREV + 0.5D0 .OR. DR(2) .NE. I * 2.25D0) THEN
            PRINT *, 'FAIL doubles', DR
            NFAIL = NFAIL + 1
         END IF
 10   CONTINUE
      CALL MPI_FINALIZE(IERR)
      IF (NFAIL .EQ. 0) PRINT *, 'ok fring rank', RANK
      IF (NFAIL .NE. 0) CALL EXIT(1)
      END
