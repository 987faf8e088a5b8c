! The twin of heap_overrun_usempi.f90 with mpi_f08: a receive into the
! tail of a larger allocatable, an MPI_Allreduce in place, a gather into an
! array of exactly the ranks' blocks, a reallocated array filled whole. No
! finding.
! mpivet: np=2 verdict=ok
program heapclean
  use mpi_f08
  implicit none
  integer, parameter :: n = 1000
  integer :: rank, i
  double precision, allocatable :: a(:), b(:), g(:)
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  allocate(a(n), b(n))
  b = 1.0d0
  if (rank == 0) then
    call MPI_Send(b, n - 10, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD)
  else
    call MPI_Recv(a(11), n - 10, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  end if
  call MPI_Allreduce(MPI_IN_PLACE, b, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  allocate(g(2 * n))
  call MPI_Allgather(b, n, MPI_DOUBLE_PRECISION, g, n, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD)
  deallocate(a)
  allocate(a(4 * n))
  a = [(dble(i), i = 1, 4 * n)]
  call MPI_Allreduce(MPI_IN_PLACE, a, 4 * n, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD)
  deallocate(a, b, g)
  call MPI_Finalize()
end program heapclean
