C     Derived datatypes from Fortran 77: a row of a column-major matrix
C     as a vector, its size and extent, packed and unpacked; a Fortran
C     order subarray; MPI_TYPE_FREE nulls the handle.
      PROGRAM FDTYPE
      INCLUDE 'mpif.h'
      INTEGER IERR, A(4,5), ROW, SUB, SZ, POS, I, J, B(5)
      INTEGER SIZES(2), SUBS(2), STARTS(2)
      INTEGER(KIND=MPI_ADDRESS_KIND) LB, EXT
      CHARACTER BUF(64)
      INTEGER NFAIL
      NFAIL = 0
      CALL MPI_INIT(IERR)
      DO 11 J = 1, 5
      DO 10 I = 1, 4
         A(I,J) = 10*I + J
   10 CONTINUE
   11 CONTINUE
C     Row 2: 5 integers 4 apart.
      CALL MPI_TYPE_VECTOR(5, 1, 4, MPI_INTEGER, ROW, IERR)
      CALL MPI_TYPE_COMMIT(ROW, IERR)
      CALL MPI_TYPE_SIZE(ROW, SZ, IERR)
      IF (SZ .NE. 20) CALL FAIL(NFAIL, 'vector size')
      CALL MPI_TYPE_GET_EXTENT(ROW, LB, EXT, IERR)
      IF (LB .NE. 0 .OR. EXT .NE. 68) CALL FAIL(NFAIL, 'extent')
      POS = 0
      CALL MPI_PACK(A(2,1), 1, ROW, BUF, 64, POS, MPI_COMM_WORLD,
     &    IERR)
      IF (POS .NE. 20) CALL FAIL(NFAIL, 'pack position')
      POS = 0
      CALL MPI_UNPACK(BUF, 64, POS, B, 5, MPI_INTEGER,
     &    MPI_COMM_WORLD, IERR)
      DO 20 J = 1, 5
         IF (B(J) .NE. 20 + J) CALL FAIL(NFAIL, 'row unpacked')
   20 CONTINUE
      CALL MPI_TYPE_FREE(ROW, IERR)
      IF (ROW .NE. MPI_DATATYPE_NULL) CALL FAIL(NFAIL, 'free')
C     A(2:3, 2:4): the data from A(2,2) to A(3,4).
      SIZES(1) = 4
      SIZES(2) = 5
      SUBS(1) = 2
      SUBS(2) = 3
      STARTS(1) = 1
      STARTS(2) = 1
      CALL MPI_TYPE_CREATE_SUBARRAY(2, SIZES, SUBS, STARTS,
     &    MPI_ORDER_FORTRAN, MPI_INTEGER, SUB, IERR)
      CALL MPI_TYPE_COMMIT(SUB, IERR)
      CALL MPI_TYPE_GET_TRUE_EXTENT(SUB, LB, EXT, IERR)
      IF (LB .NE. 20 .OR. EXT .NE. 40) CALL FAIL(NFAIL, 'true extent')
      POS = 0
      CALL MPI_PACK(A, 1, SUB, BUF, 64, POS, MPI_COMM_WORLD, IERR)
      POS = 0
      CALL MPI_UNPACK(BUF, 64, POS, B, 5, MPI_INTEGER,
     &    MPI_COMM_WORLD, IERR)
      IF (B(1) .NE. 22 .OR. B(2) .NE. 32 .OR. B(3) .NE. 23
     &    .OR. B(5) .NE. 24) CALL FAIL(NFAIL, 'subarray order')
      CALL MPI_TYPE_FREE(SUB, IERR)
      CALL MPI_FINALIZE(IERR)
      IF (NFAIL .EQ. 0) PRINT *, 'ok fdtype'
      IF (NFAIL .NE. 0) CALL EXIT(1)
      END

      SUBROUTINE FAIL(NFAIL, WHAT)
      INTEGER NFAIL
      CHARACTER*(*) WHAT
      PRINT *, 'FAIL ', WHAT
      NFAIL = NFAIL + 1
      END
