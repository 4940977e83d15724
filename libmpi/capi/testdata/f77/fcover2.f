C     More generated bindings as a singleton (fcover.f has the first
C     half): the send modes and persistent forms to itself, matched
C     probes, MPI_TESTSOME, the nonblocking collectives on one rank, the
C     neighbour collectives on a self-loop distributed graph, MPI-2 type
C     constructors with address-sized arguments, the _X queries, info
C     and names.
      PROGRAM FCOVER2
      INCLUDE 'mpif.h'
      INTEGER IERR, NFAIL, I, N, M, MSG, K
      INTEGER A(8), B(8), CNT(1), DSP(1), TYP(1), REQ(4), IDX(4)
      INTEGER ST(MPI_STATUS_SIZE), STS(MPI_STATUS_SIZE, 4)
      INTEGER BUF(64), BSIZE, DG, NB(1), W(1), NB2(1), W2(1), T
      INTEGER NEWC, G, INFO, INFO2, GS(1), DI(1), DA(1), PS(1)
      INTEGER(KIND=MPI_ADDRESS_KIND) ADSP(1), STRIDE, AD2(2)
      INTEGER(KIND=MPI_COUNT_KIND) XN, XLB, XEXT
      LOGICAL FLAG
      CHARACTER*(MPI_MAX_OBJECT_NAME) NAME
      NFAIL = 0
      CALL MPI_INIT(IERR)
      DO 10 I = 1, 8
        A(I) = I
   10 CONTINUE

C     Send modes to itself: the receive is posted first.
      CALL MPI_IRECV(B, 2, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, REQ(1),
     &    IERR)
      CALL MPI_SSEND(A, 2, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, IERR)
      CALL MPI_WAIT(REQ(1), ST, IERR)
      CALL MPI_IRECV(B(3), 2, MPI_INTEGER, 0, 2, MPI_COMM_WORLD,
     &    REQ(1), IERR)
      CALL MPI_RSEND(A(3), 2, MPI_INTEGER, 0, 2, MPI_COMM_WORLD, IERR)
      CALL MPI_WAIT(REQ(1), ST, IERR)
      IF (B(2) .NE. 2 .OR. B(4) .NE. 4) CALL FAIL(NFAIL, 'ssend, rsend')
      BSIZE = 4 * 64
      CALL MPI_BUFFER_ATTACH(BUF, BSIZE, IERR)
      CALL MPI_IBSEND(A, 1, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, REQ(1),
     &    IERR)
      CALL MPI_IRECV(B(5), 1, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, REQ(2),
     &    IERR)
      CALL MPI_IRSEND(A(2), 1, MPI_INTEGER, 0, 4, MPI_COMM_WORLD,
     &    REQ(3), IERR)
      CALL MPI_RECV(B(6), 1, MPI_INTEGER, 0, 4, MPI_COMM_WORLD, ST,
     &    IERR)
      CALL MPI_WAITALL(3, REQ, STS, IERR)
      IF (B(5) .NE. 1 .OR. B(6) .NE. 2)
     &    CALL FAIL(NFAIL, 'ibsend, irsend')
C     The persistent send modes, MPI_START and MPI_TESTSOME.
      CALL MPI_BSEND_INIT(A, 1, MPI_INTEGER, 0, 5, MPI_COMM_WORLD,
     &    REQ(1), IERR)
      CALL MPI_SSEND_INIT(A(2), 1, MPI_INTEGER, 0, 6, MPI_COMM_WORLD,
     &    REQ(2), IERR)
      CALL MPI_RSEND_INIT(A(3), 1, MPI_INTEGER, 0, 7, MPI_COMM_WORLD,
     &    REQ(3), IERR)
      CALL MPI_IRECV(B, 3, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, REQ(4),
     &    IERR)
      DO 20 I = 1, 3
        CALL MPI_START(REQ(I), IERR)
   20 CONTINUE
      CALL MPI_RECV(B(2), 1, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, ST,
     &    IERR)
      CALL MPI_RECV(B(3), 1, MPI_INTEGER, 0, 6, MPI_COMM_WORLD, ST,
     &    IERR)
      N = 0
      K = 0
   30 CALL MPI_TESTSOME(4, REQ, M, IDX, STS, IERR)
      IF (M .NE. MPI_UNDEFINED) N = N + M
      IF (M .GT. 0) K = MAX(K, IDX(1))
      IF (N .LT. 4 .AND. M .NE. MPI_UNDEFINED) GO TO 30
      IF (N .NE. 4 .OR. K .LT. 1 .OR. K .GT. 4 .OR. B(1) .NE. 3 .OR.
     &    B(2) .NE. 1 .OR. B(3) .NE. 2) CALL FAIL(NFAIL, 'testsome')
      DO 40 I = 1, 3
        CALL MPI_REQUEST_FREE(REQ(I), IERR)
   40 CONTINUE
      CALL MPI_BUFFER_DETACH(BUF, BSIZE, IERR)

