C     ring.f: LAM's classic ring, in Fortran 77: rank 0 sends the number
C     10 around the ring of every rank; each time it comes back rank 0
C     decrements it; every rank leaves once it has passed on 0. Prints
C     the same lines as the Go and C ring.
C
C       mpif77 -o ring ring.f
C       mpirun -np 4 ring
      PROGRAM RING
      INCLUDE 'mpif.h'
      INTEGER RANK, SIZE, NEXT, PREV, MSG, TAG, IERR
      INTEGER STATUS(MPI_STATUS_SIZE)
      PARAMETER (TAG = 201)

      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, SIZE, IERR)
      NEXT = MOD(RANK + 1, SIZE)
      PREV = MOD(RANK + SIZE - 1, SIZE)

      IF (RANK .EQ. 0) THEN
         MSG = 10
         WRITE (*, 10) MSG, NEXT, TAG, SIZE
 10      FORMAT ('Process 0 sending ', I0, ' to ', I0, ', tag ', I0,
     &           ' (', I0, ' processes in ring)')
         CALL MPI_SEND(MSG, 1, MPI_INTEGER, NEXT, TAG,
     &                 MPI_COMM_WORLD, IERR)
         WRITE (*, 20) NEXT
 20      FORMAT ('Process 0 sent to ', I0)
      END IF

 30   CONTINUE
      CALL MPI_RECV(MSG, 1, MPI_INTEGER, PREV, TAG, MPI_COMM_WORLD,
     &              STATUS, IERR)
      IF (RANK .EQ. 0) THEN
         MSG = MSG - 1
         WRITE (*, 40) MSG
 40      FORMAT ('Process 0 decremented value: ', I0)
      END IF
      CALL MPI_SEND(MSG, 1, MPI_INTEGER, NEXT, TAG, MPI_COMM_WORLD,
     &              IERR)
      IF (MSG .NE. 0) GOTO 30

      WRITE (*, 50) RANK
 50   FORMAT ('Process ', I0, ' exiting')
C     The last 0 comes back to rank 0: take it so nothing is left.
      IF (RANK .EQ. 0) THEN
         CALL MPI_RECV(MSG, 1, MPI_INTEGER, PREV, TAG,
     &                 MPI_COMM_WORLD, STATUS, IERR)
      END IF
      CALL MPI_FINALIZE(IERR)
      END
