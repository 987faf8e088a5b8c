! Invalid arguments from Fortran (`use mpi`), with MPI_ERRORS_RETURN so the
! run goes on past each: the wrappers check the C views of the arguments
! (handles converted with MPI_*_f2c) before the MPI's binding sees them.
! Each is reported as invalid-argument with the parameter and the line; the
! MPI then returns its own error.
! mpivet: np=2 verdict=error
program argsfortran
  use mpi
  implicit none
  integer :: ierr, rank, size, x, y, pair
  real :: a, b
  call MPI_Init(ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  x = 1
  a = 1.0
  call MPI_Bcast(x, 1, MPI_INTEGER, size + 1, MPI_COMM_WORLD, ierr) ! want "invalid-argument" "mpi-error"
  call MPI_Send(x, -2, MPI_INTEGER, rank, 0, MPI_COMM_WORLD, ierr) ! want "invalid-argument" "mpi-error"
  call MPI_Send(x, 1, MPI_INTEGER, rank, -7, MPI_COMM_WORLD, ierr) ! want "invalid-argument" "mpi-error"
  call MPI_Allreduce(a, b, 1, MPI_REAL, MPI_BAND, MPI_COMM_WORLD, ierr) ! want "invalid-argument" "mpi-error"
  call MPI_Type_contiguous(1, MPI_INTEGER, pair, ierr)
  call MPI_Sendrecv(x, 1, pair, rank, 0, y, 1, MPI_INTEGER, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr) ! want "invalid-argument" "mpi-error"
  call MPI_Type_free(pair, ierr)
  call MPI_Finalize(ierr)
end program argsfortran
