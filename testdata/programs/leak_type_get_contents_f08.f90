! Free-form Fortran with `use mpi_f08`: MPI_Type_get_contents gives a
! struct's derived members as new handles the program must free (MPI 4.0
! §5.1.13); this one frees the contiguous member but not the vector. The
! leak is found at the query's line; the predefined member (MPI_INTEGER),
! which must not be freed, is no leak.
! mpivet: np=2 verdict=error
program leakcontents
  use mpi_f08
  implicit none
  integer :: ints(4), bl(3)
  integer(kind=MPI_ADDRESS_KIND) :: addrs(4), disp(3)
  type(MPI_Datatype) :: vec, pair, st, members(3), types(3)
  call MPI_Init()
  call MPI_Type_vector(2, 1, 2, MPI_INTEGER, vec)
  call MPI_Type_contiguous(2, MPI_DOUBLE_PRECISION, pair)
  bl = 1
  disp = [0_MPI_ADDRESS_KIND, 16_MPI_ADDRESS_KIND, 40_MPI_ADDRESS_KIND]
  members = [vec, pair, MPI_INTEGER]
  call MPI_Type_create_struct(3, bl, disp, members, st)
  call MPI_Type_free(vec)
  call MPI_Type_free(pair)
  call MPI_Type_get_contents(st, 4, 4, 3, ints, addrs, types) ! want "resource-leak"
  call MPI_Type_free(types(2))
  call MPI_Type_free(st)
  call MPI_Finalize()
end program
