C     The generated Fortran bindings' argument shapes as a singleton:
C     arrays of counts, displacements, datatypes and ranks, LOGICAL
C     arrays and flags, address-sized arrays, statuses and requests,
C     through the collectives on one rank, point-to-point to itself,
C     groups, topologies, datatypes, error classes and handlers, Info.
      PROGRAM FCOVER
      INCLUDE 'mpif.h'
      EXTERNAL EHFN
      INTEGER IERR, NFAIL, I, N, M, V, SV, FLAGI
      INTEGER A(8), B(8), C(8), CNT(1), DSP(1), TYP(1), REQ(2)
      INTEGER ST(MPI_STATUS_SIZE), STS(MPI_STATUS_SIZE, 2)
      INTEGER G, G2, G3, RNG(3, 1), NEWC, CART, GR, DG, T, T2
      INTEGER DIMS(1), NB(2), W(1), EH, EH2, CLS, CODE, INFO, INFO2
      INTEGER(KIND=MPI_ADDRESS_KIND) ADS(2), AADDR(4)
      INTEGER(KIND=MPI_COUNT_KIND) XS
      INTEGER INTS(8), TYPES(4)
      LOGICAL FLAG, PER(1), REM(1)
      DOUBLE PRECISION D(2)
      INTEGER NEH, LASTC
      COMMON /EHLOG/ NEH, LASTC
      NFAIL = 0
      NEH = 0
      CALL MPI_INIT(IERR)
      CALL MPI_GET_VERSION(V, SV, IERR)
      IF (V .LT. 1) CALL FAIL(NFAIL, 'get_version')
      CALL MPI_QUERY_THREAD(I, IERR)
      IF (I .LT. MPI_THREAD_SINGLE) CALL FAIL(NFAIL, 'query_thread')
      CALL MPI_IS_THREAD_MAIN(FLAG, IERR)
      IF (.NOT. FLAG) CALL FAIL(NFAIL, 'is_thread_main')
      DO 10 I = 1, 8
        A(I) = I
        B(I) = 0
   10 CONTINUE

