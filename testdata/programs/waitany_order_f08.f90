! Fortran 2008 (`use mpi_f08`), the twin of waitany_order.c, with
! MPI_Testany: rank 0 polls for a message from rank 1 and one from rank 2
! and takes the first as the leader's. Rank 2 sends late, so the native run
! returns rank 1's message first; the program fails only when rank 2's comes
! first, which exploration forces. (MPICH 4.0's mpi_f08 returns the index
! from 0, not 1: the program finds the request by its handle.)
! mpivet: np=3 verdict=error interleavings=2
program waorder08
  use mpi_f08
  implicit none
  integer :: rank, i, v(2)
  logical :: flag
  type(MPI_Request) :: r(2)
  double precision :: t0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  v = 0
  if (rank == 0) then
    call MPI_Irecv(v(1), 1, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, r(1))
    call MPI_Irecv(v(2), 1, MPI_INTEGER, 2, 0, MPI_COMM_WORLD, r(2))
    flag = .false.
    do while (.not. flag)
      call MPI_Testany(2, r, i, flag, MPI_STATUS_IGNORE)
    end do
    if (r(1) == MPI_REQUEST_NULL) then
      i = 1
    else
      i = 2
    end if
    if (v(i) /= 1) call MPI_Abort(MPI_COMM_WORLD, 2) ! want "program-failure"
    call MPI_Waitany(2, r, i, MPI_STATUS_IGNORE)
  else
    if (rank == 2) then
      t0 = MPI_Wtime()
      do while (MPI_Wtime() - t0 < 0.2d0)
      end do
    end if
    call MPI_Send(rank, 1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD)
  end if
  call MPI_Finalize()
end program
