C     The MPI-1 datatype calls with INTEGER addresses from Fortran 77:
C     MPI_TYPE_STRUCT of an INTEGER and a DOUBLE PRECISION at offsets
C     from MPI_GET_ADDRESS, MPI_TYPE_HVECTOR, MPI_TYPE_HINDEXED,
C     MPI_TYPE_EXTENT/LB/UB, and MPI_PACK_EXTERNAL (big-endian).
      PROGRAM FDTYPE1
      INCLUDE 'mpif.h'
      INTEGER IERR, BL(2), DISP(2), TYPES(2), ST, HV, HI, N, POS, K
      INTEGER IV(2), IOUT(4), EXT, LB, UB
      DOUBLE PRECISION DV(2)
      INTEGER(KIND=MPI_ADDRESS_KIND) A1, A2, EPOS, ESIZE
      CHARACTER BUF(64)
      INTEGER NFAIL
      COMMON /REC/ DV, IV
      NFAIL = 0
      CALL MPI_INIT(IERR)
      CALL MPI_GET_ADDRESS(DV, A1, IERR)
      CALL MPI_GET_ADDRESS(IV, A2, IERR)
      IF (A2 - A1 .NE. 16) CALL FAIL(NFAIL, 'get_address')
C     The common block /REC/: two doubles, then two integers.
      BL(1) = 2
      BL(2) = 2
      DISP(1) = 0
      DISP(2) = INT(A2 - A1)
      TYPES(1) = MPI_DOUBLE_PRECISION
      TYPES(2) = MPI_INTEGER
      CALL MPI_TYPE_STRUCT(2, BL, DISP, TYPES, ST, IERR)
      CALL MPI_TYPE_COMMIT(ST, IERR)
      CALL MPI_TYPE_EXTENT(ST, EXT, IERR)
      CALL MPI_TYPE_LB(ST, LB, IERR)
      CALL MPI_TYPE_UB(ST, UB, IERR)
      IF (EXT .NE. 24 .OR. LB .NE. 0 .OR. UB .NE. 24)
     &    CALL FAIL(NFAIL, 'struct extent')
      DV(1) = 1.0D0
      DV(2) = -2.0D0
      IV(1) = 16909060
      IV(2) = -2
      EPOS = 0
      CALL MPI_PACK_EXTERNAL_SIZE('external32', 1, ST, ESIZE, IERR)
      IF (ESIZE .NE. 24) CALL FAIL(NFAIL, 'external size')
      CALL MPI_PACK_EXTERNAL('external32', DV, 1, ST, BUF, 64_8,
     &    EPOS, IERR)
      IF (EPOS .NE. 24 .OR. ICHAR(BUF(1)) .NE. 63
     &    .OR. ICHAR(BUF(2)) .NE. 240 .OR. ICHAR(BUF(9)) .NE. 192
     &    .OR. ICHAR(BUF(17)) .NE. 1 .OR. ICHAR(BUF(20)) .NE. 4
     &    .OR. ICHAR(BUF(24)) .NE. 254)
     &    CALL FAIL(NFAIL, 'pack external')
      DV(1) = 0
      IV(2) = 0
      EPOS = 0
      CALL MPI_UNPACK_EXTERNAL('external32', BUF, 24_8, EPOS, DV, 1,
     &    ST, IERR)
      IF (DV(1) .NE. 1.0D0 .OR. IV(2) .NE. -2)
     &    CALL FAIL(NFAIL, 'unpack external')
C     hvector: IV(1) twice, 0 bytes apart, then hindexed: IV(2), IV(1).
      CALL MPI_TYPE_HVECTOR(2, 1, 0, MPI_INTEGER, HV, IERR)
      CALL MPI_TYPE_COMMIT(HV, IERR)
      BL(1) = 1
      BL(2) = 1
      DISP(1) = 4
      DISP(2) = 0
      CALL MPI_TYPE_HINDEXED(2, BL, DISP, MPI_INTEGER, HI, IERR)
      CALL MPI_TYPE_COMMIT(HI, IERR)
      IV(1) = 7
      IV(2) = 8
      POS = 0
      CALL MPI_PACK(IV, 1, HV, BUF, 64, POS, MPI_COMM_WORLD, IERR)
      CALL MPI_PACK(IV, 1, HI, BUF, 64, POS, MPI_COMM_WORLD, IERR)
      N = POS
      POS = 0
      CALL MPI_UNPACK(BUF, N, POS, IOUT, 4, MPI_INTEGER,
     &    MPI_COMM_WORLD, IERR)
      IF (IOUT(1) .NE. 7 .OR. IOUT(2) .NE. 7 .OR. IOUT(3) .NE. 8
     &    .OR. IOUT(4) .NE. 7) CALL FAIL(NFAIL, 'hvector/hindexed')
      K = 0
      CALL MPI_TYPE_FREE(ST, IERR)
      CALL MPI_TYPE_FREE(HV, IERR)
      CALL MPI_TYPE_FREE(HI, IERR)
      IF (ST .NE. MPI_DATATYPE_NULL .OR. HI .NE. MPI_DATATYPE_NULL)
     &    CALL FAIL(NFAIL, 'free')
      CALL MPI_FINALIZE(IERR)
      IF (NFAIL .EQ. 0) PRINT *, 'ok fdtype1'
      IF (NFAIL .NE. 0) CALL EXIT(1)
      END

      SUBROUTINE FAIL(NFAIL, WHAT)
      INTEGER NFAIL
      CHARACTER*(*) WHAT
      PRINT *, 'FAIL ', WHAT
      NFAIL = NFAIL + 1
      END
