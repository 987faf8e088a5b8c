! Fortran 2008: a halo exchange with Isend/Irecv and Waitall, a Testany loop,
! a duplicated communicator and a derived type, all completed and freed.
! mpivet: np=3 verdict=ok
program cleanf08
  use mpi_f08
  implicit none
  integer :: rank, size, left, right, idx, i
  logical :: flag
  double precision :: a(10), halo(2)
  type(MPI_Comm) :: comm
  type(MPI_Datatype) :: t
  type(MPI_Request) :: reqs(4)
  call MPI_Init()
  call MPI_Comm_dup(MPI_COMM_WORLD, comm)
  call MPI_Comm_rank(comm, rank)
  call MPI_Comm_size(comm, size)
  left = mod(rank + size - 1, size)
  right = mod(rank + 1, size)
  a = rank
  call MPI_Type_contiguous(1, MPI_DOUBLE_PRECISION, t)
  call MPI_Type_commit(t)
  call MPI_Irecv(halo(1), 1, t, left, 0, comm, reqs(1))
  call MPI_Irecv(halo(2), 1, t, right, 1, comm, reqs(2))
  call MPI_Isend(a(10), 1, t, right, 0, comm, reqs(3))
  call MPI_Isend(a(1), 1, t, left, 1, comm, reqs(4))
  call MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE)
  call MPI_Irecv(halo(1), 1, MPI_DOUBLE_PRECISION, left, 2, comm, reqs(1))
  call MPI_Isend(a(1), 1, MPI_DOUBLE_PRECISION, right, 2, comm, reqs(2))
  do i = 1, 2
    flag = .false.
    do while (.not. flag)
      call MPI_Testany(2, reqs, idx, flag, MPI_STATUS_IGNORE)
    end do
  end do
  call MPI_Type_free(t)
  call MPI_Comm_free(comm)
  call MPI_Finalize()
end program
