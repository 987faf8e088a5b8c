! Free-form Fortran with `use mpi`: a datatype created in a subroutine and
! never freed; a persistent request never freed; clean Irecv/Waitall.
! mpivet: np=2 verdict=error
module halo
  use mpi
  implicit none
contains
  subroutine make_type(t)
    integer, intent(out) :: t
    integer :: ierr
    call MPI_Type_vector(2, 1, 4, MPI_DOUBLE_PRECISION, t, ierr) ! want "resource-leak"
    call MPI_Type_commit(t, ierr)
  end subroutine
end module

program leakmod
  use mpi
  use halo
  implicit none
  integer :: ierr, rank, size, t, p, reqs(2)
  double precision :: a(8), b(8)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call make_type(t)
  a = rank
  call MPI_Irecv(b, 1, t, mod(rank + size - 1, size), 0, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(a, 1, t, mod(rank + 1, size), 0, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call MPI_Send_init(a, 1, MPI_DOUBLE_PRECISION, mod(rank + 1, size), 1, MPI_COMM_WORLD, p, ierr) ! want "resource-leak"
  call MPI_Start(p, ierr)
  call MPI_Recv(b, 1, MPI_DOUBLE_PRECISION, mod(rank + size - 1, size), 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Wait(p, MPI_STATUS_IGNORE, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program
