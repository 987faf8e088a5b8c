! Free-form Fortran with `use mpi`: MPI_Type_get_contents gives a struct's
! derived members as new handles the program must free (MPI 4.0 §5.1.13);
! this one frees the vector member but not the contiguous one. The leak is
! found at the query's line; the predefined member (MPI_INTEGER), which
! must not be freed, is no leak.
! mpivet: np=2 verdict=error
program leakcontents
  use mpi
  implicit none
  integer :: ierr, ints(4), bl(3), vec, pair, st, members(3), types(3)
  integer(kind=MPI_ADDRESS_KIND) :: addrs(4), disp(3)
  call MPI_Init(ierr)
  call MPI_Type_vector(2, 1, 2, MPI_INTEGER, vec, ierr)
  call MPI_Type_contiguous(2, MPI_DOUBLE_PRECISION, pair, ierr)
  bl = 1
  disp = [0_MPI_ADDRESS_KIND, 16_MPI_ADDRESS_KIND, 40_MPI_ADDRESS_KIND]
  members = [vec, pair, MPI_INTEGER]
  call MPI_Type_create_struct(3, bl, disp, members, st, ierr)
  call MPI_Type_free(vec, ierr)
  call MPI_Type_free(pair, ierr)
  call MPI_Type_get_contents(st, 4, 4, 3, ints, addrs, types, ierr) ! want "resource-leak"
  call MPI_Type_free(types(1), ierr)
  call MPI_Type_free(st, ierr)
  call MPI_Finalize(ierr)
end program
