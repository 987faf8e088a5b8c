! Seed 000, Fig. 2.9 in Fortran 77 (mpif.h): rank 0 writes its send buffer
! and rank 1 reads its receive buffer before the MPI_WAIT. (gfortran puts a
! continued call on its last line.)
! mpivet: np=2 verdict=error
      program fig29
      implicit none
      include 'mpif.h'
      integer ierr, rank, h, a
      integer buf(4)
      integer status(MPI_STATUS_SIZE)
      common /bufs/ buf
      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      a = 0
      buf(1) = 42
      if (rank .eq. 0) then
        call MPI_ISEND(buf, 4, MPI_INTEGER, 1, 0, MPI_COMM_WORLD,
     &                 h, ierr) ! want "buffer-reuse"
        buf(1) = 1 ! want "buffer-reuse"
        call MPI_WAIT(h, status, ierr) ! want "buffer-reuse"
      else if (rank .eq. 1) then
        call MPI_IRECV(buf, 4, MPI_INTEGER, 0, 0, MPI_COMM_WORLD,
     &                 h, ierr) ! want "buffer-reuse"
        a = buf(2) ! want "buffer-reuse"
        call MPI_WAIT(h, status, ierr) ! want "buffer-reuse"
      end if
      print *, rank, a, buf(1)
      call MPI_FINALIZE(ierr)
      end
