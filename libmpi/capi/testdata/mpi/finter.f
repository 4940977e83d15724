C     np: 2 4
C     Intercommunicators from Fortran: the even and the odd ranks of
C     the world, MPI_INTERCOMM_CREATE between them, the remote group's
C     size and group, a message to the other side, MPI_INTERCOMM_MERGE
C     with the odd ranks high.
      PROGRAM FINTER
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, SIZE, COLOR, LOCAL, INTER, MERGED, NFAIL
      INTEGER N, M, G, X, Y, ALL, ST(MPI_STATUS_SIZE)
      LOGICAL FLAG
      NFAIL = 0
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, SIZE, IERR)
      COLOR = MOD(RANK, 2)
      CALL MPI_COMM_SPLIT(MPI_COMM_WORLD, COLOR, RANK, LOCAL, IERR)
C     The leaders are world ranks 0 and 1.
      CALL MPI_INTERCOMM_CREATE(LOCAL, 0, MPI_COMM_WORLD, 1 - COLOR, 5,
     &    INTER, IERR)
      IF (IERR .NE. MPI_SUCCESS) CALL FAIL(NFAIL, 'intercomm_create')
      CALL MPI_COMM_TEST_INTER(INTER, FLAG, IERR)
      IF (.NOT. FLAG) CALL FAIL(NFAIL, 'test_inter')
      CALL MPI_COMM_REMOTE_SIZE(INTER, N, IERR)
      CALL MPI_COMM_REMOTE_GROUP(INTER, G, IERR)
      CALL MPI_GROUP_SIZE(G, M, IERR)
      CALL MPI_GROUP_FREE(G, IERR)
C     The odd ranks are SIZE/2, the even ones the rest.
      IF (COLOR .EQ. 0 .AND. N .NE. SIZE / 2 .OR.
     &    COLOR .EQ. 1 .AND. N .NE. SIZE - SIZE / 2 .OR. M .NE. N)
     &    CALL FAIL(NFAIL, 'remote size and group')
C     Each side's rank 0 sends its world rank to the other's rank 0.
      CALL MPI_COMM_RANK(LOCAL, N, IERR)
      IF (N .EQ. 0) THEN
        X = RANK
        Y = -1
        CALL MPI_SENDRECV(X, 1, MPI_INTEGER, 0, 6, Y, 1, MPI_INTEGER,
     &      0, 6, INTER, ST, IERR)
        IF (Y .NE. 1 - COLOR .OR. ST(MPI_SOURCE) .NE. 0)
     &      CALL FAIL(NFAIL, 'a message across')
      END IF
      CALL MPI_INTERCOMM_MERGE(INTER, COLOR .EQ. 1, MERGED, IERR)
      CALL MPI_COMM_SIZE(MERGED, M, IERR)
      CALL MPI_COMM_RANK(MERGED, N, IERR)
C     Low (even) ranks first, each side in its local order.
      IF (M .NE. SIZE .OR. COLOR .EQ. 0 .AND. N .NE. RANK / 2 .OR.
     &    COLOR .EQ. 1 .AND. N .NE. (SIZE + 1) / 2 + RANK / 2)
     &    CALL FAIL(NFAIL, 'merge')
      CALL MPI_COMM_FREE(MERGED, IERR)
      CALL MPI_COMM_FREE(INTER, IERR)
      CALL MPI_COMM_FREE(LOCAL, IERR)
      CALL MPI_ALLREDUCE(NFAIL, ALL, 1, MPI_INTEGER, MPI_SUM,
     &    MPI_COMM_WORLD, IERR)
      CALL MPI_FINALIZE(IERR)
      IF (RANK .EQ. 0 .AND. ALL .EQ. 0) PRINT *, 'ok finter'
      IF (NFAIL .NE. 0) CALL EXIT(1)
      END

      SUBROUTINE FAIL(NFAIL, WHAT)
      INTEGER NFAIL
      CHARACTER*(*) WHAT
      PRINT *, 'FAIL ', WHAT
      NFAIL = NFAIL + 1
      END
