C     pi.f: LAM's classic pi by numerical integration of 4/(1+x*x) over
C     [0,1], in Fortran 77: rank 0 broadcasts the number of intervals
C     (the first argument, default ten million), each rank sums every
C     size-th interval and MPI_REDUCE adds the parts on rank 0. Prints
C     the same line as the Go and C pi.
C
C       mpif77 -o pi pi.f
C       mpirun -np 4 pi [intervals]
      PROGRAM PI
      INCLUDE 'mpif.h'
      DOUBLE PRECISION PI25DT
      PARAMETER (PI25DT = 3.141592653589793238462643D0)
      DOUBLE PRECISION H, X, SUM, PART, PIVAL, START, ERR
      INTEGER RANK, SIZE, N, I, IERR
      CHARACTER*32 ARG

      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, SIZE, IERR)
      N = 10000000
      IF (RANK .EQ. 0 .AND. IARGC() .GT. 0) THEN
         CALL GETARG(1, ARG)
         READ (ARG, *, ERR=5) N
         IF (N .LE. 0) N = 10000000
      END IF
 5    CALL MPI_BCAST(N, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, IERR)
      START = MPI_WTIME()
      H = 1.0D0 / DBLE(N)
      SUM = 0.0D0
      DO 10 I = RANK, N - 1, SIZE
         X = H * (DBLE(I) + 0.5D0)
         SUM = SUM + 4.0D0 / (1.0D0 + X * X)
 10   CONTINUE
      PART = H * SUM
      CALL MPI_REDUCE(PART, PIVAL, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0,
     &                MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) THEN
         ERR = ABS(PIVAL - PI25DT)
         WRITE (*, 20) PIVAL, ERR, N, SIZE, MPI_WTIME() - START
 20      FORMAT ('pi is approximately ', F18.16, ', error ', ES8.2E2,
     &           ' (', I0, ' intervals, ', I0, ' processes, ', F5.3,
     &           ' s)')
      END IF
      CALL MPI_FINALIZE(IERR)
      END
