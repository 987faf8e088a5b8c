! Fortran 2008 (`use mpi_f08`), the twin of wildcard_master_worker.c: the
! master collects results with wildcard receives into a type(MPI_Status) and
! answers status%MPI_SOURCE. 8 interleavings, as in C; each result is
! checked.
! mpivet: np=3 verdict=ok interleavings=8
program mwf08
  use mpi_f08
  implicit none
  integer :: rank, nprocs, ntask, next, ndone, total, w, t
  integer :: r(2)
  type(MPI_Status) :: st
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  ntask = 4
  if (rank == 0) then
    next = 0
    ndone = 0
    total = 0
    do w = 1, nprocs - 1
      call MPI_Send(next, 1, MPI_INTEGER, w, 1, MPI_COMM_WORLD)
      next = next + 1
    end do
    do while (ndone < ntask)
      call MPI_Recv(r, 2, MPI_INTEGER, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, st)
      if (r(2) /= r(1) * r(1)) call MPI_Abort(MPI_COMM_WORLD, 2)
      total = total + r(2)
      ndone = ndone + 1
      if (next < ntask) then
        call MPI_Send(next, 1, MPI_INTEGER, st%MPI_SOURCE, 1, MPI_COMM_WORLD)
        next = next + 1
      end if
    end do
    do w = 1, nprocs - 1
      call MPI_Send(total, 1, MPI_INTEGER, w, 3, MPI_COMM_WORLD)
    end do
  else
    do
      call MPI_Recv(t, 1, MPI_INTEGER, 0, MPI_ANY_TAG, MPI_COMM_WORLD, st)
      if (st%MPI_TAG == 3) exit
      r(1) = t
      r(2) = t * t
      call MPI_Send(r, 2, MPI_INTEGER, 0, 2, MPI_COMM_WORLD)
    end do
  end if
  call MPI_Finalize()
end program
