! Fortran 2008 (`use mpi_f08`), the twin of fig2_7_wildcard_deadlock.c:
! rank 0 receives from anyone, then from rank 2. When the wildcard receive
! takes rank 2's message, the second receive waits forever. Rank 2 sends
! late, so the native run usually matches rank 1 and a replay finds the
! deadlock (the count of interleavings is not checked, as in C).
! mpivet: np=3 verdict=error
program f27f08
  use mpi_f08
  implicit none
  integer :: rank, x
  double precision :: t0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  x = rank
  if (rank == 0) then
    call MPI_Recv(x, 1, MPI_INTEGER, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call MPI_Recv(x, 1, MPI_INTEGER, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ! want "deadlock"
  else
    if (rank == 2) then
      t0 = MPI_Wtime()
      do while (MPI_Wtime() - t0 < 0.2d0)
      end do
    end if
    call MPI_Send(x, 1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD)
  end if
  call MPI_Finalize() ! want "deadlock"
end program
