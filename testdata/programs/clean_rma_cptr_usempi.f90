! Correct one-sided communication from Fortran (`use mpi`, 2 ranks) on
! windows whose base is a TYPE(C_PTR) (MPI_Win_allocate_cptr and
! MPI_Win_allocate_shared_cptr in Open MPI, the calls' own bindings in
! MPICH): a fence epoch of puts into the neighbour's window, a shared window
! each rank reaches its neighbour's part of through MPI_Win_shared_query
! (a C pointer too), read between fences. Values are checked; every window
! is freed.
! mpivet: np=2 verdict=ok
program cleanrmacptr
  use mpi
  use, intrinsic :: iso_c_binding
  implicit none
  integer :: ierr, rank, size, right, win, swin, node, nrank, nsize, unit
  integer :: v(4)
  integer, pointer :: mem(:), mine(:), theirs(:)
  type(c_ptr) :: base, sbase, qbase
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp, qsize
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  winsize = 16
  call MPI_Win_allocate(winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, base, win, ierr)
  call c_f_pointer(base, mem, [4])
  mem = -1
  right = mod(rank + 1, size)
  v = rank * 10 + [1, 2, 3, 4]
  call MPI_Win_fence(0, win, ierr)
  disp = 0
  call MPI_Put(v, 4, MPI_INTEGER, right, disp, 4, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  if (any(mem /= mod(rank + size - 1, size) * 10 + [1, 2, 3, 4])) then
    print *, 'wrong values', rank, mem
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_Win_free(win, ierr)
  call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, node, ierr)
  call MPI_Comm_rank(node, nrank, ierr)
  call MPI_Comm_size(node, nsize, ierr)
  call MPI_Win_allocate_shared(winsize, 4, MPI_INFO_NULL, node, sbase, swin, ierr)
  call c_f_pointer(sbase, mine, [4])
  call MPI_Win_shared_query(swin, mod(nrank + 1, nsize), qsize, unit, qbase, ierr)
  call c_f_pointer(qbase, theirs, [4])
  call MPI_Win_fence(0, swin, ierr)
  mine = nrank * 100 + [1, 2, 3, 4]
  call MPI_Win_fence(0, swin, ierr)
  if (qsize /= winsize .or. unit /= 4 .or. any(theirs /= mod(nrank + 1, nsize) * 100 + [1, 2, 3, 4])) then
    print *, 'wrong shared values', nrank, qsize, unit, theirs
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_Win_fence(0, swin, ierr)
  call MPI_Win_free(swin, ierr)
  call MPI_Comm_free(node, ierr)
  call MPI_Finalize(ierr)
end program cleanrmacptr
