C     np: 1 2 3
C     Collectives through the Fortran 77 bindings: Bcast, Gather,
C     Allreduce out of place and with MPI_IN_PLACE, MAXLOC over
C     MPI_2DOUBLE_PRECISION with a tie, LAND over LOGICAL, and a user
C     op (a Fortran subroutine) made by MPI_OP_CREATE.
      SUBROUTINE MYMAX(IN, INOUT, LEN, TYPE)
      INTEGER LEN, TYPE, I
      INTEGER IN(LEN), INOUT(LEN)
      DO 5 I = 1, LEN
         IF (IN(I) .GT. INOUT(I)) INOUT(I) = IN(I)
 5    CONTINUE
      END

      PROGRAM FCOLL
      INCLUDE 'mpif.h'
      EXTERNAL MYMAX
      INTEGER IERR, RANK, SIZE, I, NFAIL, OP, WANT
      INTEGER B(3), S(2), R(2), ALL(8)
      DOUBLE PRECISION P(2), PO(2)
      LOGICAL L, LO
      NFAIL = 0
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, SIZE, IERR)

      DO 10 I = 1, 3
         B(I) = -1
         IF (RANK .EQ. 0) B(I) = 10 * I
 10   CONTINUE
      CALL MPI_BCAST(B, 3, MPI_INTEGER, 0, MPI_COMM_WORLD, IERR)
      IF (B(1) .NE. 10 .OR. B(3) .NE. 30) THEN
         PRINT *, 'FAIL Bcast', B
         NFAIL = NFAIL + 1
      END IF

      S(1) = RANK
      CALL MPI_GATHER(S, 1, MPI_INTEGER, ALL, 1, MPI_INTEGER, 0,
     &    MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) THEN
         DO 20 I = 1, SIZE
            IF (ALL(I) .NE. I - 1) THEN
               PRINT *, 'FAIL Gather', I, ALL(I)
               NFAIL = NFAIL + 1
            END IF
 20      CONTINUE
      END IF

      S(1) = RANK + 1
      S(2) = 2 * RANK
      CALL MPI_ALLREDUCE(S, R, 2, MPI_INTEGER, MPI_SUM,
     &    MPI_COMM_WORLD, IERR)
      IF (R(1) .NE. SIZE * (SIZE + 1) / 2 .OR.
     &    R(2) .NE. SIZE * (SIZE - 1)) THEN
         PRINT *, 'FAIL Allreduce', R
         NFAIL = NFAIL + 1
      END IF
      R(1) = RANK + 1
      R(2) = 2 * RANK
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, R, 2, MPI_INTEGER, MPI_SUM,
     &    MPI_COMM_WORLD, IERR)
      IF (R(1) .NE. SIZE * (SIZE + 1) / 2 .OR.
     &    R(2) .NE. SIZE * (SIZE - 1)) THEN
         PRINT *, 'FAIL Allreduce in place', R
         NFAIL = NFAIL + 1
      END IF

C     Value 1 on every rank but 0: the tie goes to the lowest, rank 1.
      P(1) = 1.0D0
      IF (RANK .EQ. 0) P(1) = 0.0D0
      P(2) = RANK
      CALL MPI_ALLREDUCE(P, PO, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC,
     &    MPI_COMM_WORLD, IERR)
      WANT = 1
      IF (SIZE .EQ. 1) WANT = 0
      IF (PO(2) .NE. WANT) THEN
         PRINT *, 'FAIL MAXLOC', PO
         NFAIL = NFAIL + 1
      END IF

      L = RANK .GE. 0
      CALL MPI_ALLREDUCE(L, LO, 1, MPI_LOGICAL, MPI_LAND,
     &    MPI_COMM_WORLD, IERR)
      IF (.NOT. LO) THEN
         PRINT *, 'FAIL LAND'
         NFAIL = NFAIL + 1
      END IF

      CALL MPI_OP_CREATE(MYMAX, .TRUE., OP, IERR)
      S(1) = RANK * 3
      S(2) = -RANK
      CALL MPI_ALLREDUCE(S, R, 2, MPI_INTEGER, OP, MPI_COMM_WORLD,
     &    IERR)
      IF (R(1) .NE. 3 * (SIZE - 1) .OR. R(2) .NE. 0) THEN
         PRINT *, 'FAIL user op', R
         NFAIL = NFAIL + 1
      END IF
      CALL MPI_OP_FREE(OP, IERR)

      IF (NFAIL .EQ. 0 .AND. RANK .EQ. 0) PRINT *, 'ok fcoll'
      CALL MPI_FINALIZE(IERR)
      IF (NFAIL .NE. 0) CALL EXIT(1)
      END
