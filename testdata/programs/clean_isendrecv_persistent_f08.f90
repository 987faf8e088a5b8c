! Free-form Fortran with `use mpi_f08`, MPI 4.0 calls (Open MPI 4.1 has
! none): a ring passes a value right with MPI_Isendrecv and shifts a second
! one in place with MPI_Isendrecv_replace, computing between start and wait
! on variables the requests do not use; a persistent allreduce and a
! persistent barrier are started, completed and freed. No finding.
! mpivet: np=3 verdict=ok mpi=mpich
program clean4
  use mpi_f08
  implicit none
  integer :: rank, size, left, right, i, outv, inv, shift, other, mine, total
  type(MPI_Request) :: r, a, b
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  left = mod(rank + size - 1, size)
  right = mod(rank + 1, size)
  other = 0
  call MPI_Allreduce_init(mine, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, a)
  call MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, b)
  do i = 0, 2
    outv = 10 * rank + i
    call MPI_Isendrecv(outv, 1, MPI_INTEGER, right, i, inv, 1, MPI_INTEGER, left, i, MPI_COMM_WORLD, r)
    other = other + i
    call MPI_Wait(r, MPI_STATUS_IGNORE)
    shift = inv
    call MPI_Isendrecv_replace(shift, 1, MPI_INTEGER, right, 100 + i, left, 100 + i, MPI_COMM_WORLD, r)
    call MPI_Wait(r, MPI_STATUS_IGNORE)
    if (inv /= 10 * left + i) print *, 'rank', rank, 'got', inv
    mine = shift
    call MPI_Start(a)
    call MPI_Wait(a, MPI_STATUS_IGNORE)
    call MPI_Start(b)
    call MPI_Wait(b, MPI_STATUS_IGNORE)
  end do
  call MPI_Request_free(a)
  call MPI_Request_free(b)
  if (rank == 0) print *, 'done', other
  call MPI_Finalize()
end program
