! Fixed-form Fortran with mpif.h, the twin of fig2_7_wildcard_deadlock.c:
! rank 0 receives from anyone, then from rank 2. When the wildcard receive
! takes rank 2's message, the second receive waits forever. Rank 2 sends
! late, so the native run usually matches rank 1 and a replay finds the
! deadlock (the count of interleavings is not checked, as in C).
! mpivet: np=3 verdict=error
      program f27f77
      include 'mpif.h'
      integer ierr, rank, x(1)
      double precision t0
      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      x(1) = rank
      if (rank .eq. 0) then
        call MPI_RECV(x, 1, MPI_INTEGER, MPI_ANY_SOURCE, 0,
     &                MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call MPI_RECV(x, 1, MPI_INTEGER, 2, 0, MPI_COMM_WORLD,
     &                MPI_STATUS_IGNORE, ierr)                          ! want "deadlock"
      else
        if (rank .eq. 2) then
          t0 = MPI_WTIME()
          do while (MPI_WTIME() - t0 .lt. 0.2d0)
          end do
        end if
        call MPI_SEND(x, 1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, ierr)
      end if
      call MPI_FINALIZE(ierr)                                           ! want "deadlock"
      end
