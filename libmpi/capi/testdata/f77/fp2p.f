C     Requests, buffered mode and error handlers from Fortran 77, as a
C     singleton sending to itself: WAITANY and WAITSOME give indices
C     from 1, MPI_UNDEFINED when nothing is active; a Fortran error
C     handler gets the communicator and the code.
      PROGRAM FP2P
      INCLUDE 'mpif.h'
      INTEGER IERR, PROV, REQ(3), IDX, N, IND(3), K, NDONE
      INTEGER ST(MPI_STATUS_SIZE), STS(MPI_STATUS_SIZE, 3)
      INTEGER A(4), B(4), C(4), EH, CLS, LEN, BSIZE
      CHARACTER BUF(200)
      CHARACTER*(MPI_MAX_LIBRARY_VERSION_STRING) VER
      LOGICAL FLAG
      EXTERNAL HANDLER
      INTEGER NFAIL, CALLS, LASTC, LASTCOMM
      COMMON /EHC/ CALLS, LASTC, LASTCOMM
      NFAIL = 0
      CALLS = 0
      CALL MPI_INIT_THREAD(MPI_THREAD_SINGLE, PROV, IERR)
      IF (IERR .NE. MPI_SUCCESS .OR. PROV .LT. MPI_THREAD_SINGLE)
     &    CALL FAIL(NFAIL, 'init_thread')
      CALL MPI_GET_LIBRARY_VERSION(VER, LEN, IERR)
      IF (LEN .LE. 0) CALL FAIL(NFAIL, 'library version')
      CALL MPI_PCONTROL(1, IERR)
      IF (IERR .NE. MPI_SUCCESS) CALL FAIL(NFAIL, 'pcontrol')
      DO 10 K = 1, 4
         A(K) = K
         B(K) = 0
         C(K) = 0
   10 CONTINUE
C     A null, a receive and a send: WAITANY's index counts from 1.
      REQ(1) = MPI_REQUEST_NULL
      CALL MPI_IRECV(B, 4, MPI_INTEGER, 0, 1, MPI_COMM_WORLD,
     &    REQ(2), IERR)
      CALL MPI_ISEND(A, 4, MPI_INTEGER, 0, 1, MPI_COMM_WORLD,
     &    REQ(3), IERR)
      NDONE = 0
      DO 20 K = 1, 2
         CALL MPI_WAITANY(3, REQ, IDX, ST, IERR)
         IF (IDX .NE. 2 .AND. IDX .NE. 3) CALL FAIL(NFAIL, 'waitany')
         IF (REQ(IDX) .NE. MPI_REQUEST_NULL)
     &       CALL FAIL(NFAIL, 'waitany null')
   20 CONTINUE
      CALL MPI_WAITANY(3, REQ, IDX, ST, IERR)
      IF (IDX .NE. MPI_UNDEFINED) CALL FAIL(NFAIL, 'waitany undef')
      IF (B(4) .NE. 4) CALL FAIL(NFAIL, 'received')
C     WAITSOME and TESTANY.
      CALL MPI_IRECV(C, 4, MPI_INTEGER, 0, 2, MPI_COMM_WORLD,
     &    REQ(3), IERR)
      CALL MPI_SEND(A, 4, MPI_INTEGER, 0, 2, MPI_COMM_WORLD, IERR)
      CALL MPI_WAITSOME(3, REQ, N, IND, STS, IERR)
      IF (N .NE. 1 .OR. IND(1) .NE. 3) CALL FAIL(NFAIL, 'waitsome')
      IF (STS(MPI_TAG, 1) .NE. 2) CALL FAIL(NFAIL, 'waitsome status')
      CALL MPI_TESTANY(3, REQ, IDX, FLAG, ST, IERR)
      IF (.NOT. FLAG .OR. IDX .NE. MPI_UNDEFINED)
     &    CALL FAIL(NFAIL, 'testany')
C     Buffered mode.
      BSIZE = 200
      CALL MPI_BUFFER_ATTACH(BUF, BSIZE, IERR)
      CALL MPI_BSEND(A, 4, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, IERR)
      CALL MPI_RECV(C, 4, MPI_INTEGER, 0, 3, MPI_COMM_WORLD,
     &    MPI_STATUS_IGNORE, IERR)
      CALL MPI_BUFFER_DETACH(BUF, BSIZE, IERR)
      IF (IERR .NE. MPI_SUCCESS .OR. BSIZE .NE. 200)
     &    CALL FAIL(NFAIL, 'buffer detach')
C     Error handlers.
      CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN,
     &    IERR)
      CALL MPI_SEND(A, 1, MPI_INTEGER, 5, 0, MPI_COMM_WORLD, IERR)
      CALL MPI_ERROR_CLASS(IERR, CLS, K)
      IF (CLS .NE. MPI_ERR_RANK) CALL FAIL(NFAIL, 'errors return')
      CALL MPI_COMM_CREATE_ERRHANDLER(HANDLER, EH, IERR)
      CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, EH, IERR)
      CALL MPI_SEND(A, 1, MPI_INTEGER, 5, 0, MPI_COMM_WORLD, IERR)
      IF (CALLS .NE. 1 .OR. LASTC .NE. IERR .OR.
     &    LASTCOMM .NE. MPI_COMM_WORLD) CALL FAIL(NFAIL, 'handler')
      CALL MPI_ERRHANDLER_FREE(EH, IERR)
      CALL MPI_FINALIZE(IERR)
      IF (NFAIL .EQ. 0) PRINT *, 'ok fp2p'
      IF (NFAIL .NE. 0) CALL EXIT(1)
      END

      SUBROUTINE HANDLER(COMM, CODE)
      INTEGER COMM, CODE
      INTEGER CALLS, LASTC, LASTCOMM
      COMMON /EHC/ CALLS, LASTC, LASTCOMM
      CALLS = CALLS + 1
      LASTC = CODE
      LASTCOMM = COMM
      END

      SUBROUTINE FAIL(NFAIL, WHAT)
      INTEGER NFAIL
      CHARACTER*(*) WHAT
      PRINT *, 'FAIL ', WHAT
      NFAIL = NFAIL + 1
      END
