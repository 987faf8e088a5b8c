! Fortran arrays sent and received with a datatype other than their
! declared type, on both sides alike (the type signatures match each other):
! a real(8) array as MPI_REAL, an integer array as MPI_DOUBLE_PRECISION, and
! in a subroutine a real(8) array as MPI_INTEGER.
! mpivet: np=2 verdict=error
program declared_type_mismatch
  use mpi
  implicit none
  integer :: rank, ierr
  real(8) :: a(10)
  integer :: counts(10)
  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  a = 1.0d0
  counts = 1
  if (rank == 0) then
     call mpi_send(a, 10, MPI_REAL, 1, 0, MPI_COMM_WORLD, ierr) ! want "type-mismatch"
     call mpi_send(counts, 5, MPI_DOUBLE_PRECISION, 1, 1, MPI_COMM_WORLD, ierr) ! want "type-mismatch"
  else if (rank == 1) then
     call mpi_recv(a, 10, MPI_REAL, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr) ! want "type-mismatch"
     call mpi_recv(counts, 5, MPI_DOUBLE_PRECISION, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr) ! want "type-mismatch"
  end if
  call halo(rank)
  call mpi_finalize(ierr)
contains
  subroutine halo(rank)
    integer, intent(in) :: rank
    real(8) :: edge(4)
    integer :: ierr
    edge = 0
    if (rank == 0) then
       call mpi_send(edge, 8, MPI_INTEGER, 1, 2, MPI_COMM_WORLD, ierr) ! want "type-mismatch"
    else if (rank == 1) then
       call mpi_recv(edge, 8, MPI_INTEGER, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr) ! want "type-mismatch"
    end if
  end subroutine halo
end program declared_type_mismatch
