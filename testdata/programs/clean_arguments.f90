! Arguments that look wrong and are not, from Fortran (`use mpi`): peers
! that are MPI_PROC_NULL, MPI_ANY_SOURCE and MPI_ANY_TAG, MPI_IN_PLACE at
! the root of a Reduce and on every rank of an Allreduce, a zero count,
! MPI_MAXLOC on MPI_2INTEGER, MPI_LAND on MPI_LOGICAL, a committed derived
! datatype freed and made again, a communicator freed and made again.
! mpivet: np=3 verdict=ok
program cleanargs
  use mpi
  implicit none
  integer :: ierr, rank, size, left, right, x, y, k, vec, c
  integer :: v(4), pair(2), best(2)
  logical :: mine, every
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  right = rank + 1
  if (right == size) right = MPI_PROC_NULL
  left = rank - 1
  if (left < 0) left = MPI_PROC_NULL
  x = rank
  call MPI_Sendrecv(x, 1, MPI_INTEGER, right, 3, y, 1, MPI_INTEGER, left, MPI_ANY_TAG, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  if (rank == 0) then
    do k = 1, size - 1
      call MPI_Recv(y, 1, MPI_INTEGER, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    end do
  else
    call MPI_Send(x, 1, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Send(x, 0, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, ierr)
  v = rank
  call MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    call MPI_Reduce(MPI_IN_PLACE, v, 4, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  else
    call MPI_Reduce(v, y, 4, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  end if
  pair(1) = rank
  pair(2) = rank
  call MPI_Allreduce(pair, best, 1, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  mine = mod(rank, 2) == 0
  call MPI_Allreduce(mine, every, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  do k = 1, 3
    call MPI_Comm_dup(MPI_COMM_WORLD, c, ierr)
    call MPI_Type_vector(2, 1, 2, MPI_INTEGER, vec, ierr)
    call MPI_Type_commit(vec, ierr)
    call MPI_Bcast(v, 1, vec, mod(k, size), c, ierr)
    call MPI_Type_free(vec, ierr)
    call MPI_Comm_free(c, ierr)
  end do
  if (rank == 0) print *, 'done', best(1), every
  call MPI_Finalize(ierr)
end program cleanargs