C     Collectives on one rank.
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      CNT(1) = 3
      DSP(1) = 0
      CALL MPI_SCATTER(A, 3, MPI_INTEGER, B, 3, MPI_INTEGER, 0,
     &    MPI_COMM_WORLD, IERR)
      IF (B(3) .NE. 3) CALL FAIL(NFAIL, 'scatter')
      CALL MPI_GATHERV(A, 3, MPI_INTEGER, B, CNT, DSP, MPI_INTEGER, 0,
     &    MPI_COMM_WORLD, IERR)
      CALL MPI_SCATTERV(A, CNT, DSP, MPI_INTEGER, B, 3, MPI_INTEGER, 0,
     &    MPI_COMM_WORLD, IERR)
      CALL MPI_ALLGATHER(A, 2, MPI_INTEGER, B, 2, MPI_INTEGER,
     &    MPI_COMM_WORLD, IERR)
      CALL MPI_ALLGATHERV(A, 3, MPI_INTEGER, B, CNT, DSP, MPI_INTEGER,
     &    MPI_COMM_WORLD, IERR)
      CALL MPI_ALLTOALL(A, 3, MPI_INTEGER, B, 3, MPI_INTEGER,
     &    MPI_COMM_WORLD, IERR)
      CALL MPI_ALLTOALLV(A, CNT, DSP, MPI_INTEGER, B, CNT, DSP,
     &    MPI_INTEGER, MPI_COMM_WORLD, IERR)
      IF (IERR .NE. MPI_SUCCESS .OR. B(3) .NE. 3)
     &    CALL FAIL(NFAIL, 'gatherv .. alltoallv')
      B(1) = 0
      CNT(1) = 2
      DSP(1) = 4
      TYP(1) = MPI_INTEGER
      CALL MPI_ALLTOALLW(A, CNT, DSP, TYP, B, CNT, DSP, TYP,
     &    MPI_COMM_WORLD, IERR)
      IF (B(2) .NE. 2 .OR. B(3) .NE. 3 .OR. B(1) .NE. 0)
     &    CALL FAIL(NFAIL, 'alltoallw byte displacements')
      CNT(1) = 3
      DSP(1) = 0
      CALL MPI_REDUCE_SCATTER(A, B, CNT, MPI_INTEGER, MPI_SUM,
     &    MPI_COMM_WORLD, IERR)
      CALL MPI_REDUCE_SCATTER_BLOCK(A, B, 3, MPI_INTEGER, MPI_SUM,
     &    MPI_COMM_WORLD, IERR)
      CALL MPI_SCAN(A, B, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD,
     &    IERR)
      IF (B(3) .NE. 3) CALL FAIL(NFAIL, 'reduce_scatter(_block), scan')
      CALL MPI_EXSCAN(A, B, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD,
     &    IERR)
      IF (IERR .NE. MPI_SUCCESS) CALL FAIL(NFAIL, 'exscan')
      C(1) = 10
      C(2) = 20
      CALL MPI_REDUCE_LOCAL(A, C, 2, MPI_INTEGER, MPI_SUM, IERR)
      IF (C(1) .NE. 11 .OR. C(2) .NE. 22) CALL FAIL(NFAIL, 'red_local')
      CALL MPI_OP_COMMUTATIVE(MPI_SUM, FLAG, IERR)
      IF (.NOT. FLAG) CALL FAIL(NFAIL, 'op_commutative')
      CALL MPI_IBARRIER(MPI_COMM_WORLD, REQ(1), IERR)
      C(1) = 5
      CALL MPI_IALLREDUCE(C, B, 1, MPI_INTEGER, MPI_MAX,
     &    MPI_COMM_WORLD, REQ(2), IERR)
      CALL MPI_WAITALL(2, REQ, STS, IERR)
      IF (B(1) .NE. 5) CALL FAIL(NFAIL, 'ibarrier, iallreduce')
      CALL MPI_IBCAST(A, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, REQ(1),
     &    IERR)
      CALL MPI_WAIT(REQ(1), ST, IERR)

C     Point-to-point to itself.
      D(1) = 1.5D0
      D(2) = 2.5D0
      CALL MPI_SENDRECV_REPLACE(D, 2, MPI_DOUBLE_PRECISION, 0, 3, 0, 3,
     &    MPI_COMM_WORLD, ST, IERR)
      IF (D(2) .NE. 2.5D0 .OR. ST(MPI_TAG) .NE. 3)
     &    CALL FAIL(NFAIL, 'sendrecv_replace')
      CALL MPI_ISSEND(A, 4, MPI_INTEGER, 0, 4, MPI_COMM_WORLD, REQ(1),
     &    IERR)
      CALL MPI_PROBE(0, 4, MPI_COMM_WORLD, ST, IERR)
      CALL MPI_GET_COUNT(ST, MPI_INTEGER, N, IERR)
      CALL MPI_IPROBE(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
     &    FLAG, ST, IERR)
      IF (N .NE. 4 .OR. .NOT. FLAG) CALL FAIL(NFAIL, 'probe, iprobe')
      CALL MPI_IRECV(B, 4, MPI_INTEGER, 0, 4, MPI_COMM_WORLD, REQ(2),
     &    IERR)
      CALL MPI_TESTALL(2, REQ, FLAG, STS, IERR)
      IF (.NOT. FLAG) CALL MPI_WAITALL(2, REQ, STS, IERR)
      IF (B(4) .NE. 4 .OR. STS(MPI_TAG, 2) .NE. 4)
     &    CALL FAIL(NFAIL, 'issend, testall')
      CALL MPI_SEND_INIT(A, 1, MPI_INTEGER, 0, 5, MPI_COMM_WORLD,
     &    REQ(1), IERR)
      CALL MPI_RECV_INIT(B, 1, MPI_INTEGER, 0, 5, MPI_COMM_WORLD,
     &    REQ(2), IERR)
      CALL MPI_STARTALL(2, REQ, IERR)
      CALL MPI_WAITALL(2, REQ, STS, IERR)
      CALL MPI_REQUEST_GET_STATUS(REQ(2), FLAG, ST, IERR)
      IF (.NOT. FLAG) CALL FAIL(NFAIL, 'request_get_status')
      CALL MPI_REQUEST_FREE(REQ(1), IERR)
      CALL MPI_REQUEST_FREE(REQ(2), IERR)
      IF (REQ(1) .NE. MPI_REQUEST_NULL) CALL FAIL(NFAIL, 'req_free')

