! Correct one-sided communication from Fortran 2008 (`use mpi_f08`, 2
! ranks): a window from MPI_Win_allocate (its base a C pointer), a
! passive-target epoch in which each rank puts into the other and flushes,
! a barrier, and a fence epoch of gets. Values are checked.
! mpivet: np=2 verdict=ok
program cleanrmaf08
  use mpi_f08
  use, intrinsic :: iso_c_binding
  implicit none
  integer :: rank, peer, v(4), got(4)
  type(MPI_Win) :: win
  type(c_ptr) :: base
  integer, pointer :: mem(:)
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  peer = 1 - rank
  winsize = 16
  call MPI_Win_allocate(winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, base, win)
  call c_f_pointer(base, mem, [4])
  mem = -1
  v = rank * 10 + [1, 2, 3, 4]
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win)
  disp = 0
  call MPI_Put(v, 4, MPI_INTEGER, peer, disp, 4, MPI_INTEGER, win)
  call MPI_Win_flush(peer, win)
  call MPI_Win_unlock(peer, win)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Win_fence(0, win)
  call MPI_Get(got, 4, MPI_INTEGER, peer, disp, 4, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  if (any(mem /= peer * 10 + [1, 2, 3, 4]) .or. any(got /= v)) then
    print *, 'wrong values', rank, mem, got
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end if
  call MPI_Win_free(win)
  call MPI_Finalize()
end program cleanrmaf08
