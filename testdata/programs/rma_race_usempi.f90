! One-sided communication from Fortran (`use mpi`, 3 ranks): a correct
! fence epoch (each rank puts to its right neighbour and accumulates into
! rank 0 with MPI_SUM), checked values, then a Put/Put race: ranks 1 and 2
! both put to element 5 of rank 0's window in one fence interval.
! mpivet: np=3 verdict=error
program rmarace
  use mpi
  implicit none
  integer :: ierr, rank, size, right, win, sizeint
  integer :: buf(8), v(2)
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call MPI_Type_size(MPI_INTEGER, sizeint, ierr)
  buf = 0
  winsize = 8 * sizeint
  call MPI_Win_create(buf, winsize, sizeint, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  right = mod(rank + 1, size)
  v(1) = rank
  v(2) = 1
  call MPI_Win_fence(0, win, ierr)
  disp = 0
  call MPI_Put(v, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER, win, ierr)
  disp = 1
  call MPI_Accumulate(v(2), 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, MPI_SUM, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  if (buf(1) /= mod(rank + size - 1, size) .or. (rank == 0 .and. buf(2) /= size)) then
    print *, 'wrong values', rank, buf(1), buf(2)
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  disp = 4
  if (rank > 0) then
    call MPI_Put(v, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, win, ierr) ! want "rma-race"
  end if
  call MPI_Win_fence(0, win, ierr)
  call MPI_Win_free(win, ierr)
  call MPI_Finalize(ierr)
end program rmarace
