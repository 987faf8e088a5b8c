! Fortran 2008 large-count calls: `use mpi_f08` with INTEGER(KIND=MPI_COUNT_KIND)
! counts calls the _c procedures (MPICH's mpi_*_f08ts_large_ bindings;
! Open MPI 4.1 has none), which are followed as the calls themselves: a
! datatype made by MPI_Type_contiguous and a request of MPI_Irecv never
! freed (the receive also never completes), a message of two INTEGERs
! received as two REALs, and two puts to the same element of rank 0's
! window (made by MPI_Win_allocate with an MPI_ADDRESS_KIND disp_unit) in
! one fence epoch.
! mpivet: np=3 verdict=error mpi=mpich
program largef08
  use mpi_f08
  use, intrinsic :: iso_c_binding
  implicit none
  integer :: rank, x, two(2)
  real :: r(2)
  integer(kind=MPI_COUNT_KIND) :: one, n2
  integer(kind=MPI_ADDRESS_KIND) :: winsize, unit, disp
  type(MPI_Datatype) :: pair
  type(MPI_Request) :: req
  type(MPI_Win) :: win
  type(c_ptr) :: base
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  one = 1
  n2 = 2
  x = rank
  two = rank
  call MPI_Type_contiguous(n2, MPI_INTEGER, pair) ! want "resource-leak"
  call MPI_Type_commit(pair)
  if (rank == 0) then
    call MPI_Irecv(x, one, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, req) ! want "resource-leak" "request-lifecycle"
  else if (rank == 1) then
    call MPI_Send(two, n2, MPI_INTEGER, 2, 1, MPI_COMM_WORLD) ! want "type-mismatch"
    call MPI_Send(x, one, MPI_INTEGER, 0, 0, MPI_COMM_WORLD)
  else
    call MPI_Recv(r, n2, MPI_REAL, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ! want "type-mismatch"
  end if
  winsize = 16
  unit = 4
  call MPI_Win_allocate(winsize, unit, MPI_INFO_NULL, MPI_COMM_WORLD, base, win)
  call MPI_Win_fence(0, win)
  disp = 2
  if (rank > 0) then
    call MPI_Put(x, one, MPI_INTEGER, 0, disp, one, MPI_INTEGER, win) ! want "rma-race"
  end if
  call MPI_Win_fence(0, win)
  call MPI_Win_free(win)
  call MPI_Finalize()
end program largef08
