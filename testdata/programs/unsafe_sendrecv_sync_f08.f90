! unsafe_sendrecv_sync.c from Fortran (`use mpi_f08`): the send half of
! each rank's MPI_Sendrecv is received only after the other rank's
! Sendrecv returns. Small messages, buffered by the MPI; without buffering
! both wait (unsafe-buffering), which the confirming run with zero
! buffering shows only if the Fortran wrapper makes the send half
! synchronous too.
! mpivet: np=2 verdict=error
program unsafesendrecv
  use mpi_f08
  implicit none
  integer :: rank, x, y, z, inn
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  x = 1
  y = 2
  z = 3
  if (rank == 0) then
    call MPI_Sendrecv(x, 1, MPI_INTEGER, 1, 1, inn, 1, MPI_INTEGER, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ! want "unsafe-buffering"
    call MPI_Send(z, 1, MPI_INTEGER, 1, 3, MPI_COMM_WORLD)
  else
    call MPI_Sendrecv(y, 1, MPI_INTEGER, 0, 2, inn, 1, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ! want "unsafe-buffering"
    call MPI_Recv(inn, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  end if
  call MPI_Finalize()
end program unsafesendrecv
