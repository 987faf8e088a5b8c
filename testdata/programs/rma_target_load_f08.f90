! The target reads its own window during the fence epoch in which the
! other rank's MPI_Put writes those bytes (Fortran, mpi_f08, a window from
! MPI_Win_allocate): the read may see the old values, the new ones or a
! mix. The Put's bytes are only the target's to read after the closing
! fence.
! mpivet: np=2 verdict=error
program rma_target_load_f08
  use mpi_f08
  use iso_c_binding
  implicit none
  type(MPI_Win) :: win
  type(c_ptr) :: p
  real(8), pointer :: u(:)
  real(8) :: row(64), early
  integer :: rank, other
  integer(kind=MPI_ADDRESS_KIND) :: sz
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  other = 1 - rank
  sz = 1024 * 8
  call MPI_Win_allocate(sz, 8, MPI_INFO_NULL, MPI_COMM_WORLD, p, win)
  call c_f_pointer(p, u, [1024])
  u = rank
  row = 7
  call MPI_Win_fence(0, win)
  call MPI_Put(row, 64, MPI_DOUBLE_PRECISION, other, 0_MPI_ADDRESS_KIND, 64, MPI_DOUBLE_PRECISION, win)
  early = u(3) ! want "rma-race"
  call MPI_Win_fence(0, win)
  print *, rank, early, u(3)
  call MPI_Win_free(win)
  call MPI_Finalize()
end program
