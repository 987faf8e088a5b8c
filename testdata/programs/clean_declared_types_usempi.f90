! Fortran buffers whose datatypes match their declared types: real(8) as
! MPI_DOUBLE_PRECISION, real as MPI_REAL, integer as MPI_INTEGER, logical
! as MPI_LOGICAL, complex(8) as MPI_DOUBLE_COMPLEX and as twice as many
! MPI_DOUBLE_PRECISION, characters as MPI_CHARACTER, integer(8) as
! MPI_INTEGER8, a derived type's real(8) component as MPI_DOUBLE_PRECISION,
! and a real(8) array as MPI_BYTE.
! mpivet: np=2 verdict=ok
program clean_declared_types
  use mpi
  implicit none
  type cell
     integer :: kind
     real(8) :: value
  end type cell
  integer :: rank, ierr
  real(8) :: a(10)
  real :: r(4)
  integer :: counts(4)
  logical :: flags(3)
  complex(8) :: z(2)
  character(len=8) :: word
  integer(8) :: big(2)
  type(cell) :: c
  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  a = 1
  r = 2
  counts = 3
  flags = .true.
  z = (1.0d0, 2.0d0)
  word = 'halo'
  big = 4
  c%kind = 1
  c%value = 5
  if (rank == 0) then
     call mpi_send(a, 10, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD, ierr)
     call mpi_send(r, 4, MPI_REAL, 1, 1, MPI_COMM_WORLD, ierr)
     call mpi_send(counts, 4, MPI_INTEGER, 1, 2, MPI_COMM_WORLD, ierr)
     call mpi_send(flags, 3, MPI_LOGICAL, 1, 3, MPI_COMM_WORLD, ierr)
     call mpi_send(z, 2, MPI_DOUBLE_COMPLEX, 1, 4, MPI_COMM_WORLD, ierr)
     call mpi_send(z, 4, MPI_DOUBLE_PRECISION, 1, 5, MPI_COMM_WORLD, ierr)
     call mpi_send(word, 8, MPI_CHARACTER, 1, 6, MPI_COMM_WORLD, ierr)
     call mpi_send(big, 2, MPI_INTEGER8, 1, 7, MPI_COMM_WORLD, ierr)
     call mpi_send(c%value, 1, MPI_DOUBLE_PRECISION, 1, 8, MPI_COMM_WORLD, ierr)
     call mpi_send(a, 80, MPI_BYTE, 1, 9, MPI_COMM_WORLD, ierr)
  else if (rank == 1) then
     call mpi_recv(a, 10, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
     call mpi_recv(r, 4, MPI_REAL, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
     call mpi_recv(counts, 4, MPI_INTEGER, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
     call mpi_recv(flags, 3, MPI_LOGICAL, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
     call mpi_recv(z, 2, MPI_DOUBLE_COMPLEX, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
     call mpi_recv(z, 4, MPI_DOUBLE_PRECISION, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
     call mpi_recv(word, 8, MPI_CHARACTER, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
     call mpi_recv(big, 2, MPI_INTEGER8, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
     call mpi_recv(c%value, 1, MPI_DOUBLE_PRECISION, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
     call mpi_recv(a, 80, MPI_BYTE, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end if
  call mpi_allreduce(MPI_IN_PLACE, a, 10, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call mpi_finalize(ierr)
end program clean_declared_types