C     Groups and communicators.
      CALL MPI_COMM_GROUP(MPI_COMM_WORLD, G, IERR)
      NB(1) = 0
      CALL MPI_GROUP_INCL(G, 1, NB, G2, IERR)
      CALL MPI_GROUP_COMPARE(G, G2, I, IERR)
      IF (I .NE. MPI_IDENT) CALL FAIL(NFAIL, 'group_incl, compare')
      CALL MPI_GROUP_FREE(G2, IERR)
      CALL MPI_GROUP_EXCL(G, 1, NB, G2, IERR)
      CALL MPI_GROUP_SIZE(G2, N, IERR)
      IF (N .NE. 0) CALL FAIL(NFAIL, 'group_excl')
      CALL MPI_GROUP_FREE(G2, IERR)
      RNG(1, 1) = 0
      RNG(2, 1) = 0
      RNG(3, 1) = 1
      CALL MPI_GROUP_RANGE_INCL(G, 1, RNG, G2, IERR)
      CALL MPI_GROUP_SIZE(G2, N, IERR)
      IF (N .NE. 1) CALL FAIL(NFAIL, 'group_range_incl')
      CALL MPI_GROUP_RANGE_EXCL(G, 1, RNG, G3, IERR)
      CALL MPI_GROUP_UNION(G2, G3, G3, IERR)
      CALL MPI_GROUP_INTERSECTION(G, G2, G2, IERR)
      CALL MPI_GROUP_DIFFERENCE(G, G3, G3, IERR)
      CALL MPI_GROUP_SIZE(G3, N, IERR)
      CALL MPI_GROUP_TRANSLATE_RANKS(G, 1, NB, G2, M, IERR)
      IF (N .NE. 0 .OR. M .NE. 0) CALL FAIL(NFAIL, 'group algebra')
      CALL MPI_COMM_CREATE(MPI_COMM_WORLD, G2, NEWC, IERR)
      CALL MPI_COMM_TEST_INTER(NEWC, FLAG, IERR)
      IF (FLAG) CALL FAIL(NFAIL, 'comm_create, test_inter')
      CALL MPI_COMM_FREE(NEWC, IERR)
      CALL MPI_COMM_SPLIT_TYPE(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
     &    MPI_INFO_NULL, NEWC, IERR)
      CALL MPI_COMM_SIZE(NEWC, N, IERR)
      IF (N .NE. 1) CALL FAIL(NFAIL, 'comm_split_type')
      CALL MPI_COMM_FREE(NEWC, IERR)

