C     MPI-1's MPI_ADDRESS returns an INTEGER: an address that fits is
C     MPI_GET_ADDRESS's, one that does not (any address of a PIE
C     program on x86-64) is MPI_ERR_ARG through MPI_COMM_WORLD's error
C     handler, never a truncated value. With the argument "fatal" the
C     world keeps MPI_ERRORS_ARE_FATAL and the program aborts in
C     MPI_ADDRESS if the address does not fit (the test reads the
C     message). It prints which case it saw.
      PROGRAM FADDR
      INCLUDE 'mpif.h'
      EXTERNAL HANDLR
      INTEGER IERR, A, CLS, EH, NFAIL, X(4)
      INTEGER NCALL, LASTC
      INTEGER(KIND=MPI_ADDRESS_KIND) G
      CHARACTER*16 ARG
      COMMON /BLK/ X
      COMMON /EHLOG/ NCALL, LASTC
      NFAIL = 0
      NCALL = 0
      CALL MPI_INIT(IERR)
      CALL GET_COMMAND_ARGUMENT(1, ARG)
      IF (ARG .NE. 'fatal') THEN
        CALL MPI_COMM_CREATE_ERRHANDLER(HANDLR, EH, IERR)
        CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, EH, IERR)
      END IF
      CALL MPI_GET_ADDRESS(X, G, IERR)
      A = -1
      CALL MPI_ADDRESS(X, A, IERR)
      IF (G .GE. -2147483648_MPI_ADDRESS_KIND .AND.
     &    G .LE. 2147483647_MPI_ADDRESS_KIND) THEN
        IF (IERR .NE. MPI_SUCCESS .OR. A .NE. G)
     &      CALL FAIL(NFAIL, 'an address that fits')
        IF (NCALL .NE. 0) CALL FAIL(NFAIL, 'handler called')
        PRINT *, 'address fits'
      ELSE
        CALL MPI_ERROR_CLASS(IERR, CLS, EH)
        IF (CLS .NE. MPI_ERR_ARG) CALL FAIL(NFAIL, 'not MPI_ERR_ARG')
        IF (A .NE. -1) CALL FAIL(NFAIL, 'ADDRESS written')
        IF (NCALL .NE. 1 .OR. LASTC .NE. IERR)
     &      CALL FAIL(NFAIL, 'world handler not called once')
        PRINT *, 'address does not fit'
      END IF
      CALL MPI_FINALIZE(IERR)
      IF (NFAIL .EQ. 0) PRINT *, 'ok faddr'
      IF (NFAIL .NE. 0) CALL EXIT(1)
      END

      SUBROUTINE HANDLR(COMM, CODE)
      INTEGER COMM, CODE
      INTEGER NCALL, LASTC
      COMMON /EHLOG/ NCALL, LASTC
      NCALL = NCALL + 1
      LASTC = CODE
      END

      SUBROUTINE FAIL(NFAIL, WHAT)
      INTEGER NFAIL
      CHARACTER*(*) WHAT
      PRINT *, 'FAIL ', WHAT
      NFAIL = NFAIL + 1
      END
