! Fixed-form Fortran with mpif.h: a duplicated communicator never freed and
! an Isend never completed. gfortran puts a continued statement on its last
! line, so that is where the Isend is reported.
! mpivet: np=2 verdict=error
      program leakf
      include 'mpif.h'
      integer ierr, rank, newcomm, req, buf(4)
      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_DUP(MPI_COMM_WORLD, newcomm, ierr)                  ! want "resource-leak"
      if (rank .eq. 0) then
        call MPI_ISEND(buf, 4, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, req,
     &                 ierr)                                            ! want "resource-leak" "request-lifecycle"
      else if (rank .eq. 1) then
        call MPI_RECV(buf, 4, MPI_INTEGER, 0, 0, MPI_COMM_WORLD,
     &                MPI_STATUS_IGNORE, ierr)
      end if
      call MPI_FINALIZE(ierr)
      end
