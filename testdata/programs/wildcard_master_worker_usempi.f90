! Fortran with `use mpi`, the twin of wildcard_master_worker.c on a
! duplicated communicator: the master collects results with a wildcard
! MPI_Irecv completed by MPI_Wait (status array), the workers receive with
! MPI_STATUS_IGNORE and a tag chosen by the master. 8 interleavings, as in C;
! each result is checked.
! mpivet: np=3 verdict=ok interleavings=8
program mwusempi
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, ntask, next, ndone, total, w, t, req, comm
  integer :: r(2), st(MPI_STATUS_SIZE)
  call MPI_Init(ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, comm, ierr)
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, nprocs, ierr)
  ntask = 4
  if (rank == 0) then
    next = 0
    ndone = 0
    total = 0
    do w = 1, nprocs - 1
      call MPI_Send(next, 1, MPI_INTEGER, w, 1, comm, ierr)
      next = next + 1
    end do
    do while (ndone < ntask)
      call MPI_Irecv(r, 2, MPI_INTEGER, MPI_ANY_SOURCE, 2, comm, req, ierr)
      call MPI_Wait(req, st, ierr)
      if (r(2) /= r(1) * r(1)) call MPI_Abort(comm, 2, ierr)
      total = total + r(2)
      ndone = ndone + 1
      if (next < ntask) then
        call MPI_Send(next, 1, MPI_INTEGER, st(MPI_SOURCE), 1, comm, ierr)
        next = next + 1
      end if
    end do
    do w = 1, nprocs - 1
      call MPI_Send(-1, 1, MPI_INTEGER, w, 1, comm, ierr)
    end do
  else
    do
      call MPI_Recv(t, 1, MPI_INTEGER, 0, 1, comm, MPI_STATUS_IGNORE, ierr)
      if (t < 0) exit
      r(1) = t
      r(2) = t * t
      call MPI_Send(r, 2, MPI_INTEGER, 0, 2, comm, ierr)
    end do
  end if
  call MPI_Comm_free(comm, ierr)
  call MPI_Finalize(ierr)
end program