C     Matched probes.
      CALL MPI_SEND(A, 3, MPI_INTEGER, 0, 8, MPI_COMM_WORLD, IERR)
      CALL MPI_MPROBE(0, 8, MPI_COMM_WORLD, MSG, ST, IERR)
      CALL MPI_MRECV(B, 3, MPI_INTEGER, MSG, ST, IERR)
      IF (B(3) .NE. 3 .OR. MSG .NE. MPI_MESSAGE_NULL)
     &    CALL FAIL(NFAIL, 'mprobe, mrecv')
      CALL MPI_SEND(A(4), 1, MPI_INTEGER, 0, 9, MPI_COMM_WORLD, IERR)
      CALL MPI_IMPROBE(0, 9, MPI_COMM_WORLD, FLAG, MSG, ST, IERR)
      IF (.NOT. FLAG) CALL FAIL(NFAIL, 'improbe')
      CALL MPI_IMRECV(B, 1, MPI_INTEGER, MSG, REQ(1), IERR)
      CALL MPI_WAIT(REQ(1), ST, IERR)
      IF (B(1) .NE. 4) CALL FAIL(NFAIL, 'imrecv')

C     Nonblocking collectives on one rank.
      CNT(1) = 2
      DSP(1) = 0
      TYP(1) = MPI_INTEGER
      CALL MPI_IGATHER(A, 2, MPI_INTEGER, B, 2, MPI_INTEGER, 0,
     &    MPI_COMM_WORLD, REQ(1), IERR)
      CALL MPI_WAIT(REQ(1), ST, IERR)
      CALL MPI_IGATHERV(A, 2, MPI_INTEGER, B, CNT, DSP, MPI_INTEGER, 0,
     &    MPI_COMM_WORLD, REQ(1), IERR)
      CALL MPI_WAIT(REQ(1), ST, IERR)
      CALL MPI_ISCATTER(A, 2, MPI_INTEGER, B, 2, MPI_INTEGER, 0,
     &    MPI_COMM_WORLD, REQ(1), IERR)
      CALL MPI_WAIT(REQ(1), ST, IERR)
      CALL MPI_ISCATTERV(A, CNT, DSP, MPI_INTEGER, B, 2, MPI_INTEGER,
     &    0, MPI_COMM_WORLD, REQ(1), IERR)
      CALL MPI_WAIT(REQ(1), ST, IERR)
      CALL MPI_IALLGATHER(A, 2, MPI_INTEGER, B, 2, MPI_INTEGER,
     &    MPI_COMM_WORLD, REQ(1), IERR)
      CALL MPI_WAIT(REQ(1), ST, IERR)
      CALL MPI_IALLGATHERV(A, 2, MPI_INTEGER, B, CNT, DSP, MPI_INTEGER,
     &    MPI_COMM_WORLD, REQ(1), IERR)
      CALL MPI_WAIT(REQ(1), ST, IERR)
      CALL MPI_IALLTOALL(A, 2, MPI_INTEGER, B, 2, MPI_INTEGER,
     &    MPI_COMM_WORLD, REQ(1), IERR)
      CALL MPI_WAIT(REQ(1), ST, IERR)
      CALL MPI_IALLTOALLV(A, CNT, DSP, MPI_INTEGER, B, CNT, DSP,
     &    MPI_INTEGER, MPI_COMM_WORLD, REQ(1), IERR)
      CALL MPI_WAIT(REQ(1), ST, IERR)
      IF (B(1) .NE. 1 .OR. B(2) .NE. 2) CALL FAIL(NFAIL, 'igather ..')
      B(1) = 0
      DSP(1) = 4
      CALL MPI_IALLTOALLW(A, CNT, DSP, TYP, B, CNT, DSP, TYP,
     &    MPI_COMM_WORLD, REQ(1), IERR)
      CALL MPI_WAIT(REQ(1), ST, IERR)
      IF (B(1) .NE. 0 .OR. B(2) .NE. 2 .OR. B(3) .NE. 3)
     &    CALL FAIL(NFAIL, 'ialltoallw')
      DSP(1) = 0
      CALL MPI_IREDUCE(A, B, 2, MPI_INTEGER, MPI_SUM, 0,
     &    MPI_COMM_WORLD, REQ(1), IERR)
      CALL MPI_WAIT(REQ(1), ST, IERR)
      CALL MPI_IREDUCE_SCATTER(A, B, CNT, MPI_INTEGER, MPI_SUM,
     &    MPI_COMM_WORLD, REQ(1), IERR)
      CALL MPI_WAIT(REQ(1), ST, IERR)
      CALL MPI_IREDUCE_SCATTER_BLOCK(A, B, 2, MPI_INTEGER, MPI_SUM,
     &    MPI_COMM_WORLD, REQ(1), IERR)
      CALL MPI_WAIT(REQ(1), ST, IERR)
      CALL MPI_ISCAN(A, B, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD,
     &    REQ(1), IERR)
      CALL MPI_WAIT(REQ(1), ST, IERR)
      IF (B(1) .NE. 1 .OR. B(2) .NE. 2) CALL FAIL(NFAIL, 'ireduce ..')
      CALL MPI_IEXSCAN(A, B, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD,
     &    REQ(1), IERR)
      CALL MPI_WAIT(REQ(1), ST, IERR)
      IF (IERR .NE. MPI_SUCCESS) CALL FAIL(NFAIL, 'iexscan')

