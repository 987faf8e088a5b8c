! Datatypes against the standard's rules from Fortran (`use mpi_f08`), with
! MPI_ERRORS_RETURN so the run goes on past each: a negative count, a
! subarray's subsize above its size, MPI_DATATYPE_NULL among a struct's
! types (handles of type(MPI_Datatype), which the layer converts), a type never committed
! given to a send, a vector whose stride is shorter than its blocks given to
! a receive. Each is reported at its line (invalid-argument); the MPI
! returns its own error where it sees one.
! mpivet: np=1 verdict=error
program argstypef08
  use mpi_f08
  implicit none
  integer :: ierr, buf(32)
  type(MPI_Datatype) :: t, raw, shingle, types(2)
  integer :: sizes(2), subs(2), starts(2), lens(2)
  integer(kind=MPI_ADDRESS_KIND) :: disps(2)
  call MPI_Init(ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  buf = 0
  sizes = (/ 4, 4 /)
  subs = (/ 5, 2 /)
  starts = (/ 0, 0 /)
  lens = (/ 1, 1 /)
  disps = (/ 0_MPI_ADDRESS_KIND, 8_MPI_ADDRESS_KIND /)
  types(1) = MPI_INTEGER
  types(2) = MPI_DATATYPE_NULL
  call MPI_Type_contiguous(-2, MPI_INTEGER, t, ierr) ! want "invalid-argument" "mpi-error"
  call MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INTEGER, t, ierr) ! want "invalid-argument" want(openmpi) "mpi-error"
  if (ierr == MPI_SUCCESS) call MPI_Type_free(t, ierr)
  call MPI_Type_create_struct(2, lens, disps, types, t, ierr) ! want "invalid-argument" "mpi-error"
  call MPI_Type_vector(2, 1, 2, MPI_INTEGER, raw, ierr)
  call MPI_Send(buf, 1, raw, MPI_PROC_NULL, 0, MPI_COMM_WORLD, ierr) ! want "invalid-argument" "mpi-error"
  call MPI_Type_free(raw, ierr)
  call MPI_Type_vector(3, 4, 2, MPI_INTEGER, shingle, ierr)
  call MPI_Type_commit(shingle, ierr)
  call MPI_Recv(buf, 1, shingle, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr) ! want "invalid-argument"
  call MPI_Type_free(shingle, ierr)
  call MPI_Finalize(ierr)
end program argstypef08
