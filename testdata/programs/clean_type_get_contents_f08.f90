! Free-form Fortran with `use mpi_f08`: the derived members that
! MPI_Type_get_contents gives are freed, the predefined one is not (MPICH
! gives the program's own handles with one more reference: both the
! program's and the query's must be freed). Each round makes and frees more
! types, so the MPI gives freed handle values again: none is an "already
! freed" one.
! mpivet: np=2 verdict=ok
program cleancontents
  use mpi_f08
  implicit none
  integer :: round, i, ni, na, nd, comb, ci, ca, cd, ccomb, ints(8), bl(3)
  integer(kind=MPI_ADDRESS_KIND) :: addrs(8), disp(3)
  type(MPI_Datatype) :: vec, pair, st, members(3), types(8)
  call MPI_Init()
  bl = 1
  disp = [0_MPI_ADDRESS_KIND, 16_MPI_ADDRESS_KIND, 40_MPI_ADDRESS_KIND]
  do round = 1, 3
    call MPI_Type_vector(2, 1, 2, MPI_INTEGER, vec)
    call MPI_Type_contiguous(2, MPI_DOUBLE_PRECISION, pair)
    members = [vec, pair, MPI_INTEGER]
    call MPI_Type_create_struct(3, bl, disp, members, st)
    call MPI_Type_get_envelope(st, ni, na, nd, comb)
    call MPI_Type_get_contents(st, ni, na, nd, ints, addrs, types)
    do i = 1, nd
      call MPI_Type_get_envelope(types(i), ci, ca, cd, ccomb)
      if (ccomb /= MPI_COMBINER_NAMED) call MPI_Type_free(types(i))
    end do
    call MPI_Type_free(vec)
    call MPI_Type_free(pair)
    call MPI_Type_free(st)
  end do
  call MPI_Finalize()
end program