C     Communicators: info, idup, create_group.
      CALL MPI_INFO_CREATE(INFO, IERR)
      CALL MPI_INFO_SET(INFO, 'fcover2', 'yes', IERR)
      CALL MPI_COMM_IDUP(MPI_COMM_WORLD, NEWC, REQ(1), IERR)
      CALL MPI_WAIT(REQ(1), ST, IERR)
      CALL MPI_COMM_SET_INFO(NEWC, INFO, IERR)
      CALL MPI_COMM_GET_INFO(NEWC, INFO2, IERR)
      IF (IERR .NE. MPI_SUCCESS .OR. INFO2 .EQ. MPI_INFO_NULL)
     &    CALL FAIL(NFAIL, 'comm_idup, set_info, get_info')
      CALL MPI_INFO_FREE(INFO2, IERR)
      CALL MPI_INFO_FREE(INFO, IERR)
      CALL MPI_COMM_FREE(NEWC, IERR)
      CALL MPI_COMM_GROUP(MPI_COMM_WORLD, G, IERR)
      CALL MPI_COMM_CREATE_GROUP(MPI_COMM_WORLD, G, 7, NEWC, IERR)
      CALL MPI_COMM_SIZE(NEWC, N, IERR)
      IF (N .NE. 1) CALL FAIL(NFAIL, 'comm_create_group')
      CALL MPI_COMM_FREE(NEWC, IERR)
      CALL MPI_GROUP_FREE(G, IERR)

C     Neighbour collectives on a self-loop distributed graph.
      NB(1) = 0
      W(1) = 1
      CNT(1) = 1
      CALL MPI_DIST_GRAPH_CREATE(MPI_COMM_WORLD, 1, NB, CNT, NB, W,
     &    MPI_INFO_NULL, .FALSE., DG, IERR)
      CALL MPI_DIST_GRAPH_NEIGHBORS(DG, 1, NB2, W2, 1, NB2, W2, IERR)
      IF (NB2(1) .NE. 0 .OR. W2(1) .NE. 1)
     &    CALL FAIL(NFAIL, 'dist_graph_create, neighbors')
      CNT(1) = 2
      DSP(1) = 0
      ADSP(1) = 0
      B(1) = 0
      CALL MPI_NEIGHBOR_ALLGATHERV(A, 2, MPI_INTEGER, B, CNT, DSP,
     &    MPI_INTEGER, DG, IERR)
      CALL MPI_NEIGHBOR_ALLTOALL(A, 2, MPI_INTEGER, B, 2, MPI_INTEGER,
     &    DG, IERR)
      CALL MPI_NEIGHBOR_ALLTOALLV(A, CNT, DSP, MPI_INTEGER, B, CNT,
     &    DSP, MPI_INTEGER, DG, IERR)
      CALL MPI_NEIGHBOR_ALLTOALLW(A, CNT, ADSP, TYP, B, CNT, ADSP, TYP,
     &    DG, IERR)
      IF (B(1) .NE. 1 .OR. B(2) .NE. 2) CALL FAIL(NFAIL, 'neighbor_*')
      B(1) = 0
      CALL MPI_INEIGHBOR_ALLGATHER(A, 2, MPI_INTEGER, B, 2,
     &    MPI_INTEGER, DG, REQ(1), IERR)
      CALL MPI_WAIT(REQ(1), ST, IERR)
      CALL MPI_INEIGHBOR_ALLGATHERV(A, 2, MPI_INTEGER, B, CNT, DSP,
     &    MPI_INTEGER, DG, REQ(1), IERR)
      CALL MPI_WAIT(REQ(1), ST, IERR)
      CALL MPI_INEIGHBOR_ALLTOALL(A, 2, MPI_INTEGER, B, 2, MPI_INTEGER,
     &    DG, REQ(1), IERR)
      CALL MPI_WAIT(REQ(1), ST, IERR)
      CALL MPI_INEIGHBOR_ALLTOALLV(A, CNT, DSP, MPI_INTEGER, B, CNT,
     &    DSP, MPI_INTEGER, DG, REQ(1), IERR)
      CALL MPI_WAIT(REQ(1), ST, IERR)
      CALL MPI_INEIGHBOR_ALLTOALLW(A, CNT, ADSP, TYP, B, CNT, ADSP,
     &    TYP, DG, REQ(1), IERR)
      CALL MPI_WAIT(REQ(1), ST, IERR)
      IF (B(1) .NE. 1 .OR. B(2) .NE. 2) CALL FAIL(NFAIL, 'ineighbor_*')
      CALL MPI_COMM_FREE(DG, IERR)