C     Topologies.
      DIMS(1) = 1
      PER(1) = .TRUE.
      CALL MPI_CART_CREATE(MPI_COMM_WORLD, 1, DIMS, PER, .FALSE., CART,
     &    IERR)
      CALL MPI_TOPO_TEST(CART, I, IERR)
      CALL MPI_CARTDIM_GET(CART, N, IERR)
      IF (I .NE. MPI_CART .OR. N .NE. 1) CALL FAIL(NFAIL, 'cart')
      PER(1) = .FALSE.
      CALL MPI_CART_GET(CART, 1, DIMS, PER, NB, IERR)
      IF (.NOT. PER(1) .OR. DIMS(1) .NE. 1 .OR. NB(1) .NE. 0)
     &    CALL FAIL(NFAIL, 'cart_get periods')
      CALL MPI_CART_RANK(CART, NB, I, IERR)
      CALL MPI_CART_SHIFT(CART, 0, 1, N, M, IERR)
      IF (I .NE. 0 .OR. N .NE. 0 .OR. M .NE. 0)
     &    CALL FAIL(NFAIL, 'cart_rank, cart_shift')
      REM(1) = .TRUE.
      CALL MPI_CART_SUB(CART, REM, NEWC, IERR)
      CALL MPI_COMM_FREE(NEWC, IERR)
      CALL MPI_CART_MAP(MPI_COMM_WORLD, 1, DIMS, PER, I, IERR)
      IF (I .NE. 0) CALL FAIL(NFAIL, 'cart_map')
      CALL MPI_COMM_FREE(CART, IERR)
      NB(1) = 1
      NB(2) = 0
      CALL MPI_GRAPH_CREATE(MPI_COMM_WORLD, 1, NB(1), NB(2), .FALSE.,
     &    GR, IERR)
      CALL MPI_GRAPHDIMS_GET(GR, N, M, IERR)
      CALL MPI_GRAPH_NEIGHBORS_COUNT(GR, 0, I, IERR)
      IF (N .NE. 1 .OR. M .NE. 1 .OR. I .NE. 1)
     &    CALL FAIL(NFAIL, 'graph')
      CALL MPI_GRAPH_NEIGHBORS(GR, 0, 1, C, IERR)
      CALL MPI_GRAPH_GET(GR, 1, 1, A(7), A(8), IERR)
      IF (C(1) .NE. 0 .OR. A(7) .NE. 1 .OR. A(8) .NE. 0)
     &    CALL FAIL(NFAIL, 'graph_neighbors, graph_get')
      CALL MPI_GRAPH_MAP(MPI_COMM_WORLD, 1, NB(1), NB(2), I, IERR)
      CALL MPI_COMM_FREE(GR, IERR)
      W(1) = 1
      NB(1) = 0
      CALL MPI_DIST_GRAPH_CREATE_ADJACENT(MPI_COMM_WORLD, 1, NB, W, 1,
     &    NB, W, MPI_INFO_NULL, .FALSE., DG, IERR)
      CALL MPI_DIST_GRAPH_NEIGHBORS_COUNT(DG, N, M, FLAG, IERR)
      IF (N .NE. 1 .OR. M .NE. 1 .OR. .NOT. FLAG)
     &    CALL FAIL(NFAIL, 'dist_graph')
      A(1) = 77
      CALL MPI_NEIGHBOR_ALLGATHER(A, 1, MPI_INTEGER, B, 1, MPI_INTEGER,
     &    DG, IERR)
      IF (B(1) .NE. 77) CALL FAIL(NFAIL, 'neighbor_allgather')
      CALL MPI_COMM_FREE(DG, IERR)
      A(1) = 1

C     Datatypes.
      CNT(1) = 2
      DSP(1) = 1
      CALL MPI_TYPE_INDEXED(1, CNT, DSP, MPI_INTEGER, T, IERR)
      CALL MPI_TYPE_SIZE_X(T, XS, IERR)
      IF (XS .NE. 8) CALL FAIL(NFAIL, 'type_indexed, size_x')
      ADS(1) = 0
      ADS(2) = 8
      NB(1) = 1
      NB(2) = 1
      TYPES(1) = MPI_DOUBLE_PRECISION
      TYPES(2) = MPI_INTEGER
      CALL MPI_TYPE_CREATE_STRUCT(2, NB, ADS, TYPES, T2, IERR)
      CALL MPI_TYPE_GET_ENVELOPE(T2, N, M, I, CODE, IERR)
      IF (N .NE. 3 .OR. M .NE. 2 .OR. I .NE. 2 .OR.
     &    CODE .NE. MPI_COMBINER_STRUCT) CALL FAIL(NFAIL, 'envelope')
      CALL MPI_TYPE_GET_CONTENTS(T2, 3, 2, 2, INTS, AADDR, TYPES, IERR)
      IF (INTS(1) .NE. 2 .OR. AADDR(2) .NE. 8 .OR.
     &    TYPES(2) .NE. MPI_INTEGER) CALL FAIL(NFAIL, 'contents')
      CALL MPI_TYPE_FREE(T2, IERR)
      CALL MPI_TYPE_CREATE_RESIZED(T, 0_MPI_ADDRESS_KIND,
     &    16_MPI_ADDRESS_KIND, T2, IERR)
      CALL MPI_TYPE_COMMIT(T2, IERR)
      CALL MPI_PACK_SIZE(2, T2, MPI_COMM_WORLD, N, IERR)
      IF (N .LT. 16) CALL FAIL(NFAIL, 'pack_size')
      CALL MPI_SENDRECV(A, 1, T2, 0, 6, B, 2, MPI_INTEGER, 0, 6,
     &    MPI_COMM_WORLD, ST, IERR)
      CALL MPI_GET_ELEMENTS(ST, T2, N, IERR)
      IF (B(1) .NE. 2 .OR. B(2) .NE. 3 .OR. N .NE. 2)
     &    CALL FAIL(NFAIL, 'a resized indexed type sent')
      CALL MPI_TYPE_FREE(T2, IERR)
      CALL MPI_TYPE_FREE(T, IERR)

