! Fortran with `use mpi`, the twin of waitany_order.c: rank 0 waits with
! MPI_Waitany (1-based index) for a message from rank 1 and one from rank 2
! and takes the first as the leader's. Rank 2 sends late, so the native run
! returns rank 1's message first; the program fails only when rank 2's comes
! first, which exploration forces.
! mpivet: np=3 verdict=error interleavings=2
program waorder
  use mpi
  implicit none
  integer :: ierr, rank, i, v(2), r(2)
  double precision :: t0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  v = 0
  if (rank == 0) then
    call MPI_Irecv(v(1), 1, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, r(1), ierr)
    call MPI_Irecv(v(2), 1, MPI_INTEGER, 2, 0, MPI_COMM_WORLD, r(2), ierr)
    call MPI_Waitany(2, r, i, MPI_STATUS_IGNORE, ierr)
    if (v(i) /= 1) call MPI_Abort(MPI_COMM_WORLD, 2, ierr) ! want "program-failure"
    call MPI_Waitany(2, r, i, MPI_STATUS_IGNORE, ierr)
  else
    if (rank == 2) then
      t0 = MPI_Wtime()
      do while (MPI_Wtime() - t0 < 0.2d0)
      end do
    end if
    call MPI_Send(rank, 1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Finalize(ierr)
end program
