! One-sided communication from Fortran (`use mpi`, 3 ranks) on windows whose
! base is a TYPE(C_PTR): `use mpi` calls MPI_Win_allocate_cptr for it in
! Open MPI (MPI_Win_allocate's own binding in MPICH). A correct fence
! epoch with checked values, then a Put/Put race: ranks 1 and 2 both put
! to element 3 of rank 0's window in one fence interval. A shared window
! from MPI_Win_allocate_shared (its base a C pointer too) is never freed.
! mpivet: np=3 verdict=error
program rmacptr
  use mpi
  use, intrinsic :: iso_c_binding
  implicit none
  integer :: ierr, rank, size, right, win, swin, node
  integer :: v(2)
  integer, pointer :: mem(:)
  type(c_ptr) :: base, sbase
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  winsize = 16
  call MPI_Win_allocate(winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, base, win, ierr)
  call c_f_pointer(base, mem, [4])
  mem = -1
  right = mod(rank + 1, size)
  v(1) = rank
  v(2) = 1
  call MPI_Win_fence(0, win, ierr)
  disp = 0
  call MPI_Put(v, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  if (mem(1) /= mod(rank + size - 1, size)) then
    print *, 'wrong value', rank, mem(1)
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  disp = 2
  if (rank > 0) then
    call MPI_Put(v, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, win, ierr) ! want "rma-race"
  end if
  call MPI_Win_fence(0, win, ierr)
  call MPI_Win_free(win, ierr)
  call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, node, ierr)
  call MPI_Win_allocate_shared(winsize, 4, MPI_INFO_NULL, node, sbase, swin, ierr) ! want "resource-leak"
  call MPI_Comm_free(node, ierr)
  call MPI_Finalize(ierr)
end program rmacptr