C     Error classes and handlers, MPI-1's and MPI-2's.
      CALL MPI_ADD_ERROR_CLASS(CLS, IERR)
      CALL MPI_ADD_ERROR_CODE(CLS, CODE, IERR)
      CALL MPI_ADD_ERROR_STRING(CODE, 'a code of fcover', IERR)
      CALL MPI_ERROR_CLASS(CODE, I, IERR)
      IF (I .NE. CLS) CALL FAIL(NFAIL, 'add_error_class/code')
      CALL MPI_ERRHANDLER_CREATE(EHFN, EH, IERR)
      CALL MPI_ERRHANDLER_SET(MPI_COMM_WORLD, EH, IERR)
      CALL MPI_ERRHANDLER_GET(MPI_COMM_WORLD, EH2, IERR)
      IF (EH2 .NE. EH) CALL FAIL(NFAIL, 'errhandler_get')
      CALL MPI_ERRHANDLER_FREE(EH2, IERR)
      CALL MPI_COMM_CALL_ERRHANDLER(MPI_COMM_WORLD, CODE, IERR)
      IF (NEH .NE. 1 .OR. LASTC .NE. CODE)
     &    CALL FAIL(NFAIL, 'comm_call_errhandler')
      CALL MPI_COMM_GET_ERRHANDLER(MPI_COMM_WORLD, EH2, IERR)
      IF (EH2 .NE. EH) CALL FAIL(NFAIL, 'comm_get_errhandler')
      CALL MPI_ERRHANDLER_FREE(EH2, IERR)
      CALL MPI_ERRHANDLER_FREE(EH, IERR)
      CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN,
     &    IERR)

C     Info.
      CALL MPI_INFO_CREATE(INFO, IERR)
      CALL MPI_INFO_SET(INFO, 'key', 'value', IERR)
      CALL MPI_INFO_DUP(INFO, INFO2, IERR)
      CALL MPI_INFO_GET_NKEYS(INFO2, N, IERR)
      IF (N .NE. 1) CALL FAIL(NFAIL, 'info_dup')
      CALL MPI_INFO_FREE(INFO, IERR)
      CALL MPI_INFO_FREE(INFO2, IERR)

      CALL MPI_FINALIZE(IERR)
      CALL MPI_FINALIZED(FLAG, IERR)
      IF (.NOT. FLAG) CALL FAIL(NFAIL, 'finalized')
      FLAGI = NFAIL
      IF (FLAGI .EQ. 0) PRINT *, 'ok fcover'
      IF (FLAGI .NE. 0) CALL EXIT(1)
      END

      SUBROUTINE EHFN(COMM, CODE)
      INTEGER COMM, CODE
      INTEGER NEH, LASTC
      COMMON /EHLOG/ NEH, LASTC
      NEH = NEH + 1
      LASTC = CODE
      END

      SUBROUTINE FAIL(NFAIL, WHAT)
      INTEGER NFAIL
      CHARACTER*(*) WHAT
      PRINT *, 'FAIL ', WHAT
      NFAIL = NFAIL + 1
      END
