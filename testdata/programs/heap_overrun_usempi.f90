! Fortran allocatables are heap blocks too (gfortran allocates them with
! malloc): a receive of 25008 reals into an array of 25000, and an
! MPI_Allreduce of 25008 into the same, each run 64 bytes past the block,
! reported at the call's line with the ALLOCATE's. (The arrays are large
! enough for the allocator to map them whole: the bytes too many land in
! the last page's slack.) heap_clean_f08.f90 stays inside its arrays.
! mpivet: np=2 verdict=error
program heapoverrun
  use mpi
  implicit none
  integer, parameter :: n = 25000
  integer :: ierr, rank
  double precision, allocatable :: a(:), b(:)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  allocate(a(n), b(n + 8))
  b = 1.0d0
  if (rank == 0) then
    call MPI_Send(b, n + 8, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD, ierr)
  else
    call MPI_Recv(a, n + 8, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr) ! want "buffer-overrun"
  end if
  call MPI_Allreduce(b, a, n + 8, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr) ! want "buffer-overrun"
  deallocate(a, b)
  call MPI_Finalize(ierr)
end program heapoverrun
