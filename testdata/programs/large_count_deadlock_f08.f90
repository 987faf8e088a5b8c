! Fortran 2008 large-count calls (`use mpi_f08`, INTEGER(KIND=MPI_COUNT_KIND)
! counts: MPICH's mpi_recv_f08ts_large_ and mpi_send_f08ts_large_; Open MPI
! 4.1 has none), the twin of large_count_wildcard_deadlock.c: rank 0
! receives from anyone, then from rank 2. When the wildcard receive takes
! rank 2's message, the second receive waits forever. The large-count
! sends carry the clocks, so the wildcard's other match is explored and the
! deadlock found.
! mpivet: np=3 verdict=error mpi=mpich
program largedeadlock
  use mpi_f08
  implicit none
  integer :: rank, x
  integer(kind=MPI_COUNT_KIND) :: one
  double precision :: t0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  one = 1
  x = rank
  if (rank == 0) then
    call MPI_Recv(x, one, MPI_INTEGER, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call MPI_Recv(x, one, MPI_INTEGER, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ! want "deadlock"
  else
    if (rank == 2) then
      t0 = MPI_Wtime()
      do while (MPI_Wtime() - t0 < 0.2d0)
      end do
    end if
    call MPI_Send(x, one, MPI_INTEGER, 0, 0, MPI_COMM_WORLD)
  end if
  call MPI_Finalize() ! want "deadlock"
end program largedeadlock
