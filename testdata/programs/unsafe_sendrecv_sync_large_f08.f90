! unsafe_sendrecv_sync_f08.f90 with the large-count bindings (`use mpi_f08`,
! INTEGER(KIND=MPI_COUNT_KIND) counts: MPICH's mpi_sendrecv_f08ts_large_,
! mpi_send_f08ts_large_, mpi_recv_f08ts_large_; Open MPI 4.1 has none): the
! send half of each rank's MPI_Sendrecv is received only after the other
! rank's Sendrecv returns. Buffered by the MPI; without buffering both wait
! (unsafe-buffering), which the confirming run with zero buffering shows
! only if the large-count wrappers make the sends synchronous too.
! mpivet: np=2 verdict=error mpi=mpich
program unsafesendrecvlarge
  use mpi_f08
  implicit none
  integer :: rank, x, y, z, inn
  integer(kind=MPI_COUNT_KIND) :: one
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  one = 1
  x = 1
  y = 2
  z = 3
  if (rank == 0) then
    call MPI_Sendrecv(x, one, MPI_INTEGER, 1, 1, inn, one, MPI_INTEGER, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ! want "unsafe-buffering"
    call MPI_Send(z, one, MPI_INTEGER, 1, 3, MPI_COMM_WORLD)
  else
    call MPI_Sendrecv(y, one, MPI_INTEGER, 0, 2, inn, one, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ! want "unsafe-buffering"
    call MPI_Recv(inn, one, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  end if
  call MPI_Finalize()
end program unsafesendrecvlarge
