! The Fortran bindings of MPI_Sendrecv and MPI_Sendrecv_replace under
! --buffering=zero, where the layer makes their send halves synchronous on
! the C views of the arguments (as clean_sendrecv_sync.c does from C), with
! `use mpi_f08` for one exchange and `use mpi` (the status an integer array)
! in the other subroutine: values, sources, tags and counts are checked.
! mpivet: np=2 verdict=ok flags=--buffering=zero
subroutine legacy(rank)
  use mpi
  implicit none
  integer, intent(in) :: rank
  integer :: ierr, v(3), st(MPI_STATUS_SIZE), n
  v = [1, 2, 3] + 10 * rank
  call MPI_Sendrecv_replace(v, 3, MPI_INTEGER, 1 - rank, 5, 1 - rank, 5, MPI_COMM_WORLD, st, ierr)
  call MPI_Get_count(st, MPI_INTEGER, n, ierr)
  if (ierr /= MPI_SUCCESS .or. any(v /= [1, 2, 3] + 10 * (1 - rank)) .or. st(MPI_SOURCE) /= 1 - rank &
      .or. st(MPI_TAG) /= 5 .or. n /= 3) then
    print *, 'wrong: Sendrecv_replace', v, st(MPI_SOURCE), st(MPI_TAG), n
    call MPI_Abort(MPI_COMM_WORLD, 3, ierr)
  end if
end subroutine legacy

program sendrecvsync
  use mpi_f08
  implicit none
  integer :: rank, x, y, n
  type(MPI_Status) :: st
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  x = 100 + rank
  y = -1
  call MPI_Sendrecv(x, 1, MPI_INTEGER, 1 - rank, 7, y, 1, MPI_INTEGER, 1 - rank, 7, MPI_COMM_WORLD, st)
  call MPI_Get_count(st, MPI_INTEGER, n)
  if (y /= 101 - rank .or. st%MPI_SOURCE /= 1 - rank .or. st%MPI_TAG /= 7 .or. n /= 1) then
    print *, 'wrong: Sendrecv', y, st%MPI_SOURCE, st%MPI_TAG, n
    call MPI_Abort(MPI_COMM_WORLD, 3)
  end if
  call legacy(rank)
  call MPI_Finalize()
end program sendrecvsync
