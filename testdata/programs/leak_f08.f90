! Fortran 2008 bindings (use mpi_f08): a split communicator and a group never
! freed, an Irecv never completed.
! mpivet: np=2 verdict=error
program leakf08
  use mpi_f08
  implicit none
  integer :: rank, buf(4)
  type(MPI_Comm) :: half
  type(MPI_Group) :: g
  type(MPI_Request) :: req
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half) ! want "resource-leak"
  call MPI_Comm_group(half, g) ! want "resource-leak"
  if (rank == 1) then
    call MPI_Irecv(buf, 4, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, req) ! want "resource-leak" "request-lifecycle"
  end if
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Finalize()
end program