C     MPI-2 constructors with address-sized arguments, the _X queries.
      STRIDE = 12
      CALL MPI_TYPE_CREATE_HVECTOR(2, 1, STRIDE, MPI_INTEGER, T, IERR)
      CALL MPI_TYPE_GET_EXTENT_X(T, XLB, XEXT, IERR)
      IF (XLB .NE. 0 .OR. XEXT .NE. 16) CALL FAIL(NFAIL, 'hvector')
      CALL MPI_TYPE_FREE(T, IERR)
      AD2(1) = 8
      AD2(2) = 0
      NB2(1) = 1
      CNT(1) = 1
      CALL MPI_TYPE_CREATE_HINDEXED(1, CNT, AD2, MPI_INTEGER, T, IERR)
      CALL MPI_TYPE_GET_TRUE_EXTENT_X(T, XLB, XEXT, IERR)
      IF (XLB .NE. 8 .OR. XEXT .NE. 4) CALL FAIL(NFAIL, 'hindexed')
      CALL MPI_TYPE_FREE(T, IERR)
      DSP(1) = 2
      CALL MPI_TYPE_CREATE_INDEXED_BLOCK(1, 2, DSP, MPI_INTEGER, T,
     &    IERR)
      CALL MPI_TYPE_GET_TRUE_EXTENT_X(T, XLB, XEXT, IERR)
      IF (XLB .NE. 8 .OR. XEXT .NE. 8) CALL FAIL(NFAIL, 'indexed_block')
      CALL MPI_TYPE_FREE(T, IERR)
      CALL MPI_TYPE_CREATE_HINDEXED_BLOCK(2, 1, AD2, MPI_INTEGER, T,
     &    IERR)
      CALL MPI_TYPE_GET_EXTENT_X(T, XLB, XEXT, IERR)
      IF (XLB .NE. 0 .OR. XEXT .NE. 12)
     &    CALL FAIL(NFAIL, 'hindexed_block')
      CALL MPI_TYPE_FREE(T, IERR)
      GS(1) = 4
      DI(1) = MPI_DISTRIBUTE_BLOCK
      DA(1) = MPI_DISTRIBUTE_DFLT_DARG
      PS(1) = 1
      CALL MPI_TYPE_CREATE_DARRAY(1, 0, 1, GS, DI, DA, PS,
     &    MPI_ORDER_FORTRAN, MPI_INTEGER, T, IERR)
      CALL MPI_TYPE_SIZE(T, N, IERR)
      IF (N .NE. 16) CALL FAIL(NFAIL, 'darray')
      CALL MPI_TYPE_SET_NAME(T, 'fcover2 darray', IERR)
      CALL MPI_TYPE_GET_NAME(T, NAME, N, IERR)
      IF (NAME .NE. 'fcover2 darray' .OR. N .NE. 14)
     &    CALL FAIL(NFAIL, 'type_set_name')
      CALL MPI_TYPE_FREE(T, IERR)
      XN = 65536
      XN = XN * XN
      CALL MPI_STATUS_SET_ELEMENTS_X(ST, MPI_BYTE, XN, IERR)
      XEXT = 0
      CALL MPI_GET_ELEMENTS_X(ST, MPI_BYTE, XEXT, IERR)
      CALL MPI_GET_COUNT(ST, MPI_BYTE, N, IERR)
      IF (XEXT .NE. XN .OR. N .NE. MPI_UNDEFINED)
     &    CALL FAIL(NFAIL, 'status_set_elements_x, get_elements_x')

      CALL MPI_FINALIZE(IERR)
      IF (NFAIL .EQ. 0) PRINT *, 'ok fcover2'
      IF (NFAIL .NE. 0) CALL EXIT(1)
      END

      SUBROUTINE FAIL(NFAIL, WHAT)
      INTEGER NFAIL
      CHARACTER*(*) WHAT
      PRINT *, 'FAIL ', WHAT
      NFAIL = NFAIL + 1
      END
