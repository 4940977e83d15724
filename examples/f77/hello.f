C     hello.f: LAM's classic first MPI program, in Fortran 77: every
C     rank greets the world with its rank, the size of MPI_COMM_WORLD
C     and its processor name, in the same words as the Go and C hello.
C
C       mpif77 -o hello hello.f
C       mpirun -np 4 hello
      PROGRAM HELLO
      INCLUDE 'mpif.h'
      INTEGER RANK, SIZE, LEN, IERR
      CHARACTER*(MPI_MAX_PROCESSOR_NAME) NAME

      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, SIZE, IERR)
      CALL MPI_GET_PROCESSOR_NAME(NAME, LEN, IERR)
      WRITE (*, 10) RANK, SIZE, NAME(1:LEN)
 10   FORMAT ('Hello, world! I am ', I0, ' of ', I0, ' on ', A)
      CALL MPI_FINALIZE(IERR)
      END
